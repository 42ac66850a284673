# A deliberately broken oneDNN package config, shaped like the real failure on a fresh Debian 12 box:
# oneDNN's dnnl-config.cmake asks for OpenCL and stops the configure when it is not found. Used by
# tests/configure_tests.cmake to show that gpulab's configure goes on without cpu-onednn.
include(FindPackageHandleStandardArgs)
set(GpulabFakeOpenCL_FIND_REQUIRED TRUE)   # as find_package(OpenCL REQUIRED) inside the real one
find_package_handle_standard_args(GpulabFakeOpenCL REQUIRED_VARS GpulabFakeOpenCL_INCLUDE_DIR)
