// expect: race
// Mirrors across the whole array instead of within the block: a thread reads an element of
// another block, which that block's threads overwrite, and blocks are never ordered.
__global__ void reverse_blocks(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __shared__ float tile[256];
    if (i < n) tile[threadIdx.x] = a[n - 1 - i];
    __syncthreads();
    if (i < n) a[i] = tile[threadIdx.x];
}
