// expect: barrier
// Threads outside C return at once, but their tile values are needed and, worse, they never reach
// the barriers the rest of the block waits at.
__global__ void matmul(const float* A, const float* B, float* C, int m, int k, int n) {
    __shared__ float As[16][16];
    __shared__ float Bs[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty;
    int col = blockIdx.x * 16 + tx;
    if (row >= m || col >= n) return;
    float sum = 0.0f;
    for (int t0 = 0; t0 < k; t0 += 16) {
        As[ty][tx] = t0 + tx < k ? A[row * k + t0 + tx] : 0.0f;
        Bs[ty][tx] = t0 + ty < k ? B[(t0 + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int j = 0; j < 16; ++j) sum += As[ty][j] * Bs[j][tx];
        __syncthreads();
    }
    C[row * n + col] = sum;
}
