// expect: race
// out[0] += sum is a read, an add and a write: two blocks can both read the old total, and one
// block's sum is lost.
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
    if (t == 0) out[0] += partial[0];
}
