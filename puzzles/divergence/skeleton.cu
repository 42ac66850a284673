// Even i: out[i] = a[i] * a[i] - 1. Odd i: out[i] = 0.5 * a[i] + 2.
// Launched with 256 threads per block and ceil(n / 256) blocks; block b handles the elements
// b * 256 .. b * 256 + 255.
// This version is right but divergent: in every warp, the even lanes and the odd lanes take
// different branches. TODO: choose i so that all 32 lanes of a warp take the same branch.
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
