/* A stand-in for an old cuDNN's version header (tests/configure_tests.cmake): the configure must
   leave the cudnn backend out with a sentence naming the version, and go on. */
#define CUDNN_MAJOR 8
#define CUDNN_MINOR 9
#define CUDNN_PATCHLEVEL 7
