// out[oy * (width / 2) + ox] = the largest of the 2 x 2 window of a at rows 2*oy, 2*oy + 1 and
// columns 2*ox, 2*ox + 1. a is height x width, row-major; out is (height / 2) x (width / 2).
// Launched with 16 x 16 threads per block, one thread per output value:
// ceil((width / 2) / 16) x ceil((height / 2) / 16) blocks.
__global__ void max_pool(const float* a, float* out, int width, int height) {
    int out_w = width / 2;
    int out_h = height / 2;
    int ox = 0;  // TODO: this thread's output column
    int oy = 0;  // TODO: this thread's output row
    // TODO: threads past out_w or out_h do nothing
    // TODO: the largest of the four inputs of the window
    out[oy * out_w + ox] = a[0];
}
