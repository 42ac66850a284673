// expect: race
// The first step of the tree reads partial[t + 128] before thread t + 128 has stored it.
__global__ void dot(const float* a, const float* b, float* out, int n) {
    __shared__ float partial[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? a[i] * b[i] : 0.0f;
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, partial[0]);
}
