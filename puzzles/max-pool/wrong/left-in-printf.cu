// expect: output limit
// A debugging printf left in every thread: hundreds of kilobytes of output. A run may print at
// most 64 KiB.
__global__ void max_pool(const float* a, float* out, int width, int height) {
    int out_w = width / 2, out_h = height / 2;
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ox >= out_w || oy >= out_h) return;
    const float* top = a + (2 * oy) * width + 2 * ox;
    const float* bottom = top + width;
    float m = max(max(top[0], top[1]), max(bottom[0], bottom[1]));
    printf("block (%d,%d) thread (%d,%d): window (%d,%d) -> %f\n", blockIdx.x, blockIdx.y, threadIdx.x,
           threadIdx.y, ox, oy, m);
    out[oy * out_w + ox] = m;
}
