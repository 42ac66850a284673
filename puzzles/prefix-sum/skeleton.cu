// out[i] = a[start] + ... + a[i], where start = blockIdx.x * 256: an inclusive scan per block.
// Launched with 256 threads per block and ceil(n / 256) blocks.
__global__ void prefix_sum(const float* a, float* out, int n) {
    __shared__ float buffer[2][256];  // a double buffer: each step reads one and writes the other
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    // TODO: this thread's element (0 past the end) into buffer[0][t], then a barrier
    // TODO: for offset = 1, 2, 4, ..., 128: new value = old value + (old value offset slots below,
    //       for t >= offset), written to the other buffer; a barrier after every step
    // TODO: write out[i] (only if i < n)
}
