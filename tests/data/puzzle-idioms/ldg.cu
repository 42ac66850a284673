// puzzle: map
// A load through the read-only data cache.
__global__ void map(const float* __restrict__ a, float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __ldg(a + i) + 10;
}
