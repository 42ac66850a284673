# The app's ImGui pieces that need no window and no GL, on a plain ImGui context: the layout
# check's table cells (tests/ui/test_layout_check.cpp). A separate binary because it links ImGui,
# which the core test binary does not.
find_package(PkgConfig REQUIRED)
pkg_check_modules(GPULAB_UI_IMGUI REQUIRED IMPORTED_TARGET imgui)
add_executable(gpulab_ui_tests ${CMAKE_CURRENT_LIST_DIR}/main.cpp ${CMAKE_CURRENT_LIST_DIR}/ui/test_layout_check.cpp
               ${PROJECT_SOURCE_DIR}/app/cli/layout_check.cpp ${PROJECT_SOURCE_DIR}/app/widgets/cell_text.cpp)
target_include_directories(gpulab_ui_tests PRIVATE ${PROJECT_SOURCE_DIR}/app)
target_link_libraries(gpulab_ui_tests PRIVATE PkgConfig::GPULAB_UI_IMGUI doctest::doctest)
target_compile_options(gpulab_ui_tests PRIVATE -Wall -Wextra)
# Test names must not contain commas or semicolons: doctest_discover_tests splits on them.
doctest_discover_tests(gpulab_ui_tests TEST_PREFIX "ui." ADD_LABELS 1)
