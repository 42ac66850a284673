// out[i] = a[i - 1] + a[i] + a[i + 1] for every i < n; neighbours outside the array count as 0.
// Launched with 256 threads per block and ceil(n / 256) blocks.
__global__ void stencil_1d(const float* a, float* out, int n) {
    __shared__ float tile[256 + 2];  // tile[0] and tile[257]: the halo
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    // TODO: store this thread's element (0 past the end) at tile[t + 1]
    // TODO: the first thread loads the left halo, the last thread the right halo (0 outside a)
    // TODO: wait for the whole tile
    // TODO: out[i] from tile[t], tile[t + 1] and tile[t + 2]
}
