// expect: wrong answer
__global__ void map(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1) out[i] = a[i] + 10;
    if (i == n - 1) out[i] = a[i];
}
