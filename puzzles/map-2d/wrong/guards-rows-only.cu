// expect: out of bounds
// Guards y but not x: the right-edge blocks run past the end of a row (and, on the last row, past
// the end of the matrix).
__global__ void map_2d(const float* a, float* out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y < height) out[y * width + x] = a[y * width + x] + 10;
}
