// expect: launch refused
// A "big enough for anything" tile of 16384 floats is 64 KiB of shared memory; a block may have at
// most 48 KiB, so a GPU refuses to launch the kernel at all.
__global__ void reverse_blocks(float* a, int n) {
    __shared__ float tile[16384];
    int t = threadIdx.x;
    int start = blockIdx.x * blockDim.x;
    int count = min(256, n - start);
    if (t < count) tile[t] = a[start + t];
    __syncthreads();
    if (t < count) a[start + t] = tile[count - 1 - t];
}
