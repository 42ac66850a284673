// expect: wrong answer
// Maps thread t to 2 * t + parity without halving t: threads 128-255 land on the odd elements of
// the next block's range, and the odd elements of this block's range get no thread at all.
__global__ void even_odd(const float* a, float* out, int n) {
    int t = threadIdx.x;
    int parity = t / 128;
    int i = blockIdx.x * blockDim.x + 2 * t + parity;
    if (i >= n) return;
    if (parity == 0) {
        out[i] = a[i] * a[i] - 1.0f;
    } else {
        out[i] = 0.5f * a[i] + 2.0f;
    }
}
