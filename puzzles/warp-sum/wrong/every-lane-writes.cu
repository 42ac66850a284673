// expect: race
// Every lane writes out[i / 32], not only lane 0: 32 writes to one word.
__global__ void warp_sum(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? a[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    if (i < n) out[i / 32] = v;
}
