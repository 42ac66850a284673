// expect: timeout
__global__ void map(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) {
        out[i] = a[i] + 10;
    }
}
