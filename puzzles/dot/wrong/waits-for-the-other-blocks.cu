// expect: timeout
// Each block waits for its turn (block b after block b - 1) so that the sums are added in index
// order, the same float total every run. That only works if the blocks start in index order, and
// nothing promises it: a block may wait for one that has not started, and a waiting block can keep
// it from starting. Here blocks run one after another in a shuffled order, so the first block that
// runs out of turn waits forever: blocks cannot wait for each other inside a launch.
__device__ unsigned turn;  // the block whose turn it is to add (back to 0 after the last)

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
        while (atomicAdd(&turn, 0u) != blockIdx.x) {
        }
        atomicAdd(out, partial[0]);
        atomicInc(&turn, gridDim.x - 1);
    }
}
