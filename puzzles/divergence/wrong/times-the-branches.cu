// expect: unsupported
// Times each path with clock64() to see the divergence: the simulator runs lanes one after
// another, so a GPU's cycle counter has no meaning here.
__global__ void even_odd(const float* a, float* out, int n) {
    int t = threadIdx.x;
    int half = blockDim.x / 2;
    int parity = t / half;
    int i = blockIdx.x * blockDim.x + 2 * (t % half) + parity;
    if (i >= n) return;
    long long started = clock64();
    if (parity == 0) {
        out[i] = a[i] * a[i] - 1.0f;
    } else {
        out[i] = 0.5f * a[i] + 2.0f;
    }
    if (clock64() - started < 0) out[i] = 0.0f;
}
