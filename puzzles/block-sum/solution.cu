// out[b] = the sum of a[b * 256 .. b * 256 + 255] (only the elements below n).
// Launched with 256 threads per block and ceil(n / 256) blocks; out holds one float per block.
__global__ void block_sum(const float* a, float* out, int n) {
    __shared__ float partial[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    // Every slot is written, with 0 for the threads past the end, so the tree below never reads
    // a slot nobody wrote.
    partial[t] = i < n ? a[i] : 0.0f;
    __syncthreads();  // every slot is written before any thread reads a neighbour's
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        // Outside the if: every thread of the block reaches every barrier.
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}
