// expect: misaligned
// Reads the matrix in float4 chunks (the row's last, partial chunk element by element), assuming
// every row starts on a 16-byte boundary. It does only when width is a multiple of 4; otherwise
// the chunks of row 1 start 4 bytes past one, and a GPU refuses a float4 access that is not
// 16-byte aligned.
__global__ void map_2d(const float* a, float* out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        int i = y * width + x;
        int first = x / 4 * 4;  // the chunk of four this element is in
        if (first + 4 <= width) {
            float4 chunk = *reinterpret_cast<const float4*>(&a[y * width + first]);
            const float* four = &chunk.x;
            out[i] = four[x % 4] + 10;
        } else {
            out[i] = a[i] + 10;
        }
    }
}
