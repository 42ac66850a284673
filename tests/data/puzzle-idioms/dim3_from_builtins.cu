// puzzle: map
// threadIdx, blockIdx, blockDim and gridDim are uint3; a dim3 is made from one.
__global__ void map(const float* a, float* out, int n) {
    dim3 block = blockDim;
    dim3 grid(gridDim);
    uint3 t = threadIdx;
    uint3 b = blockIdx;
    unsigned stride = block.x * grid.x;
    for (unsigned i = b.x * block.x + t.x; i < (unsigned)n; i += stride) out[i] = a[i] + 10;
}
