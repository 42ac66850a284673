// expect: race
// Block 0 sets out[0] to 0 itself, but another block may already have added its sum: the plain
// write races with the other blocks' atomics (and the host already zeroed it).
__global__ void dot(const float* a, const float* b, float* out, int n) {
    __shared__ float partial[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (i == 0) out[0] = 0.0f;
    partial[t] = i < n ? a[i] * b[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, partial[0]);
}
