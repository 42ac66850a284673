// out[0] = a[0] * b[0] + ... + a[n - 1] * b[n - 1]; the host sets out[0] to 0 before the launch.
// Launched with 256 threads per block and ceil(n / 256) blocks.
__global__ void dot(const float* a, const float* b, float* out, int n) {
    __shared__ float partial[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? a[i] * b[i] : 0.0f;
    __syncthreads();
    // The block's 256 products -> one sum in partial[0].
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    // One atomic per block: blocks finish in any order, and atomics never lose an update.
    if (t == 0) atomicAdd(out, partial[0]);
}
