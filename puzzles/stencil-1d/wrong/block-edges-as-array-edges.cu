// expect: wrong answer
// Sets the halo to 0 in every block, as if each block's edge were the array's: the first and last
// output of every block miss the neighbour that lives in the next block.
__global__ void stencil_1d(const float* a, float* out, int n) {
    __shared__ float tile[256 + 2];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t + 1] = i < n ? a[i] : 0.0f;
    if (t == 0) tile[0] = 0.0f;
    if (t == blockDim.x - 1) tile[blockDim.x + 1] = 0.0f;
    __syncthreads();
    if (i < n) out[i] = tile[t] + tile[t + 1] + tile[t + 2];
}
