/* A stand-in libcudnn.so.9 that reports cuDNN 8.9.7 (cuDNN 8's encoding: major*1000 + minor*100 +
   patch) and offers nothing else: tests/test_cudnn_library.cpp points the run-time loader at it to see
   the "wrong major version" sentence, without needing two real cuDNN installs. */
#include <stddef.h>

size_t cudnnGetVersion(void) { return 8907; }
