// puzzle: map
// min and max of mixed types: min(unsigned, int) is CUDA's own overload (compared as unsigned).
__global__ void map(const float* a, float* out, int n) {
    int base = blockIdx.x * blockDim.x;
    unsigned count = min(blockDim.x, n - base);   // the threads of this block with an element
    int last = max(0, n - 1);
    float ten = max(9.5f, 10.0f);
    double bound = min(1.0f, 2.0);                // min(float, double) is a double
    if (threadIdx.x < count && base + (int)threadIdx.x <= last) {
        out[base + threadIdx.x] = a[base + threadIdx.x] + ten * (float)bound;
    }
}
