// expect: divergence
// The starting point: right, but every warp diverges (even and odd lanes take different branches).
__global__ void even_odd(const float* a, float* out, int n) {
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (i >= n) return;
    if (i % 2 == 0) {
        out[i] = a[i] * a[i] - 1.0f;
    } else {
        out[i] = 0.5f * a[i] + 2.0f;
    }
}
