// expect: timeout
// Block 0 wants to add its sum last, so it waits until the other blocks' sums have arrived in
// out[0]. Nothing promises that the other blocks run while block 0 waits (here they run one after
// another, so they never do): blocks cannot wait for each other inside a launch.
__global__ void dot(const float* a, const float* b, float* out, int n) {
    __shared__ float partial[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? a[i] * b[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) {
        if (blockIdx.x == 0 && gridDim.x > 1) {
            while (atomicAdd(out, 0.0f) == 0.0f) {
            }
        }
        atomicAdd(out, partial[0]);
    }
}
