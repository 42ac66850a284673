// Reverses each block's elements of a in place: block b owns a[b * 256 ...], up to 256 of them
// (the last block only those below n).
// Launched with 256 threads per block and ceil(n / 256) blocks.
__global__ void reverse_blocks(float* a, int n) {
    __shared__ float tile[256];
    int t = threadIdx.x;
    int start = blockIdx.x * blockDim.x;
    int count = 0;  // TODO: how many elements this block owns (256, or fewer in the last block)
    // TODO: copy this thread's element into the tile
    // TODO: wait until the whole block has written the tile
    // TODO: write this thread's element back from the mirrored slot
}
