// expect: wrong answer
// Off by one the other way: the last element is never written.
__global__ void zip_multiply(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1) out[i] = a[i] * b[i];
}
