// expect: race
__global__ void map(const float* a, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = a[i] + 10;
}
