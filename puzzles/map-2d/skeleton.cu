// out[y * width + x] = a[y * width + x] + 10 for every column x < width and row y < height.
// Launched with 16 x 16 threads per block and ceil(width / 16) x ceil(height / 16) blocks.
__global__ void map_2d(const float* a, float* out, int width, int height) {
    int x = 0;  // TODO: this thread's column (the x parts of blockIdx, blockDim, threadIdx)
    int y = 0;  // TODO: this thread's row (the y parts)
    // TODO: threads outside the matrix must do nothing
    out[y * width + x] = a[y * width + x];  // TODO: add 10
}
