// puzzle: block-sum
// expect: wrong answer
// says: blocks ran in shuffled order, seed 12345
// Each block takes a number as it starts and writes its sum to that slot, as if blocks started in
// index order. Nothing races (the counter is atomic, each slot written once), but a GPU starts its
// blocks in no promised order: the sums land in the wrong slots.
__device__ unsigned next_slot;

__global__ void block_sum(const float* a, float* out, int n) {
    __shared__ float partial[256];
    __shared__ unsigned slot;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0) slot = atomicInc(&next_slot, gridDim.x - 1);   // back to 0 after the last block
    partial[t] = i < n ? a[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) out[slot] = partial[0];
}
