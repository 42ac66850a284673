# Generates the OpenGL 3.3 core and EGL 1.5 loaders with Debian's glad 2 at build time.
# --reproducible makes glad use the Khronos specs it ships with instead of downloading them,
# so the build works offline.
find_program(GPULAB_GLAD_EXECUTABLE glad)
if(NOT GPULAB_GLAD_EXECUTABLE)
    message(FATAL_ERROR "gpulab: 'glad' not found. Install Debian's python3-glad (make deps does this), "
                        "or configure with -DGPULAB_BUILD_APP=OFF -DGPULAB_ENABLE_CUDA=OFF for a core-only build.")
endif()
set(GPULAB_GLAD_DIR ${CMAKE_BINARY_DIR}/glad)
add_custom_command(
    OUTPUT ${GPULAB_GLAD_DIR}/src/gl.c ${GPULAB_GLAD_DIR}/src/egl.c
           ${GPULAB_GLAD_DIR}/include/glad/gl.h ${GPULAB_GLAD_DIR}/include/glad/egl.h
    COMMAND ${GPULAB_GLAD_EXECUTABLE} --reproducible --quiet --api gl:core=3.3,egl=1.5
            --out-path ${GPULAB_GLAD_DIR} c
    COMMENT "Generating the GL 3.3 core + EGL 1.5 loader with glad"
    VERBATIM)
add_library(gpulab_glad STATIC ${GPULAB_GLAD_DIR}/src/gl.c ${GPULAB_GLAD_DIR}/src/egl.c)
target_include_directories(gpulab_glad SYSTEM PUBLIC ${GPULAB_GLAD_DIR}/include)
target_link_libraries(gpulab_glad PUBLIC ${CMAKE_DL_LIBS})
set_target_properties(gpulab_glad PROPERTIES POSITION_INDEPENDENT_CODE ON)
