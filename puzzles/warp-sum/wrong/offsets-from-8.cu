// expect: wrong answer
// Starts at offset 8: lane 0 ends with the sum of lanes 0-15 only.
__global__ void warp_sum(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? a[i] : 0.0f;
    for (int offset = 8; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % 32 == 0 && i < n) out[i / 32] = v;
}
