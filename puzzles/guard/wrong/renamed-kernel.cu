// expect: compile error
// The kernel's name and parameters are fixed: the host side calls zip_multiply.
__global__ void multiply(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * b[i];
}
