// The puzzle submissions' source policy (core/puzzles/source_policy.h): the CUDA a kernel is
// written in passes (with `static __shared__` and `#pragma unroll` rewritten, lines kept), and
// every way found to switch the checks off or reach outside the kernel is refused with its line,
// however it is spelled (a line splice, a digraph, a macro, token pasting). What a compiled
// object may call, by symbol.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "puzzles/source_policy.h"

using namespace gpulab::puzzles;

namespace {

// The first refusal's line, or 0 when the source passes.
int refused_at(const std::string& source) {
    const PolicedSource p = police_source(source);
    return p.refusals.empty() ? 0 : p.refusals.front().line;
}

std::string first_refusal(const std::string& source) {
    const PolicedSource p = police_source(source);
    return p.refusals.empty() ? std::string() : p.refusals.front().message;
}

}  // namespace

TEST_SUITE("puzzles") {

TEST_CASE("source policy: ordinary CUDA passes and keeps its line numbers") {
    const std::string kernel =
        "#include <cuda_runtime.h>\n"
        "#include <cstdio>\n"
        "#define TILE 16\n"
        "#define STR(x) #x\n"
        "// asm and __attribute__ in a comment are words, not code\n"
        "__global__ void k(const float* __restrict__ a, float* out, int n) {\n"
        "    static __shared__ float tile[TILE];\n"
        "    __shared__ static int count;\n"
        "    const char* s = \"asm __builtin_trap ##\"; (void)s;\n"
        "    const char* r = R\"x(__attribute__((x)) \")x\"; (void)r;\n"
        "    int big = 1'000'000; float e = 1e-5f;\n"
        "    #pragma unroll 4\n"
        "    for (int k = 0; k < 4; ++k) tile[k] = __ldg(&a[k]) + __float_as_int(e) + big;\n"
        "    __syncthreads();\n"
        "    if (__syncthreads_count(1) > 0) out[threadIdx.x] = __shfl_down_sync(0xffffffffu, tile[0], 1);\n"
        "#ifdef __CUDA_ARCH__\n"
        "    out[0] = __fmaf_rn(1.0f, 2.0f, 3.0f) + __float2int_rn(2.5f);\n"
        "#endif\n"
        "}\n";
    const PolicedSource p = police_source(kernel);
    for (const SourceRefusal& r : p.refusals) INFO("line " << r.line << ": " << r.message);
    CHECK(p.refusals.empty());
    CHECK(std::count(p.source.begin(), p.source.end(), '\n') == std::count(kernel.begin(), kernel.end(), '\n'));
    CHECK(p.source.find("static __shared__") == std::string::npos);
    CHECK(p.source.find("__shared__ static") == std::string::npos);
    CHECK(p.source.find("__shared__ float tile[TILE];") != std::string::npos);
    CHECK(p.source.find("#pragma") == std::string::npos);
    CHECK(p.source.find("#include <cuda_runtime.h>") != std::string::npos);
    CHECK(p.source.size() == kernel.size());
}

TEST_CASE("source policy: every way found to switch the checks off is refused with its line") {
    const std::string k = "__global__ void k(float* out) {\n";
    CHECK(refused_at(k + "    asm volatile(\"nop\");\n}\n") == 2);
    CHECK(first_refusal(k + "    __asm__(\"nop\");\n}\n").find("inline assembly") != std::string::npos);
    CHECK(refused_at("__attribute__((no_sanitize_thread))\n" + k + "}\n") == 1);
    CHECK(first_refusal("[[gnu::no_sanitize_thread]] " + k + "}\n").find("attributes") != std::string::npos);
    CHECK(refused_at("#pragma GCC optimize(\"O3\")\n" + k + "}\n") == 1);
    CHECK(refused_at("_Pragma(\"GCC optimize(0)\")\n" + k + "}\n") == 1);
    CHECK(refused_at(k + "    __builtin_trap();\n}\n") == 2);
    CHECK(refused_at(k + "    (void)__builtin_return_address(0);\n}\n") == 2);
    CHECK(first_refusal(k + "    __sync_fetch_and_add((int*)out, 1);\n}\n").find("two underscores") != std::string::npos);
    // gpulab's own names: the runtime link and its hooks.
    CHECK(refused_at(k + "    gpulab_rt_slot.rt = 0;\n}\n") == 2);
    CHECK(refused_at(k + "    __tsan_write4(out);\n}\n") == 2);
    // Spelled around a scanner: a macro's body, token pasting, a line splice, a digraph, a UCN.
    CHECK(refused_at("#define NOCHECK __attribute__((no_sanitize_thread))\n" + k + "}\n") == 1);
    CHECK(first_refusal("#define CAT(a, b) a##b\nCAT(__attri, bute__)((no_sanitize_thread))\n" + k + "}\n").find("token pasting") !=
          std::string::npos);
    CHECK(refused_at("#define CAT(a, b) a %:%: b\n" + k + "}\n") == 1);
    CHECK(refused_at("__attri\\\nbute__((no_sanitize_thread))\n" + k + "}\n") == 1);
    CHECK(refused_at("%:pragma GCC optimize(0)\n" + k + "}\n") == 1);
    CHECK(first_refusal(k + "    \\u0061sm(\"nop\");\n}\n").find("universal character") != std::string::npos);
    // Headers: only the listed ones, named directly; no probing of others.
    CHECK(refused_at("#include <cstdio>\n#include <unistd.h>\n" + k + "}\n") == 2);
    CHECK(first_refusal("#include \"/home/student/.ssh/id_rsa\"\n" + k + "}\n").find("is refused") != std::string::npos);
    CHECK(first_refusal("#define H <cstdio>\n#include H\n" + k + "}\n").find("name its header directly") != std::string::npos);
    CHECK(refused_at("#if __has_include(</etc/shadow>)\n#endif\n" + k + "}\n") == 1);
    CHECK(refused_at("#line 1 \"other.cu\"\n" + k + "}\n") == 1);
    CHECK(refused_at("#include_next <cstdio>\n" + k + "}\n") == 1);
    // Dynamic shared memory: refused with what to write instead.
    CHECK(first_refusal(k + "    extern __shared__ float s[];\n}\n").find("fixed size") != std::string::npos);
}

TEST_CASE("source policy: a compiled kernel may call device functions only") {
    CHECK(refused_symbol("printf").empty());
    CHECK(refused_symbol("expf").empty());
    CHECK(refused_symbol("fmaxf").empty());
    CHECK(refused_symbol("sqrt").empty());
    CHECK(refused_symbol("_Znam").empty());
    CHECK(refused_symbol("__gxx_personality_v0").empty());
    CHECK(refused_symbol("fopen").find("the kernel calls fopen, which is not a device function") != std::string::npos);
    CHECK(refused_symbol("write").find("calls write,") != std::string::npos);
    CHECK(refused_symbol("kill").find("calls kill,") != std::string::npos);
    CHECK(refused_symbol("_ZNSolsEf").find("std::cout") != std::string::npos);
    CHECK(refused_symbol("_ZSt4cout").find("prints with printf") != std::string::npos);
    CHECK(refused_symbol("_ZN3foo3barEv").find("calls foo::bar,") != std::string::npos);
    CHECK(first_line_of("int a;\nfloat fopenx;\nFILE* f = fopen(p);\n", "fopen") == 3);
    CHECK(first_line_of("int a;\n", "fopen") == 0);
}

}  // TEST_SUITE
