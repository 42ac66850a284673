// expect: warp mask
// The mask 0x0000ffff names lanes 0-15 only, yet all 32 lanes call the shuffle: lanes 16-31 call
// it with a mask that leaves themselves out.
__global__ void warp_sum(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? a[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0x0000ffff, v, offset);
    if (threadIdx.x % 32 == 0 && i < n) out[i / 32] = v;
}
