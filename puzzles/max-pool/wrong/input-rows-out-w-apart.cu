// expect: wrong answer
// Steps between input rows by out_w, the output's width, instead of width: the window's rows are
// the wrong ones.
__global__ void max_pool(const float* a, float* out, int width, int height) {
    int out_w = width / 2, out_h = height / 2;
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ox >= out_w || oy >= out_h) return;
    const float* top = a + (2 * oy) * out_w + 2 * ox;
    const float* bottom = top + out_w;
    out[oy * out_w + ox] = max(max(top[0], top[1]), max(bottom[0], bottom[1]));
}
