// expect: out of bounds
// A local array one element too short: on a GPU the extra write lands on whatever the compiler
// kept next to it; here the array's own bounds catch it.
__global__ void map(const float* a, float* out, int n) {
    float parts[2];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int k = 0; k <= 2; ++k) parts[k] = a[i] * 0.5f;
    out[i] = parts[0] + parts[1] + 10 - a[i] + a[i];
}
