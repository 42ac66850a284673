// out[y * width + x] = a[y * width + x] + 10 for every column x < width and row y < height.
// Launched with 16 x 16 threads per block and ceil(width / 16) x ceil(height / 16) blocks.
__global__ void map_2d(const float* a, float* out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;  // column
    int y = blockIdx.y * blockDim.y + threadIdx.y;  // row
    // One guard per dimension: the right-edge blocks have columns past width, the bottom-edge
    // blocks rows past height.
    if (x < width && y < height) {
        int i = y * width + x;  // row-major: a whole row of width elements per y
        out[i] = a[i] + 10;
    }
}
