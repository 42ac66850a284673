// out[i] = a[i - 1] + a[i] + a[i + 1] for every i < n; neighbours outside the array count as 0.
// Launched with 256 threads per block and ceil(n / 256) blocks.
__global__ void stencil_1d(const float* a, float* out, int n) {
    __shared__ float tile[256 + 2];  // tile[0] and tile[257]: the halo
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    // Every thread stores one element (0 past the end), so tile[1 .. 256] is always complete.
    tile[t + 1] = i < n ? a[i] : 0.0f;
    // The halo, from the edge threads: the element just before the block and the one just after
    // it, 0 when that is outside the array.
    if (t == 0) tile[0] = i > 0 ? a[i - 1] : 0.0f;
    if (t == blockDim.x - 1) tile[blockDim.x + 1] = i + 1 < n ? a[i + 1] : 0.0f;
    __syncthreads();  // the whole tile, halo included, before anyone reads a neighbour
    if (i < n) out[i] = tile[t] + tile[t + 1] + tile[t + 2];
}
