// out[oy * (width / 2) + ox] = the largest of the 2 x 2 window of a at rows 2*oy, 2*oy + 1 and
// columns 2*ox, 2*ox + 1. a is height x width, row-major; out is (height / 2) x (width / 2).
// Launched with 16 x 16 threads per block, one thread per output value:
// ceil((width / 2) / 16) x ceil((height / 2) / 16) blocks.
__global__ void max_pool(const float* a, float* out, int width, int height) {
    int out_w = width / 2;  // rounded down: an odd last column belongs to no window
    int out_h = height / 2;
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ox >= out_w || oy >= out_h) return;
    // The window's top-left input; input rows are width apart (not out_w).
    const float* top = a + (2 * oy) * width + 2 * ox;
    const float* bottom = top + width;
    // Start from a value of the window, not from 0: every value may be negative.
    float m = max(top[0], top[1]);
    m = max(m, max(bottom[0], bottom[1]));
    out[oy * out_w + ox] = m;
}
