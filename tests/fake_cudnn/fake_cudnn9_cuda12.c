/* A stand-in libcudnn.so.9 that reports cuDNN 9.19.0 built for CUDA 12.8 (cudnnGetCudartVersion):
   tests/test_cudnn_library.cpp checks that the run-time loader refuses it for a CUDA 13 build and,
   given a second candidate (fake_cudnn9_cuda13.c), goes on to that one. */
#include <stddef.h>

size_t cudnnGetVersion(void) { return 91900; }
size_t cudnnGetCudartVersion(void) { return 12080; }
