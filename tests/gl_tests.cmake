# The GL layer's tests: an offscreen EGL context (Mesa surfaceless here, EGL device on an NVIDIA
# server), shader loading, tensor textures and their colours. A separate binary because it links
# the app's GL library; it needs no window and no DISPLAY. Where no context can be made each test
# prints "SKIPPED: ..." and CTest reports it as skipped.
add_executable(gpulab_gl_tests ${CMAKE_CURRENT_LIST_DIR}/main.cpp ${CMAKE_CURRENT_LIST_DIR}/gl/test_gl_render.cpp)
target_link_libraries(gpulab_gl_tests PRIVATE gpulab_gl doctest::doctest)
target_compile_options(gpulab_gl_tests PRIVATE -Wall -Wextra)
# Test names must not contain commas or semicolons: doctest_discover_tests splits on them.
doctest_discover_tests(gpulab_gl_tests
    TEST_PREFIX "gl."
    ADD_LABELS 1
    PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED:")
