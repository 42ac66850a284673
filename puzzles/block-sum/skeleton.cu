// out[b] = the sum of a[b * 256 .. b * 256 + 255] (only the elements below n).
// Launched with 256 threads per block and ceil(n / 256) blocks; out holds one float per block.
__global__ void block_sum(const float* a, float* out, int n) {
    __shared__ float partial[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    // TODO: store this thread's element in partial[t] (0 when i is past the end)

    // TODO: a barrier, then halve the number of active threads each step:
    //       partial[t] += partial[t + stride] for t < stride, a barrier after every step

    // TODO: thread 0 writes the block's sum
    out[blockIdx.x] = 0;
}
