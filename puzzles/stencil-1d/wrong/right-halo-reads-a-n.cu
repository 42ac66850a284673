// expect: out of bounds
// The right halo is not checked against the array: when n is a multiple of 256, the last block's
// right halo is a[n], one past the end.
__global__ void stencil_1d(const float* a, float* out, int n) {
    __shared__ float tile[256 + 2];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t + 1] = i < n ? a[i] : 0.0f;
    if (t == 0) tile[0] = i > 0 ? a[i - 1] : 0.0f;
    if (t == blockDim.x - 1) tile[blockDim.x + 1] = a[i + 1];
    __syncthreads();
    if (i < n) out[i] = tile[t] + tile[t + 1] + tile[t + 2];
}
