/* gpulab's stand-in for CUDA's <cuda_runtime.h>: a kernel compiled for the simulator (against student_cuda.h,
 * which defines GPULAB_STUDENT_CUDA and already provides everything a kernel uses from it) needs
 * nothing more; under nvcc, whose -I path also has this folder, the toolkit's own header is used. */
#ifndef GPULAB_STUDENT_CUDA
#include_next <cuda_runtime.h>
#endif
