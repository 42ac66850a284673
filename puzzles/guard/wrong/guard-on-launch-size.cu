// expect: out of bounds
// Guards against the number of threads launched, which is more than n here.
__global__ void zip_multiply(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < gridDim.x * blockDim.x) out[i] = a[i] * b[i];
}
