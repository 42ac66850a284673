// expect: out of bounds
// Two barriers per step (correct), but every thread adds s[t - offset], even the threads below
// the offset: thread 0 reads s[-1], before the start of the array.
__global__ void prefix_sum(const float* a, float* out, int n) {
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? a[i] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        float v = s[t] + s[t - offset];
        __syncthreads();
        s[t] = v;
        __syncthreads();
    }
    if (i < n) out[i] = s[t];
}
