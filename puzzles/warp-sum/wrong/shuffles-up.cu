// expect: wrong answer
// __shfl_up_sync hands each lane the value of the lane below it, so the sum gathers in lane 31,
// not in lane 0, which writes.
__global__ void warp_sum(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? a[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_up_sync(0xffffffff, v, offset);
    if (threadIdx.x % 32 == 0 && i < n) out[i / 32] = v;
}
