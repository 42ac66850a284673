// expect: wrong answer
// The loop stops at stride 2: the last step (slot 1 into slot 0) is missing.
__global__ void block_sum(const float* a, float* out, int n) {
    __shared__ float partial[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? a[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 1; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}
