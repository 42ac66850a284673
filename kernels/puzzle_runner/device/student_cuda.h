// The CUDA a student's kernel is written in, for the host C++ compiler: gpulab compiles a puzzle
// submission (plain CUDA C++: raw pointers, static __shared__ arrays, threadIdx, __syncthreads(),
// atomics, warp intrinsics) with `-include student_cuda.h` into a shared object that
// gpulab-kernel-runner loads and runs in the SIMT simulator. Installed with the app; it includes
// only C headers so a compile stays well under a second.
//
// How a raw pointer is checked (docs/architecture.md, "Checking a student's kernel"): the compiler
// instruments every load and store (-fsanitize=thread's instrumentation, compiled but never linked
// with its runtime), calling the __tsan_* functions below with the address, and every basic block
// (-fsanitize-coverage=trace-pc); they forward to the runner, which knows every buffer, the block's shared memory and the thread's
// stack. Static __shared__ arrays go to one linker section, which the runner makes the block's
// shared memory (one block at a time, refilled with 0xFF bytes before each).
#pragma once

// [SECTION] what nvcc's device pass defines, first, so that every header after (the C library's,
// the student's <cuda_runtime.h> and <iostream>) sees what it would see under nvcc, and
// `#ifdef __CUDACC__` / `#if __CUDA_ARCH__ >= 700` in a kernel select the code a GPU build runs.
// __CUDA_ARCH__ 800 (sm_80): the architecture gpulab's GPU build of a kernel targets where there is
// no device (core/puzzles/kernel_compile.cpp, tests/test_puzzles.cpp), and the lowest one with every
// intrinsic this header provides (__reduce_*_sync is sm_80's; the *_sync warp intrinsics and
// independent thread scheduling, which the simulator models, are sm_70's).
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDA_ARCH__ 800
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 0
#define CUDART_VERSION 12000
#define __CUDART_API_VERSION 12000
// The stub <cuda_runtime.h>, <cuda.h> and <device_launch_parameters.h> next to this header include
// nothing when this is defined (and the real ones under nvcc).
#define GPULAB_STUDENT_CUDA 1

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "student_abi.h"

#define GPULAB_HOOK extern "C" __attribute__((visibility("default"), noinline, no_sanitize_thread, no_sanitize_coverage))
#define GPULAB_UNCHECKED __attribute__((no_sanitize_thread, no_sanitize_coverage))

// The runtime's address, alone on its page: the runner makes that page read-only once bound, so no
// store of the kernel (a pointer walked off its own __device__ variable, next door) can clear it
// and switch the checks off; such a store faults instead.
struct alignas(4096) gpulab_rt_page {
    const gpulab_runtime_abi* rt;
};
static gpulab_rt_page gpulab_rt_slot;
#define gpulab_rt (gpulab_rt_slot.rt)

// [SECTION] what the runner calls

GPULAB_HOOK int gpulab_student_abi() { return GPULAB_STUDENT_ABI; }
GPULAB_HOOK void gpulab_bind(const gpulab_runtime_abi* rt) { gpulab_rt = rt; }
GPULAB_HOOK void* gpulab_runtime_page() { return &gpulab_rt_slot; }

// Every static __shared__ array, placed by the linker between these two symbols (absent when the
// kernel declares none: weak).
extern "C" char __start_gpulab_shared[] __attribute__((weak, visibility("hidden")));
extern "C" char __stop_gpulab_shared[] __attribute__((weak, visibility("hidden")));
GPULAB_HOOK void gpulab_shared_window(char** begin, unsigned long* bytes) {
    *begin = __start_gpulab_shared;
    *bytes = __start_gpulab_shared != nullptr ? static_cast<unsigned long>(__stop_gpulab_shared - __start_gpulab_shared) : 0;
}

// [SECTION] the compiler's hooks: every load, store and basic block of the student's code

#define GPULAB_ACCESS_HOOKS(n)                                                                                        \
    GPULAB_HOOK void __tsan_read##n(void* p) { if (gpulab_rt) gpulab_rt->access(p, n, GPULAB_LOAD, __builtin_return_address(0)); }            \
    GPULAB_HOOK void __tsan_write##n(void* p) { if (gpulab_rt) gpulab_rt->access(p, n, GPULAB_STORE, __builtin_return_address(0)); }          \
    GPULAB_HOOK void __tsan_unaligned_read##n(void* p) { if (gpulab_rt) gpulab_rt->access(p, n, GPULAB_LOAD, __builtin_return_address(0)); }  \
    GPULAB_HOOK void __tsan_unaligned_write##n(void* p) { if (gpulab_rt) gpulab_rt->access(p, n, GPULAB_STORE, __builtin_return_address(0)); }
GPULAB_ACCESS_HOOKS(1)
GPULAB_ACCESS_HOOKS(2)
GPULAB_ACCESS_HOOKS(4)
GPULAB_ACCESS_HOOKS(8)
GPULAB_ACCESS_HOOKS(16)
#undef GPULAB_ACCESS_HOOKS
GPULAB_HOOK void __tsan_read_range(void* p, size_t n) { if (gpulab_rt) gpulab_rt->access(p, n, GPULAB_LOAD, __builtin_return_address(0)); }
GPULAB_HOOK void __tsan_write_range(void* p, size_t n) { if (gpulab_rt) gpulab_rt->access(p, n, GPULAB_STORE, __builtin_return_address(0)); }
// -fsanitize=bounds: an index outside an array of known size (a local array, a __shared__ one),
// caught with the array's own bounds, which an address check cannot see inside the stack. The data
// is GCC's UBSan layout: source location, then the array's and the index's type descriptors.
struct gpulab_ubsan_type {
    unsigned short kind, info;
    char name[1];
};
struct gpulab_ubsan_bounds {
    const char* file;
    unsigned line, column;
    const gpulab_ubsan_type* array;
    const gpulab_ubsan_type* index;
};
GPULAB_HOOK void __ubsan_handle_out_of_bounds(void* data, void* index) {
    const gpulab_ubsan_bounds* d = static_cast<const gpulab_ubsan_bounds*>(data);
    if (gpulab_rt) gpulab_rt->array_index(reinterpret_cast<long long>(index), d->array->name, __builtin_return_address(0));
}
GPULAB_HOOK void __ubsan_handle_out_of_bounds_abort(void* data, void* index) { __ubsan_handle_out_of_bounds(data, index); }
GPULAB_HOOK void __tsan_func_entry(void*) {}
GPULAB_HOOK void __tsan_func_exit() {}
GPULAB_HOOK void __tsan_init() {}
// Before gpulab_bind (the shared object's own constructors) there is nothing to report to.
GPULAB_HOOK void __sanitizer_cov_trace_pc() {
    if (gpulab_rt != nullptr) gpulab_rt->block_entered(__builtin_return_address(0));
}

// [SECTION] CUDA's qualifiers, types and built-in variables

#define __global__
#define __device__
#define __host__
#define __managed__
// Nothing: at -O0 nothing is inlined anyway, and libstdc++ spells GCC's attribute
// __attribute__((__noinline__)), which a function-like definition would break (<iostream>).
#define __noinline__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __constant__
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static __attribute__((section("gpulab_shared"), aligned(16)))

// CUDA's vector types (vector_types.h): the same members and alignment, so a misaligned float4 or
// int2 is caught as a GPU would fault on it (a vector copy is one access of its whole size: the
// instrumentation sees the aggregate copy), and make_* builds one.
#define GPULAB_VEC1(T, V)                              \
    struct V {                                         \
        T x;                                           \
    };                                                 \
    inline V make_##V(T x) {                           \
        V v;                                           \
        v.x = x;                                       \
        return v;                                      \
    }
#define GPULAB_VEC2(T, V, A)                           \
    struct alignas(A) V {                              \
        T x, y;                                        \
    };                                                 \
    inline V make_##V(T x, T y) {                      \
        V v;                                           \
        v.x = x;                                       \
        v.y = y;                                       \
        return v;                                      \
    }
#define GPULAB_VEC3(T, V)                              \
    struct V {                                         \
        T x, y, z;                                     \
    };                                                 \
    inline V make_##V(T x, T y, T z) {                 \
        V v;                                           \
        v.x = x;                                       \
        v.y = y;                                       \
        v.z = z;                                       \
        return v;                                      \
    }
#define GPULAB_VEC4(T, V, A)                           \
    struct alignas(A) V {                              \
        T x, y, z, w;                                  \
    };                                                 \
    inline V make_##V(T x, T y, T z, T w) {            \
        V v;                                           \
        v.x = x;                                       \
        v.y = y;                                       \
        v.z = z;                                       \
        v.w = w;                                       \
        return v;                                      \
    }
#define GPULAB_VECS(T, V, A2, A4) GPULAB_VEC1(T, V##1) GPULAB_VEC2(T, V##2, A2) GPULAB_VEC3(T, V##3) GPULAB_VEC4(T, V##4, A4)
GPULAB_VECS(signed char, char, 2, 4)
GPULAB_VECS(unsigned char, uchar, 2, 4)
GPULAB_VECS(short, short, 4, 8)
GPULAB_VECS(unsigned short, ushort, 4, 8)
GPULAB_VECS(int, int, 8, 16)
GPULAB_VECS(unsigned, uint, 8, 16)
GPULAB_VECS(long, long, 2 * sizeof(long), 16)
GPULAB_VECS(unsigned long, ulong, 2 * sizeof(long), 16)
GPULAB_VECS(long long, longlong, 16, 16)
GPULAB_VECS(unsigned long long, ulonglong, 16, 16)
GPULAB_VECS(float, float, 8, 16)
GPULAB_VECS(double, double, 16, 16)
#undef GPULAB_VECS
#undef GPULAB_VEC1
#undef GPULAB_VEC2
#undef GPULAB_VEC3
#undef GPULAB_VEC4

// A launch's shape: threadIdx, blockIdx, blockDim and gridDim are uint3, and `dim3 d = blockDim`
// converts, as in CUDA.
struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

// Every read of the runner's memory is in an unchecked function: the checks would (rightly) call it
// memory the kernel was not given.
static inline GPULAB_UNCHECKED uint3 gpulab_builtin(int which) {
    const gpulab_dim3_abi* d = &(*gpulab_rt->builtins)->thread_idx + which;
    return {d->x, d->y, d->z};
}
static inline GPULAB_UNCHECKED void gpulab_sync(int line) { gpulab_rt->sync_threads(line); }
static inline GPULAB_UNCHECKED int gpulab_sync_count(int line, int predicate) {
    __asm__ __volatile__("" ::: "memory");
    const int count = gpulab_rt->sync_threads_count(line, predicate != 0);
    __asm__ __volatile__("" ::: "memory");
    return count;
}
static inline GPULAB_UNCHECKED void gpulab_refuse(const char* why, const void* site) { gpulab_rt->refuse(why, site); }
#define threadIdx (gpulab_builtin(0))
#define blockIdx (gpulab_builtin(1))
#define blockDim (gpulab_builtin(2))
#define gridDim (gpulab_builtin(3))
#define warpSize 32

// [SECTION] barriers and warp intrinsics
// The "memory" clobbers stop the compiler from keeping a shared or global value in a register
// across a barrier, where other CUDA threads (other fibers) may have changed it.

#define __syncthreads()                         \
    do {                                        \
        __asm__ __volatile__("" ::: "memory");  \
        gpulab_sync(__LINE__);                  \
        __asm__ __volatile__("" ::: "memory");  \
    } while (0)
// The barrier, and the block's predicates combined: how many threads' were nonzero, whether all
// were, whether any was. (The predicate is evaluated before the barrier, as on a GPU.)
#define __syncthreads_count(predicate) gpulab_sync_count(__LINE__, (predicate))
#define __syncthreads_and(predicate) (gpulab_sync_count(__LINE__, (predicate)) == static_cast<int>(blockDim.x * blockDim.y * blockDim.z))
#define __syncthreads_or(predicate) (gpulab_sync_count(__LINE__, (predicate)) != 0)
#define __threadfence() __asm__ __volatile__("" ::: "memory")
#define __threadfence_block() __asm__ __volatile__("" ::: "memory")

enum { GPULAB_SYNCWARP, GPULAB_BALLOT, GPULAB_ANY, GPULAB_ALL, GPULAB_SHFL, GPULAB_SHFL_UP, GPULAB_SHFL_DOWN, GPULAB_SHFL_XOR };

// The functions the student calls are never inlined (-O0), so their return address is the
// student's line; each passes it down.
#define GPULAB_SITE __builtin_return_address(0)
static inline GPULAB_UNCHECKED unsigned long long gpulab_warp(int op, unsigned mask, unsigned long long v, int arg, int width,
                                                       const char* name, const void* site) {
    __asm__ __volatile__("" ::: "memory");
    const unsigned long long r = gpulab_rt->warp_op(op, mask, v, arg, width, name, site);
    __asm__ __volatile__("" ::: "memory");
    return r;
}
inline void __syncwarp(unsigned mask = 0xffffffffu) { gpulab_warp(GPULAB_SYNCWARP, mask, 0, 0, 32, "__syncwarp()", GPULAB_SITE); }
inline unsigned __ballot_sync(unsigned mask, int p) { return static_cast<unsigned>(gpulab_warp(GPULAB_BALLOT, mask, p != 0, 0, 32, "__ballot_sync()", GPULAB_SITE)); }
inline int __any_sync(unsigned mask, int p) { return static_cast<int>(gpulab_warp(GPULAB_ANY, mask, p != 0, 0, 32, "__any_sync()", GPULAB_SITE)); }
inline int __all_sync(unsigned mask, int p) { return static_cast<int>(gpulab_warp(GPULAB_ALL, mask, p != 0, 0, 32, "__all_sync()", GPULAB_SITE)); }

template <class T>
inline T gpulab_shuffle(int op, unsigned mask, T var, int arg, int width, const char* name, const void* site) {
    static_assert(sizeof(T) <= 8, "shuffles move 4- or 8-byte values");
    unsigned long long bits = 0;
    __builtin_memcpy(&bits, &var, sizeof(T));
    bits = gpulab_warp(op, mask, bits, arg, width, name, site);
    __builtin_memcpy(&var, &bits, sizeof(T));
    return var;
}
template <class T>
inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32) { return gpulab_shuffle(GPULAB_SHFL, mask, var, src_lane, width, "__shfl_sync()", GPULAB_SITE); }
template <class T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) { return gpulab_shuffle(GPULAB_SHFL_UP, mask, var, static_cast<int>(delta), width, "__shfl_up_sync()", GPULAB_SITE); }
template <class T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) { return gpulab_shuffle(GPULAB_SHFL_DOWN, mask, var, static_cast<int>(delta), width, "__shfl_down_sync()", GPULAB_SITE); }
template <class T>
inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) { return gpulab_shuffle(GPULAB_SHFL_XOR, mask, var, lane_mask, width, "__shfl_xor_sync()", GPULAB_SITE); }

// Refused: the fibers of a warp run one after another, so which lanes a GPU runs together, and
// its cycle counters, have no faithful answer here.
inline unsigned __activemask() {
    gpulab_refuse("__activemask() asks which lanes a GPU runs together, which the simulator does not model", __builtin_return_address(0));
    return 0;
}
inline long long clock64() {
    gpulab_refuse("clock64() reads a GPU cycle counter; simulated time says nothing about GPU cycles", __builtin_return_address(0));
    return 0;
}
// CUDA's clock() is the C library's declaration used on the device: <time.h> is in already, so
// the name is redirected (a later <ctime> then says `using ::gpulab_clock`, which is harmless).
inline clock_t gpulab_clock() {
    gpulab_refuse("clock() reads a GPU cycle counter; simulated time says nothing about GPU cycles", __builtin_return_address(0));
    return 0;
}
#define clock gpulab_clock

// [SECTION] atomics: one check (as an atomic, which never races with another atomic), then the
// operation; the simulator runs one CUDA thread at a time, so a plain read-modify-write is atomic.
// noinline, so the site the check reports is the student's line.

#define GPULAB_ATOMIC(T, name, expr)                                                                \
    __attribute__((noinline, no_sanitize_thread, no_sanitize_coverage)) inline T name(T* p, T v) { \
        gpulab_rt->access(p, sizeof(T), GPULAB_ATOMIC, __builtin_return_address(0));              \
        const T old = *p;                                                                           \
        *p = (expr);                                                                                \
        return old;                                                                                 \
    }
GPULAB_ATOMIC(float, atomicAdd, old + v)
GPULAB_ATOMIC(double, atomicAdd, old + v)
GPULAB_ATOMIC(int, atomicAdd, old + v)
GPULAB_ATOMIC(unsigned, atomicAdd, old + v)
GPULAB_ATOMIC(unsigned long long, atomicAdd, old + v)
GPULAB_ATOMIC(int, atomicSub, old - v)
GPULAB_ATOMIC(unsigned, atomicSub, old - v)
GPULAB_ATOMIC(int, atomicMax, old > v ? old : v)
GPULAB_ATOMIC(unsigned, atomicMax, old > v ? old : v)
GPULAB_ATOMIC(int, atomicMin, old < v ? old : v)
GPULAB_ATOMIC(unsigned, atomicMin, old < v ? old : v)
GPULAB_ATOMIC(int, atomicExch, v)
GPULAB_ATOMIC(unsigned, atomicExch, v)
GPULAB_ATOMIC(float, atomicExch, v)
GPULAB_ATOMIC(int, atomicAnd, old & v)
GPULAB_ATOMIC(unsigned, atomicAnd, old & v)
GPULAB_ATOMIC(int, atomicOr, old | v)
GPULAB_ATOMIC(unsigned, atomicOr, old | v)
GPULAB_ATOMIC(int, atomicXor, old ^ v)
GPULAB_ATOMIC(unsigned, atomicXor, old ^ v)
#undef GPULAB_ATOMIC
#define GPULAB_ATOMIC_CAS(T)                                                                         \
    __attribute__((noinline, no_sanitize_thread, no_sanitize_coverage)) inline T atomicCAS(T* p, T compare, T v) { \
        gpulab_rt->access(p, sizeof(T), GPULAB_ATOMIC, __builtin_return_address(0));               \
        const T old = *p;                                                                            \
        if (old == compare) *p = v;                                                                  \
        return old;                                                                                  \
    }
GPULAB_ATOMIC_CAS(int)
GPULAB_ATOMIC_CAS(unsigned)
GPULAB_ATOMIC_CAS(unsigned long long)
#undef GPULAB_ATOMIC_CAS
// CUDA's wrap-around counters: atomicInc counts up to val, then back to 0; atomicDec counts down
// to 0, then back to val (and a value above val becomes val).
#define GPULAB_ATOMIC_WRAP(name, expr)                                                              \
    __attribute__((noinline, no_sanitize_thread, no_sanitize_coverage)) inline unsigned name(unsigned* p, unsigned val) { \
        gpulab_rt->access(p, sizeof(unsigned), GPULAB_ATOMIC, __builtin_return_address(0));        \
        const unsigned old = *p;                                                                     \
        *p = (expr);                                                                                 \
        return old;                                                                                  \
    }
GPULAB_ATOMIC_WRAP(atomicInc, old >= val ? 0u : old + 1u)
GPULAB_ATOMIC_WRAP(atomicDec, old == 0u || old > val ? val : old - 1u)
#undef GPULAB_ATOMIC_WRAP

// [SECTION] loads through the read-only data cache: an ordinary checked load here. Not inlined and
// not instrumented itself: the check it makes names the student's line.
template <class T>
__attribute__((noinline, no_sanitize_thread, no_sanitize_coverage)) inline T __ldg(const T* p) {
    gpulab_rt->access(p, sizeof(T), GPULAB_LOAD, __builtin_return_address(0));
    return *p;
}

// [SECTION] device functions CUDA provides

// min and max: CUDA's overload set (crt/math_functions.hpp), so that mixed arguments resolve as
// under nvcc: min(blockDim.x, n - i) is min(unsigned, int), which compares as unsigned.
#define GPULAB_MINMAX(R, A, B, cmp)                                                          \
    inline R min(A a, B b) { return static_cast<R>(a) cmp static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); } \
    inline R max(A a, B b) { return static_cast<R>(a) cmp static_cast<R>(b) ? static_cast<R>(b) : static_cast<R>(a); }
GPULAB_MINMAX(int, int, int, <)
GPULAB_MINMAX(unsigned, unsigned, unsigned, <)
GPULAB_MINMAX(unsigned, int, unsigned, <)
GPULAB_MINMAX(unsigned, unsigned, int, <)
GPULAB_MINMAX(long, long, long, <)
GPULAB_MINMAX(unsigned long, unsigned long, unsigned long, <)
GPULAB_MINMAX(unsigned long, long, unsigned long, <)
GPULAB_MINMAX(unsigned long, unsigned long, long, <)
GPULAB_MINMAX(long long, long long, long long, <)
GPULAB_MINMAX(unsigned long long, unsigned long long, unsigned long long, <)
GPULAB_MINMAX(unsigned long long, long long, unsigned long long, <)
GPULAB_MINMAX(unsigned long long, unsigned long long, long long, <)
#undef GPULAB_MINMAX
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline double min(float a, double b) { return fmin(static_cast<double>(a), b); }
inline double max(float a, double b) { return fmax(static_cast<double>(a), b); }
inline double min(double a, float b) { return fmin(a, static_cast<double>(b)); }
inline double max(double a, float b) { return fmax(a, static_cast<double>(b)); }
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline int __float2int_rn(float x) { return static_cast<int>(nearbyintf(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline unsigned __brev(unsigned x) {
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
// A value's bits as another type (no conversion).
template <class To, class From>
inline To gpulab_bits(From x) {
    static_assert(sizeof(To) == sizeof(From), "a bit cast keeps the size");
    To r;
    __builtin_memcpy(&r, &x, sizeof r);
    return r;
}
inline int __float_as_int(float x) { return gpulab_bits<int>(x); }
inline unsigned __float_as_uint(float x) { return gpulab_bits<unsigned>(x); }
inline float __int_as_float(int x) { return gpulab_bits<float>(x); }
inline float __uint_as_float(unsigned x) { return gpulab_bits<float>(x); }
inline long long __double_as_longlong(double x) { return gpulab_bits<long long>(x); }
inline double __longlong_as_double(long long x) { return gpulab_bits<double>(x); }

// sm_80's warp reductions (__CUDA_ARCH__ is 800 above): every lane of the mask gets the
// combination of the mask's lanes' values, built from one shuffle per lane of the mask (each a
// rendezvous of the mask, with its checks).
#define GPULAB_WARP_REDUCE(name, T, init, combine)                      \
    inline T name(unsigned mask, T value) {                             \
        T r = (init);                                                   \
        for (int lane = 0; lane < 32; ++lane) {                         \
            if (((mask >> lane) & 1u) == 0) continue;                   \
            const T v = __shfl_sync(mask, value, lane);                 \
            r = (combine);                                              \
        }                                                               \
        return r;                                                       \
    }
GPULAB_WARP_REDUCE(__reduce_add_sync, unsigned, 0u, r + v)
GPULAB_WARP_REDUCE(__reduce_add_sync, int, 0, static_cast<int>(static_cast<unsigned>(r) + static_cast<unsigned>(v)))
GPULAB_WARP_REDUCE(__reduce_min_sync, unsigned, ~0u, v < r ? v : r)
GPULAB_WARP_REDUCE(__reduce_min_sync, int, 0x7fffffff, v < r ? v : r)
GPULAB_WARP_REDUCE(__reduce_max_sync, unsigned, 0u, v > r ? v : r)
GPULAB_WARP_REDUCE(__reduce_max_sync, int, static_cast<int>(0x80000000u), v > r ? v : r)
GPULAB_WARP_REDUCE(__reduce_and_sync, unsigned, ~0u, r & v)
GPULAB_WARP_REDUCE(__reduce_or_sync, unsigned, 0u, r | v)
GPULAB_WARP_REDUCE(__reduce_xor_sync, unsigned, 0u, r ^ v)
#undef GPULAB_WARP_REDUCE
