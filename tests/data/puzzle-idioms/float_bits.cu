// puzzle: map
// A float's bits as an int or unsigned and back (no conversion).
__global__ void map(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int bits = __float_as_int(a[i] + 10);
        unsigned ubits = __float_as_uint(__int_as_float(bits));
        out[i] = __uint_as_float(ubits);
    }
}
