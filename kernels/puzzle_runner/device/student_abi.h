/* The calls between a student's kernel (compiled on the student's machine into a shared object,
 * against student_cuda.h) and gpulab-kernel-runner, which loads it and runs it in the SIMT
 * simulator. C layout only: the two sides are built by different compiler runs, and an instructor
 * may keep kernels compiled by an older gpulab, so kGpulabStudentAbi changes whenever this does. */
#ifndef GPULAB_STUDENT_ABI_H
#define GPULAB_STUDENT_ABI_H

#define GPULAB_STUDENT_ABI 4

struct gpulab_dim3_abi {
    unsigned x, y, z;
};

/* The running CUDA thread's built-in variables (the simulator's sim::Builtins, same layout). */
struct gpulab_builtins_abi {
    struct gpulab_dim3_abi thread_idx, block_idx, block_dim, grid_dim;
};

enum gpulab_access_kind { GPULAB_LOAD = 0, GPULAB_STORE = 1, GPULAB_ATOMIC = 2 };

struct gpulab_runtime_abi {
    int abi;
    /* Where the running thread's built-ins are: *builtins changes at every fiber switch. */
    const struct gpulab_builtins_abi* const* builtins;
    /* Every load and store of the kernel, before it happens; `site` is the code address after it.
     * Does not return when the access is a defect (the kernel's launch ends). */
    void (*access)(const void* addr, unsigned long bytes, int kind, const void* site);
    /* A basic block entered (branch divergence is told from the lanes' sequences of these). */
    void (*block_entered)(const void* site);
    void (*sync_threads)(int line);
    /* `site`: the code address after the student's call, for the line in a message. */
    unsigned long long (*warp_op)(int op, unsigned mask, unsigned long long value, int arg, int width,
                                  const char* name, const void* site);
    /* Ends the kernel with a sentence: an intrinsic the simulator cannot model faithfully. */
    void (*refuse)(const char* why, const void* site);
    /* An index outside an array whose size the compiler knows (a local, a __shared__ or a global
     * array: -fsanitize=bounds), before the access happens; `array_type` is its C type, 'float [4]'. */
    void (*array_index)(long long index, const char* array_type, const void* site);
    /* __syncthreads_count(predicate) (and _and, _or): the barrier at `line`, then how many of the
     * block's threads passed a nonzero predicate (0 or 1 each). */
    int (*sync_threads_count)(int line, int predicate);
};

#endif
