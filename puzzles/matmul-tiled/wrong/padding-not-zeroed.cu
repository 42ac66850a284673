// expect: uninitialised
// Loads the tile values that exist and skips the rest instead of storing 0: the products then
// read tile slots nobody wrote (or stale ones from the previous tile).
__global__ void matmul(const float* A, const float* B, float* C, int m, int k, int n) {
    __shared__ float As[16][16];
    __shared__ float Bs[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty;
    int col = blockIdx.x * 16 + tx;
    float sum = 0.0f;
    for (int t0 = 0; t0 < k; t0 += 16) {
        if (row < m && t0 + tx < k) As[ty][tx] = A[row * k + t0 + tx];
        if (t0 + ty < k && col < n) Bs[ty][tx] = B[(t0 + ty) * n + col];
        __syncthreads();
        for (int j = 0; j < 16; ++j) sum += As[ty][j] * Bs[j][tx];
        __syncthreads();
    }
    if (row < m && col < n) C[row * n + col] = sum;
}
