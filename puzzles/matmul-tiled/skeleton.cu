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
        // TODO: load As[ty][tx] = A[row][t0 + tx] and Bs[ty][tx] = B[t0 + ty][col], 0 outside
        // TODO: wait for the tiles
        // TODO: add the 16 products of row ty of As and column tx of Bs
        // TODO: wait before the next tiles overwrite these
    }
    // TODO: write C[row][col] if it exists
}
