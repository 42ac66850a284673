// C = A x B: A is m x k, B is k x n, C is m x n, all row-major.
// Launched with 16 x 16 threads per block, one thread per value of C:
// ceil(n / 16) x ceil(m / 16) blocks (x: columns, y: rows).
__global__ void matmul(const float* A, const float* B, float* C, int m, int k, int n) {
    __shared__ float As[16][16];  // the current tile of A
    __shared__ float Bs[16][16];  // the current tile of B
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty;
    int col = blockIdx.x * 16 + tx;
    float sum = 0.0f;
    for (int t0 = 0; t0 < k; t0 += 16) {
        // One value of each tile per thread; 0 outside the matrices, so the padding adds nothing.
        // Threads outside C load too: their values are needed by the threads inside it.
        As[ty][tx] = row < m && t0 + tx < k ? A[row * k + t0 + tx] : 0.0f;
        Bs[ty][tx] = t0 + ty < k && col < n ? B[(t0 + ty) * n + col] : 0.0f;
        __syncthreads();  // both tiles complete before anyone reads them
        for (int j = 0; j < 16; ++j) sum += As[ty][j] * Bs[j][tx];
        __syncthreads();  // everyone done with these tiles before the next ones overwrite them
    }
    if (row < m && col < n) C[row * n + col] = sum;
}
