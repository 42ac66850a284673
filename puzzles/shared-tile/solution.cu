// Reverses each block's elements of a in place: block b owns a[b * 256 ...], up to 256 of them
// (the last block only those below n).
// Launched with 256 threads per block and ceil(n / 256) blocks.
__global__ void reverse_blocks(float* a, int n) {
    __shared__ float tile[256];
    int t = threadIdx.x;
    int start = blockIdx.x * blockDim.x;
    int count = min(256, n - start);  // the last block may own fewer than 256
    if (t < count) tile[t] = a[start + t];
    // Every element of the block is in the tile before anyone overwrites a: without the barrier a
    // thread could read the slot of a thread that has not stored it yet.
    __syncthreads();
    if (t < count) a[start + t] = tile[count - 1 - t];
}
