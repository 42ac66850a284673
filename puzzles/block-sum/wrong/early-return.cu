// expect: barrier
// Threads past the end return before the barrier: in the last, partly filled block the barrier
// then waits for threads that have left (and their slots are never written either).
__global__ void block_sum(const float* a, float* out, int n) {
    __shared__ float partial[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (i >= n) return;
    partial[t] = a[i];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}
