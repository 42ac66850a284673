// expect: wrong answer
// Branches on the warp's number, which is uniform, but keeps thread t on element b * 256 + t: half
// the elements get the other element's formula.
__global__ void even_odd(const float* a, float* out, int n) {
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (i >= n) return;
    if ((t / 32) % 2 == 0) {
        out[i] = a[i] * a[i] - 1.0f;
    } else {
        out[i] = 0.5f * a[i] + 2.0f;
    }
}
