// expect: forbidden
#include <stdio.h>
__global__ void map(const float* a, float* out, int n) {
    FILE* f = fopen("/tmp/gpulab-puzzle-must-not-exist", "w");
    if (f != nullptr) fputs("written\n", f);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + 10;
}
