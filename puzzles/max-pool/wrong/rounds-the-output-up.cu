// expect: out of bounds
// Gives an odd last column and row a window of their own ((width + 1) / 2 outputs per row): that
// window reads past the end of the row, and out only has room for width / 2.
__global__ void max_pool(const float* a, float* out, int width, int height) {
    int out_w = (width + 1) / 2, out_h = (height + 1) / 2;
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ox >= out_w || oy >= out_h) return;
    const float* top = a + (2 * oy) * width + 2 * ox;
    const float* bottom = top + width;
    out[oy * out_w + ox] = max(max(top[0], top[1]), max(bottom[0], bottom[1]));
}
