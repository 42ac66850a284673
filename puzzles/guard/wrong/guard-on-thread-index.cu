// expect: out of bounds
// Guards the index within the block, not the element: a spare block's threads still pass.
__global__ void zip_multiply(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < n) out[i] = a[i] * b[i];
}
