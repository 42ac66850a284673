// out[w] = a[32 * w] + ... + a[32 * w + 31] (only the elements below n); out holds ceil(n / 32).
// Launched with 256 threads per block and ceil(n / 256) blocks: each warp holds one group.
__global__ void warp_sum(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    // Every lane stays, even past the end (with 0): the full mask says all 32 take part.
    float v = i < n ? a[i] : 0.0f;
    // Halve the distance each step: after offset 1, lane 0 holds the sum of all 32 lanes.
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    if (lane == 0 && i < n) out[i / 32] = v;
}
