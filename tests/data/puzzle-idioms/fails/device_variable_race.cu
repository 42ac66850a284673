// puzzle: dot
// expect: race
// says: the __device__ variable 'acc'
// Each block adds its sum into a __device__ variable with a plain +=: one copy for the whole grid,
// and two blocks can read the same old total.
__device__ float acc;

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
        acc += partial[0];
        atomicExch(out, acc);
    }
}
