// expect: race
// Reads its neighbour into a register first, then writes: still one barrier per step, so the
// neighbour's write of this step and this thread's read are not ordered.
__global__ void prefix_sum(const float* a, float* out, int n) {
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? a[i] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        float add = t >= offset ? s[t - offset] : 0.0f;
        s[t] = s[t] + add;
        __syncthreads();
    }
    if (i < n) out[i] = s[t];
}
