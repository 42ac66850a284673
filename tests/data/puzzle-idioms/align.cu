// puzzle: map
// A structure with CUDA's __align__: loaded and stored as one 8-byte access.
struct __align__(8) Pair {
    float value, offset;
};
static_assert(alignof(Pair) == 8, "__align__(8)");

__global__ void map(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    Pair p;
    p.value = i < n ? a[i] : 0.0f;
    p.offset = 10.0f;
    Pair copy = p;
    if (i < n) out[i] = copy.value + copy.offset;
}
