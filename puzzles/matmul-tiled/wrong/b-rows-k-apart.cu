// expect: wrong answer
// Steps between rows of B by k instead of n (B has n columns): right only when k == n.
__global__ void matmul(const float* A, const float* B, float* C, int m, int k, int n) {
    __shared__ float As[16][16];
    __shared__ float Bs[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty;
    int col = blockIdx.x * 16 + tx;
    float sum = 0.0f;
    for (int t0 = 0; t0 < k; t0 += 16) {
        As[ty][tx] = row < m && t0 + tx < k ? A[row * k + t0 + tx] : 0.0f;
        Bs[ty][tx] = t0 + ty < k && col < n && (t0 + ty) * k + col < k * n ? B[(t0 + ty) * k + col] : 0.0f;
        __syncthreads();
        for (int j = 0; j < 16; ++j) sum += As[ty][j] * Bs[j][tx];
        __syncthreads();
    }
    if (row < m && col < n) C[row * n + col] = sum;
}
