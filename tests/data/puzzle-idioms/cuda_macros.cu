// puzzle: map
// The macros of nvcc's device pass select the same code in the simulator as on a GPU.
#if !defined(__CUDACC__) || !defined(__NVCC__)
#error "this file is CUDA: compile it with nvcc"
#endif
#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ < 9
#error "the *_sync warp intrinsics need CUDA 9"
#endif

__global__ void map(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    if (i < n) out[i] = a[i] + 10;   // the path of every GPU since Volta
#elif defined(__CUDA_ARCH__)
    if (i < n) out[i] = a[i] - 10;   // an older GPU's path (wrong for the puzzle)
#endif
}
