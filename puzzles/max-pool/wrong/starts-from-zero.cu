// expect: wrong answer
// Starts the maximum at 0: a window whose four values are all negative gets 0.
__global__ void max_pool(const float* a, float* out, int width, int height) {
    int out_w = width / 2, out_h = height / 2;
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ox >= out_w || oy >= out_h) return;
    float m = 0.0f;
    for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) m = max(m, a[(2 * oy + dy) * width + 2 * ox + dx]);
    out[oy * out_w + ox] = m;
}
