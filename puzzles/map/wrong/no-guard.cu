// expect: out of bounds
__global__ void map(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = a[i] + 10;
}
