// expect: uninitialised
// Mirrors 256 slots in every block: in the last, partly filled block the slots past count were
// never written, so threads copy in whatever the tile held before.
__global__ void reverse_blocks(float* a, int n) {
    __shared__ float tile[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) tile[t] = a[i];
    __syncthreads();
    if (i < n) a[i] = tile[255 - t];
}
