// puzzle: map
// CUDA's small vector types and their make_* functions.
__global__ void map(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 p = make_float2(a[i], 10.0f);
    float3 f = make_float3(1.0f, 2.0f, 3.0f);
    float4 q = make_float4(0.0f, 0.0f, 0.0f, 1.0f);
    int2 j = make_int2(1, -1);
    int3 k = make_int3(1, 2, 3);
    int4 m = make_int4(4, 3, 2, 1);
    uint2 u = make_uint2(5u, 6u);
    uint4 v = make_uint4(1u, 1u, 1u, 1u);
    float zero = (f.x + f.y - f.z) + (j.x + j.y) + (k.x + k.y - k.z) + (m.x - m.y - m.z + m.w - 0) +
                 (float)(u.y - u.x - v.w) + q.w - 1.0f;
    out[i] = p.x + p.y + zero;
}
