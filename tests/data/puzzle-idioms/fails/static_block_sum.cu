// puzzle: block-sum
// expect: race
// says: the static variable 'sum' of block_sum()
// A function-local static is not one per block: every block of the grid shares it, so one block's
// reset lands in the middle of another block's sum.
__global__ void block_sum(const float* a, float* out, int n) {
    static float sum;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) sum = 0.0f;
    __syncthreads();
    if (i < n) atomicAdd(&sum, a[i]);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}
