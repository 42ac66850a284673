// expect: misaligned
// Reads the matrix in float4 chunks, assuming every row starts on a 16-byte boundary. It does only
// when width is a multiple of 4; otherwise the chunk of row 1 starts 4 bytes past one, and a GPU
// refuses a float4 access that is not 16-byte aligned.
__global__ void map_2d(const float* a, float* out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        int i = y * width + x;
        float4 chunk = *reinterpret_cast<const float4*>(&a[y * width + x / 4 * 4]);
        const float* four = &chunk.x;
        out[i] = four[x % 4] + 10;
    }
}
