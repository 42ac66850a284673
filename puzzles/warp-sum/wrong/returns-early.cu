// expect: warp mask
// Lanes past the end return before the shuffles, but the mask still names them: the lanes that
// stayed read values from lanes that are gone.
__global__ void warp_sum(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = a[i];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % 32 == 0) out[i / 32] = v;
}
