// expect: wrong answer
// Swaps the buffers each step but writes out from the one the last step read, not the one it
// wrote: one step short.
__global__ void prefix_sum(const float* a, float* out, int n) {
    __shared__ float buffer[2][256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buffer[0][t] = i < n ? a[i] : 0.0f;
    __syncthreads();
    int from = 0;
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        float v = buffer[from][t];
        if (t >= offset) v += buffer[from][t - offset];
        buffer[1 - from][t] = v;
        from = 1 - from;
        __syncthreads();
    }
    if (i < n) out[i] = buffer[1 - from][t];
}
