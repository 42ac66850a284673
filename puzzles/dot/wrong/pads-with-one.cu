// expect: wrong answer
// Threads past the end contribute 1 ("the neutral element of a product"), but they are terms of
// a sum: they must contribute 0.
__global__ void dot(const float* a, const float* b, float* out, int n) {
    __shared__ float partial[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? a[i] * b[i] : 1.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, partial[0]);
}
