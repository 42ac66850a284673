// expect: forbidden
// A kernel may only compute: no network.
#include <sys/socket.h>
__global__ void zip_multiply(const float* a, const float* b, float* out, int n) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * b[i] + (s > 1000000 ? 1.0f : 0.0f);
}
