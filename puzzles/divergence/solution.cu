// Even i: out[i] = a[i] * a[i] - 1. Odd i: out[i] = 0.5 * a[i] + 2.
// Launched with 256 threads per block and ceil(n / 256) blocks; block b handles the elements
// b * 256 .. b * 256 + 255.
__global__ void even_odd(const float* a, float* out, int n) {
    int t = threadIdx.x;
    // Threads 0-127 (warps 0-3) take the block's even elements, threads 128-255 (warps 4-7) its odd
    // ones: t / 128 is the parity, the same for all 32 lanes of a warp.
    int half = blockDim.x / 2;
    int parity = t / half;
    int i = blockIdx.x * blockDim.x + 2 * (t % half) + parity;
    if (i >= n) return;
    if (parity == 0) {
        out[i] = a[i] * a[i] - 1.0f;
    } else {
        out[i] = 0.5f * a[i] + 2.0f;
    }
}
