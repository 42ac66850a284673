// out[i] = a[i] * b[i] for every i < n.
// Launched with 256 threads per block and ceil(n / 256) + 2 blocks: more threads than elements.
__global__ void zip_multiply(const float* a, const float* b, float* out, int n) {
    int i = 0;  // TODO: this thread's element (blockIdx, blockDim, threadIdx)
    // TODO: a thread with no element must do nothing
    out[i] = a[i];  // TODO: the product
}
