// expect: race
// Reads the mirrored slot of the tile without waiting for the thread that writes it.
__global__ void reverse_blocks(float* a, int n) {
    __shared__ float tile[256];
    int t = threadIdx.x;
    int start = blockIdx.x * blockDim.x;
    int count = min(256, n - start);
    if (t < count) tile[t] = a[start + t];
    if (t < count) a[start + t] = tile[count - 1 - t];
}
