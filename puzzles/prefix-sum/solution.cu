// out[i] = a[start] + ... + a[i], where start = blockIdx.x * 256: an inclusive scan per block.
// Launched with 256 threads per block and ceil(n / 256) blocks.
__global__ void prefix_sum(const float* a, float* out, int n) {
    __shared__ float buffer[2][256];  // a double buffer: each step reads one and writes the other
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buffer[0][t] = i < n ? a[i] : 0.0f;
    __syncthreads();
    int from = 0;  // the buffer holding the previous step's values
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        float v = buffer[from][t];
        if (t >= offset) v += buffer[from][t - offset];
        // Writing to the other buffer: no thread overwrites a value another thread still has to
        // read this step. The barrier makes the whole step visible before the next one reads it.
        buffer[1 - from][t] = v;
        from = 1 - from;
        __syncthreads();
    }
    if (i < n) out[i] = buffer[from][t];
}
