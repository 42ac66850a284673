// expect: wrong answer
// Takes the output row from the x parts and the column from the y parts.
__global__ void max_pool(const float* a, float* out, int width, int height) {
    int out_w = width / 2, out_h = height / 2;
    int oy = blockIdx.x * blockDim.x + threadIdx.x;
    int ox = blockIdx.y * blockDim.y + threadIdx.y;
    if (ox >= out_w || oy >= out_h) return;
    const float* top = a + (2 * oy) * width + 2 * ox;
    const float* bottom = top + width;
    out[oy * out_w + ox] = max(max(top[0], top[1]), max(bottom[0], bottom[1]));
}
