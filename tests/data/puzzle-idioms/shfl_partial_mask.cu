// puzzle: warp-sum
// After the first step only the lower half of the warp goes on, with the mask 0x0000ffff. Lanes
// 8-15 then read lanes outside the mask (undefined values), but only lane 0's sum is used, and it
// never depends on them.
__global__ void warp_sum(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float v = i < n ? a[i] : 0.0f;
    v += __shfl_down_sync(0xffffffffu, v, 16);
    if (lane < 16) {
        for (int offset = 8; offset > 0; offset /= 2) v += __shfl_down_sync(0x0000ffffu, v, offset);
    }
    if (lane == 0 && i < n) out[i / 32] = v;
}
