// puzzle: map
// The CUDA headers a kernel file usually starts with (gpulab's stand-ins, or the toolkit's under nvcc).
#include <cuda_runtime.h>
#include <cuda.h>
#include <device_launch_parameters.h>

__global__ void map(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + 10;
}
