// out[0] = a[0] * b[0] + ... + a[n - 1] * b[n - 1]; the host sets out[0] to 0 before the launch.
// Launched with 256 threads per block and ceil(n / 256) blocks.
__global__ void dot(const float* a, const float* b, float* out, int n) {
    __shared__ float partial[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    // TODO: this thread's product (0 past the end) into partial[t]
    // TODO: a tree reduction of partial, with barriers
    // TODO: one thread adds the block's sum into out[0], atomically
}
