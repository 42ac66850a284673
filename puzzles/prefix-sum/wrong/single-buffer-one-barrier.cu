// expect: race
// One array and one barrier per step: thread t reads slot t - offset in the same step in which
// thread t - offset adds into it, so it may get the old or the new value.
__global__ void prefix_sum(const float* a, float* out, int n) {
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? a[i] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        if (t >= offset) s[t] = s[t] + s[t - offset];
        __syncthreads();
    }
    if (i < n) out[i] = s[t];
}
