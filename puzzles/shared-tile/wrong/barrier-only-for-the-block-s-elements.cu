// expect: barrier
// The barrier is inside the guard: in the last block the threads past count never reach it.
__global__ void reverse_blocks(float* a, int n) {
    __shared__ float tile[256];
    int t = threadIdx.x;
    int start = blockIdx.x * blockDim.x;
    int count = min(256, n - start);
    if (t < count) {
        tile[t] = a[start + t];
        __syncthreads();
        a[start + t] = tile[count - 1 - t];
    }
}
