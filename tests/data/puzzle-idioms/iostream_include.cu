// puzzle: map
// A file that also has host code at the top: <iostream> and friends must compile.
#include <iostream>
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <ctime>

__global__ void map(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + 10;
}
