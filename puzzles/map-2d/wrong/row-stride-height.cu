// expect: race
// Rows are width elements apart, not height: on a wide matrix two threads land on one element.
__global__ void map_2d(const float* a, float* out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) out[y * height + x] = a[y * height + x] + 10;
}
