// out[i] = a[i] * b[i] for every i < n.
// Launched with 256 threads per block and ceil(n / 256) + 2 blocks: more threads than elements.
__global__ void zip_multiply(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // The guard: threads past the end (the tail of the last block, and the two spare blocks)
    // have no element, so they read and write nothing.
    if (i < n) out[i] = a[i] * b[i];
}
