// expect: race
// No barrier between the steps: a thread reads partial[t + stride] while the thread that owns that
// slot may not have added its own step yet.
__global__ void block_sum(const float* a, float* out, int n) {
    __shared__ float partial[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? a[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}
