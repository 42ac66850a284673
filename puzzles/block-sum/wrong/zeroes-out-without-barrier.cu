// expect: race
// Thread 0 zeroes out[blockIdx.x] and every thread then adds into it atomically, but nothing
// makes the other threads wait for the zero: an atomic and a plain write to one word race.
__global__ void block_sum(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
    if (i < n) atomicAdd(&out[blockIdx.x], a[i]);
}
