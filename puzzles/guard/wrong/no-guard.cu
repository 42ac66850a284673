// expect: out of bounds
// Every thread reads and writes, including the spare blocks.
__global__ void zip_multiply(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = a[i] * b[i];
}
