// expect: a wrong answer, and the kernel's printf shown on the command line (cli.puzzle_check_printed)
#include <cstdio>
__global__ void map(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) printf(" hello from the kernel\n");
    if (i < n) out[i] = a[i];
}
