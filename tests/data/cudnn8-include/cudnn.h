/* Stand-in: see cudnn_version.h beside this file. */
