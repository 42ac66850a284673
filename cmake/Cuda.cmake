# Decide whether the CUDA and cuDNN backends are built. Never fails the configure: without a CUDA
# compiler the build is CPU-only and says why, so a student's laptop without the toolkit still builds.
set(GPULAB_HAVE_CUDA OFF)
set(GPULAB_HAVE_CUDNN OFF)
set(GPULAB_CUDA_WHY "")

if(NOT GPULAB_ENABLE_CUDA)
    set(GPULAB_CUDA_WHY "GPULAB_ENABLE_CUDA=OFF")
else()
    # check_language(CUDA) only looks on PATH and at CUDACXX; Debian's CUDA lives in /usr/local/cuda.
    if(NOT DEFINED ENV{CUDACXX} AND NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
        set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "CUDA compiler")
    endif()
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
        # CUDA 13 builds for compute capability 7.5 (Turing) and newer only. We ship real code for
        # every generation a student may own, Turing (75), Ampere (80, 86), Ada (89), Hopper (90)
        # and Blackwell (100, 120), plus PTX of the newest so a future GPU can JIT-compile it.
        # GPULAB_CUDA_ARCHS overrides the list (e.g. "90" for a quick build for one H100).
        set(GPULAB_CUDA_ARCHS "75-real;80-real;86-real;89-real;90-real;100-real;120" CACHE STRING
            "CUDA architectures for the kernels")
        set(CMAKE_CUDA_ARCHITECTURES ${GPULAB_CUDA_ARCHS})
        enable_language(CUDA)
        find_package(CUDAToolkit)
        if(CUDAToolkit_FOUND)
            set(GPULAB_HAVE_CUDA ON)
        else()
            set(GPULAB_CUDA_WHY "nvcc found at ${CMAKE_CUDA_COMPILER} but the CUDA toolkit libraries were not")
        endif()
    else()
        set(GPULAB_CUDA_WHY "no CUDA compiler found (put /usr/local/cuda/bin on PATH or set CUDACXX)")
    endif()
endif()

if(GPULAB_HAVE_CUDA)
    # cuDNN: only its headers are needed to build. The library is loaded at run time
    # (kernels/libraries/cudnn_library.cpp), so the binary starts on machines without cuDNN. A header of another
    # major version than the soname we load would not match the calls, so it leaves the backend out.
    set(GPULAB_CUDNN_WHY "")
    find_path(GPULAB_CUDNN_INCLUDE cudnn_version.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/include /usr/local/cuda/include)
    if(NOT GPULAB_CUDNN_INCLUDE)
        set(GPULAB_CUDNN_WHY "cuDNN not found at build time: install cuDNN 9 (cudnn.h) and re-run CMake to build this backend")
    else()
        file(STRINGS ${GPULAB_CUDNN_INCLUDE}/cudnn_version.h major_line REGEX "^#define CUDNN_MAJOR +[0-9]+")
        string(REGEX MATCH "[0-9]+$" GPULAB_CUDNN_HEADER_MAJOR "${major_line}")
        if(NOT GPULAB_CUDNN_HEADER_MAJOR STREQUAL "9")
            set(GPULAB_CUDNN_WHY "cuDNN headers at ${GPULAB_CUDNN_INCLUDE} are version '${GPULAB_CUDNN_HEADER_MAJOR}'; gpulab's cudnn backend is written for cuDNN 9: install cuDNN 9 and re-run CMake")
        elseif(NOT EXISTS ${GPULAB_CUDNN_INCLUDE}/cudnn.h)
            set(GPULAB_CUDNN_WHY "cuDNN installation at ${GPULAB_CUDNN_INCLUDE} has cudnn_version.h but no cudnn.h")
        endif()
    endif()
    if(GPULAB_CUDNN_WHY STREQUAL "")
        set(GPULAB_HAVE_CUDNN ON)
        # Only a hint for the run-time loader: the folder the build machine had cuDNN in.
        find_library(GPULAB_CUDNN_LIBRARY NAMES libcudnn.so.9 cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64)
        set(GPULAB_CUDNN_LIBRARY_DIR "")
        if(GPULAB_CUDNN_LIBRARY)
            get_filename_component(GPULAB_CUDNN_LIBRARY_DIR ${GPULAB_CUDNN_LIBRARY} DIRECTORY)
        endif()
    else()
        message(STATUS "gpulab: cudnn backend not available: ${GPULAB_CUDNN_WHY}")
    endif()
    message(STATUS "gpulab: CUDA backends ON (${CMAKE_CUDA_COMPILER}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
else()
    message(STATUS "gpulab: building CPU-only: ${GPULAB_CUDA_WHY}")
endif()
