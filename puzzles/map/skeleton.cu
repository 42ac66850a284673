// out[i] = a[i] + 10 for every i < n.
// Launched with 256 threads per block and ceil(n / 256) blocks.
__global__ void map(const float* a, float* out, int n) {
    int i = 0;  // TODO: this thread's element
    out[i] = a[i];  // TODO
}
