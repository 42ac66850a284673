// expect: warp mask
// Only the lower half of the warp calls the shuffle, but its mask names all 32 lanes: lanes 0-15
// wait at a shuffle that lanes 16-31 never call.
__global__ void warp_sum(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float v = i < n ? a[i] : 0.0f;
    if (lane < 16) v += __shfl_down_sync(0xffffffff, v, 16);
    if (lane == 0 && i < n) out[i / 32] = v;
}
