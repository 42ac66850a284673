// expect: wrong answer
// x taken from the y parts and y from the x parts: on a non-square matrix some elements are
// never reached.
__global__ void map_2d(const float* a, float* out, int width, int height) {
    int x = blockIdx.y * blockDim.y + threadIdx.y;
    int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < width && y < height) out[y * width + x] = a[y * width + x] + 10;
}
