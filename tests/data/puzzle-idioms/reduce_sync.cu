// puzzle: warp-sum
// sm_80's warp reduction, where the architecture has it (an int sum of the elements' bits would
// not do for floats: it counts the lanes with an element, then sums with shuffles).
__global__ void warp_sum(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float v = i < n ? a[i] : 0.0f;
    unsigned lanes_with_element = 32;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    lanes_with_element = __reduce_add_sync(0xffffffffu, i < n ? 1u : 0u);
#endif
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0 && i < n && lanes_with_element > 0) out[i / 32] = v;
}
