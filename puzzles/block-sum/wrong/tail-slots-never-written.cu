// expect: uninitialised
// Threads past the end store nothing, so in the last, partly filled block the tree adds slots no
// thread wrote: shared memory holds whatever the previous block left there.
__global__ void block_sum(const float* a, float* out, int n) {
    __shared__ float partial[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) partial[t] = a[i];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}
