// puzzle: block-sum
// Barriers that combine a predicate over the block: how many threads have an element, whether all
// do, whether any does.
__global__ void block_sum(const float* a, float* out, int n) {
    __shared__ float partial[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? a[i] : 0.0f;
    int have = __syncthreads_count(i < n);   // also the barrier after the stores
    int all = __syncthreads_and(i < n);
    int any = __syncthreads_or(i < n);
    int expect = min(n - (int)(blockIdx.x * blockDim.x), (int)blockDim.x);
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    bool right = have == expect && (all != 0) == (have == (int)blockDim.x) && (any != 0) == (have > 0);
    if (t == 0) out[blockIdx.x] = right ? partial[0] : -1.0f;
}
