# An optional dependency that is installed but broken must never stop gpulab's configure: the
# backend it feeds becomes "not available: <reason>" and the build goes on (cmake/OptionalPackage.cmake,
# cmake/Cuda.cmake). Each test configures the project afresh in its own folder, core only, and reads
# the reason the configure prints.
set(GPULAB_CONFIGURE_CHECK_ARGS -G Ninja -DGPULAB_BUILD_APP=OFF -DGPULAB_BUILD_TESTS=OFF)

# oneDNN's config present but failing the way it does on a fresh Debian 12 box (no OpenCL headers).
add_test(NAME configure.broken_onednn_prefix_leaves_cpu_onednn_out
    COMMAND ${CMAKE_COMMAND}
        "-DCMD=${CMAKE_COMMAND};-S;${PROJECT_SOURCE_DIR};-B;${CMAKE_CURRENT_BINARY_DIR}/configure-broken-onednn;${GPULAB_CONFIGURE_CHECK_ARGS};-DGPULAB_ENABLE_CUDA=OFF;-Ddnnl_DIR=${CMAKE_CURRENT_SOURCE_DIR}/data/broken-dnnl"
        -DEXPECT_RC=0
        "-DEXPECT_REGEX=cpu-onednn not available: oneDNN is installed but unusable: dnnl's CMake configuration failed: Could NOT find GpulabFakeOpenCL.*oneDNN OFF"
        -P ${CMAKE_CURRENT_SOURCE_DIR}/run_and_check.cmake)

# cuDNN headers of another major version than the libcudnn.so.9 the loader opens. Needs nvcc.
if(GPULAB_HAVE_CUDA)
    add_test(NAME configure.cudnn_of_another_major_leaves_cudnn_out
        COMMAND ${CMAKE_COMMAND}
            "-DCMD=${CMAKE_COMMAND};-S;${PROJECT_SOURCE_DIR};-B;${CMAKE_CURRENT_BINARY_DIR}/configure-cudnn8;${GPULAB_CONFIGURE_CHECK_ARGS};-DGPULAB_ENABLE_ONEDNN=OFF;-DGPULAB_CUDNN_INCLUDE=${CMAKE_CURRENT_SOURCE_DIR}/data/cudnn8-include"
            -DEXPECT_RC=0
            "-DEXPECT_REGEX=cudnn backend not available: cuDNN headers at [^\n]*cudnn8-include are version '8'.*CUDA backends ON, cuDNN OFF"
            -P ${CMAKE_CURRENT_SOURCE_DIR}/run_and_check.cmake)
endif()
set_tests_properties(configure.broken_onednn_prefix_leaves_cpu_onednn_out PROPERTIES LABELS configure)
