// expect: race
// No tile: each thread reads its mirror straight from a and overwrites its own element, while the
// mirror's thread may already have overwritten the element this one reads (or not yet read this
// one's).
__global__ void reverse_blocks(float* a, int n) {
    int t = threadIdx.x;
    int start = blockIdx.x * blockDim.x;
    int count = min(256, n - start);
    if (t < count) {
        float mirrored = a[start + count - 1 - t];
        a[start + t] = mirrored;
    }
}
