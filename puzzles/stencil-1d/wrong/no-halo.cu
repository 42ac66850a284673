// expect: uninitialised
// The halo is never loaded: thread 0 reads tile[0] and the last thread tile[257], which no thread
// of the block wrote.
__global__ void stencil_1d(const float* a, float* out, int n) {
    __shared__ float tile[256 + 2];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t + 1] = i < n ? a[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = tile[t] + tile[t + 1] + tile[t + 2];
}
