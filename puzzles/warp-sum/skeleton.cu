// out[w] = a[32 * w] + ... + a[32 * w + 31] (only the elements below n); out holds ceil(n / 32).
// Launched with 256 threads per block and ceil(n / 256) blocks: each warp holds one group.
__global__ void warp_sum(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float v = 0.0f;  // TODO: this lane's element (0 past the end; do not return early)
    // TODO: add the value of the lane 16, 8, 4, 2 and 1 above, with __shfl_down_sync(0xffffffff, ...)
    // TODO: lane 0 writes the group's sum (if the group exists)
}
