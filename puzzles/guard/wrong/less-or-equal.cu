// expect: out of bounds
// Off by one: i == n is one past the last element.
__global__ void zip_multiply(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = a[i] * b[i];
}
