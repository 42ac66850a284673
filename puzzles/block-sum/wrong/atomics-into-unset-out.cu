// expect: uninitialised
// Every thread adds its element straight into out[blockIdx.x] with atomicAdd. The atomics do not
// race with each other, but out was never set: device memory is not zeroed, so the first add
// starts from garbage.
__global__ void block_sum(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&out[blockIdx.x], a[i]);
}
