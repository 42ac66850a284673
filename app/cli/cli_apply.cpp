// `gpulab apply OP --input F --output F [--backend B]`: one op on a file, so results can be checked
// against NumPy, PyTorch or any other tool. conv2d is cli_apply_conv.cpp, matmul (two inputs, --a
// and --b) cli_apply_matmul.cpp.
#include <algorithm>
#include <cstdio>

#include "shell/backend_set.h"
#include "cli.h"
#include "cli_apply_common.h"
#include "io/image_io.h"
#include "ops/op_desc.h"

namespace gpulab::app {


int cmd_apply(const ApplyOptions& o) {
    if (o.op == "matmul") return cmd_apply_matmul(o);
    auto activation = core::parse_activation(o.op);
    if (!activation && o.op != "conv2d") {
        std::fprintf(stderr, "gpulab: unknown op '%s' (expected relu, leaky-relu, sigmoid, tanh, gelu, conv2d or matmul)\n",
                     o.op.c_str());
        return kExitUsage;
    }
    // Not required by the parser: matmul reads --a and --b instead.
    if (o.input.empty()) {
        std::fprintf(stderr, "gpulab: --input is required (see gpulab --help)\n");
        return kExitUsage;
    }
    if (!o.a_path.empty() || !o.b_path.empty()) {
        std::fprintf(stderr, "gpulab: --a and --b belong to apply matmul; %s reads --input\n", o.op.c_str());
        return kExitUsage;
    }
    if (o.op == "conv2d") return cmd_apply_conv(o);
    if (!has_npy_extension(o.output)) {
        std::fprintf(stderr, "gpulab: --output must be a .npy file, got '%s'\n", o.output.c_str());
        return kExitUsage;
    }
    core::BackendList backends = make_all_backends();
    core::Backend* backend = nullptr;
    for (const auto& b : backends) {
        if (b->name() == o.backend) backend = b.get();
    }
    if (!backend) {
        std::string names;
        for (const auto& b : backends) names += (names.empty() ? "" : ", ") + std::string(b->name());
        std::fprintf(stderr, "gpulab: unknown backend '%s' (expected one of: %s)\n", o.backend.c_str(), names.c_str());
        return kExitUsage;
    }
    core::OpDesc op;
    op.activation = *activation;
    op.leaky_alpha = static_cast<float>(o.alpha);
    core::Availability a = backend->availability();
    if (!a.ok) {
        std::fprintf(stderr, "gpulab: backend %s is not available: %s\n", o.backend.c_str(), a.reason.c_str());
        return kExitFailure;
    }
    if (!backend->supports(op)) {
        std::fprintf(stderr, "gpulab: backend %s does not offer %s\n", o.backend.c_str(), op.label().c_str());
        return kExitFailure;
    }
    try {
        core::Tensor in = has_npy_extension(o.input) ? core::read_npy(o.input) : core::load_image_as_feature_map(o.input);
        core::Availability fits = backend->can_allocate(2 * in.bytes());
        if (!fits.ok) {
            std::fprintf(stderr, "gpulab: %s: %s\n", o.input.c_str(), fits.reason.c_str());
            return kExitFailure;
        }
        core::Tensor out = core::Tensor::zeros(in.shape);
        core::RunResult r = backend->run(op, in, out);
        if (!r.ok) {
            std::fprintf(stderr, "gpulab: %s failed: %s\n", o.backend.c_str(), r.error.c_str());
            return kExitFailure;
        }
        core::write_npy(o.output, out);
        std::printf("%s: %s of %s %s on %s -> %s\n", o.input.c_str(), op.label().c_str(), in.shape_string().c_str(),
                    "float32", o.backend.c_str(), o.output.c_str());
    } catch (const core::InputError& e) {
        std::fprintf(stderr, "gpulab: %s\n", e.what());
        return kExitFailure;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "gpulab: %s: out of memory\n", o.input.c_str());
        return kExitFailure;
    }
    return kExitOk;
}

}  // namespace gpulab::app
