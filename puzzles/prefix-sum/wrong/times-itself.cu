// expect: unsupported
// Measures its own steps with clock64(): the simulator runs threads one after another, so a GPU's
// cycle counter has no meaning here (measure with the lessons' timers instead).
__global__ void prefix_sum(const float* a, float* out, int n) {
    __shared__ float buffer[2][256];
    long long started = clock64();
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
    if (i < n) out[i] = buffer[from][t] + (clock64() - started < 0 ? 1.0f : 0.0f);
}
