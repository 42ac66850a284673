# The installed app runs from any folder (cmake/Install.cmake, app/render/resources.cpp).
add_test(NAME install.destdir_install_runs_from_an_unrelated_folder
    COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DOUT=${CMAKE_CURRENT_BINARY_DIR}/install-check
            -DPNG_CHECK=$<TARGET_FILE:gpulab_png_check> -P ${CMAKE_CURRENT_LIST_DIR}/install_check.cmake)
set_tests_properties(install.destdir_install_runs_from_an_unrelated_folder PROPERTIES LABELS install)
