// expect: memory limit
// Every thread allocates a scratch copy far larger than a kernel run may use (and never frees it).
float* scratch_copies[4];

__global__ void map_2d(const float* a, float* out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        long long count = 1ll << 30;  // 4 GiB of floats
        float* scratch = new float[count];
        scratch_copies[threadIdx.x % 4] = scratch;
        int i = y * width + x;
        scratch[i] = a[i];
        out[i] = scratch[i] + 10;
    }
}
