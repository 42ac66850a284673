// expect: out of bounds
// The left halo of block 0 is a[-1], before the start of a: it must be 0, not read.
__global__ void stencil_1d(const float* a, float* out, int n) {
    __shared__ float tile[256 + 2];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t + 1] = i < n ? a[i] : 0.0f;
    if (t == 0) tile[0] = a[i - 1];
    if (t == blockDim.x - 1) tile[blockDim.x + 1] = i + 1 < n ? a[i + 1] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = tile[t] + tile[t + 1] + tile[t + 2];
}
