// puzzle: block-sum
// atomicInc and atomicDec wrap around: 256 increments that wrap after 7 end at 0, 256 decrements
// from 0 that wrap to 9 end at 4. A __device__ counter updated only by atomics is no race.
__device__ unsigned blocks_started;

__global__ void block_sum(const float* a, float* out, int n) {
    __shared__ float partial[256];
    __shared__ unsigned up, down;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0) {
        up = 0;
        down = 0;
        atomicInc(&blocks_started, 0xffffffffu);
    }
    partial[t] = i < n ? a[i] : 0.0f;
    __syncthreads();
    atomicInc(&up, 7);
    atomicDec(&down, 9);
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = up == 0 && down == 4 ? partial[0] : -1.0f;
}
