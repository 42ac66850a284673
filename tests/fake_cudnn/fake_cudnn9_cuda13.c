/* A stand-in libcudnn.so.9 that reports cuDNN 9.19.0 built for CUDA 13.0: the good second candidate
   of the loader's "try the next one" test (tests/test_cudnn_library.cpp). */
#include <stddef.h>

size_t cudnnGetVersion(void) { return 91900; }
size_t cudnnGetCudartVersion(void) { return 13000; }
