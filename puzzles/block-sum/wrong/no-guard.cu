// expect: out of bounds
// The last block's threads past n read past the end of a.
__global__ void block_sum(const float* a, float* out, int n) {
    __shared__ float partial[256];
    int t = threadIdx.x;
    partial[t] = a[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}
