// `gpulab apply conv2d --filter NAME|--kernel FILE.npy [--filter-size R] [--pad zero|none]
// [--stride S] [--per-channel] --input F --output F [--backend B]`: one convolution on a file, so
// results can be checked against NumPy / SciPy (scipy.signal.correlate2d) or PyTorch
// (torch.nn.functional.conv2d). Cross-correlation as CNNs compute it: the kernel is not flipped.
// Inputs: a picture (grayscale) or a .npy (H, W) is one plane; a .npy (C, H, W) is one C-channel
// input that a (K, C, R, S) kernel sums over, as a CNN layer does. With --per-channel the planes
// are filtered on their own instead (N = planes, C = 1: one-channel pictures sharing one filter): a picture is read
// as R, G, B, a .npy (C, H, W) gives its C planes, and the kernel must have one input channel.
// Output: float32 .npy (K, P, Q), or (P, Q) for one filter; with --per-channel (planes, P, Q) for
// one filter, else (planes, K, P, Q). Usage problems exit 2, file problems 1, each with one line.
// Verified by tests/cli_tests.cmake (apply_conv2d_* cases).
#include <algorithm>
#include <cstdio>
#include <string>

#include "shell/backend_set.h"
#include "cli.h"
#include "cli_apply_common.h"
#include "ops/conv2d.h"
#include "io/image_io.h"
#include "runtime/memory.h"
#include "workloads/conv2d_workload.h"

namespace gpulab::app {

int cmd_apply_conv(const ApplyOptions& o) {
    // [SECTION] flags first: nothing is read before they all make sense
    if (o.filter.empty() == o.kernel_path.empty()) {
        return apply_usage_error("conv2d needs exactly one of --filter NAME or --kernel FILE.npy");
    }
    if (o.pad != "zero" && o.pad != "none") return apply_usage_error("--pad must be zero or none, got '" + o.pad + "'");
    if (o.stride < 1 || o.stride > core::kMaxConv2dStride) {
        return apply_usage_error("--stride must be between 1 and " + std::to_string(core::kMaxConv2dStride) + ", got " +
                     std::to_string(o.stride));
    }
    if (!has_npy_extension(o.output)) return apply_usage_error("--output must be a .npy file, got '" + o.output + "'");
    core::Tensor filters;
    if (!o.filter.empty()) {
        try {
            filters = core::make_named_filter(o.filter, o.filter_size);
        } catch (const core::InputError& e) {
            return apply_usage_error(e.what());
        }
    }
    core::BackendList backends = make_all_backends();
    core::Backend* backend = nullptr;
    std::string names;
    for (const auto& b : backends) {
        if (b->name() == o.backend) backend = b.get();
        names += (names.empty() ? "" : ", ") + std::string(b->name());
    }
    if (!backend) return apply_usage_error("unknown backend '" + o.backend + "' (expected one of: " + names + ")");
    const core::Availability a = backend->availability();
    if (!a.ok) return apply_failure("backend " + o.backend + " is not available: " + a.reason);

    // [SECTION] files
    try {
        if (!o.kernel_path.empty()) filters = core::load_filter_file(o.kernel_path);
        const bool npy = has_npy_extension(o.input);
        core::Tensor input = npy              ? core::read_npy(o.input)
                             : o.per_channel ? core::load_image_rgb(o.input)
                                             : core::load_image_gray(o.input);
        if (input.shape.size() == 2) input.shape.insert(input.shape.begin(), 1);
        if (input.shape.size() != 3) {
            return apply_failure(o.input + ": expected an image or a .npy of shape (H, W) or (C, H, W), got " +
                           input.shape_string());
        }
        core::Conv2dDesc d;
        // Per channel, the planes become a batch of one-channel pictures, so every backend runs the
        // same filter on each of them with no change: N = planes, C = 1.
        d.batch = o.per_channel ? input.shape[0] : 1;
        d.channels = o.per_channel ? 1 : input.shape[0];
        d.height = input.shape[1];
        d.width = input.shape[2];
        d.filters = filters.shape[0];
        d.kernel = filters.shape[2];
        d.padding = o.pad == "none" ? core::Padding::None : core::Padding::Zero;
        d.stride = o.stride;
        if (filters.shape[1] != d.channels) {
            return apply_failure("the filter has " + std::to_string(filters.shape[1]) + " input channel(s) but " + o.input +
                           (o.per_channel ? " is filtered one plane at a time (--per-channel needs a one-channel "
                                            "kernel)"
                                          : " has " + std::to_string(d.channels)));
        }
        if (std::string bad = d.validate(); !bad.empty()) return apply_failure(o.input + ": " + bad);
        const std::size_t out_bytes = static_cast<std::size_t>(d.output_elements()) * sizeof(float);
        const core::Availability fits = backend->can_allocate(input.bytes() + filters.bytes() + out_bytes);
        if (!fits.ok) return apply_failure(o.input + ": " + fits.reason);
        if (!backend->supports_conv2d(d)) return apply_failure("backend " + o.backend + " does not offer conv2d");
        input.shape = {d.batch, d.channels, d.height, d.width};
        core::Tensor out = core::Tensor::zeros({d.batch, d.filters, d.out_height(), d.out_width()});
        const core::RunResult r = backend->run_conv2d(d, input, filters, out);
        if (!r.ok) return apply_failure(o.backend + " failed: " + r.error);
        if (o.per_channel) {
            out.shape = d.filters == 1 ? std::vector<int64_t>{d.batch, d.out_height(), d.out_width()}
                                       : std::vector<int64_t>{d.batch, d.filters, d.out_height(), d.out_width()};
        } else {
            out.shape = d.filters == 1 ? std::vector<int64_t>{d.out_height(), d.out_width()}
                                       : std::vector<int64_t>{d.filters, d.out_height(), d.out_width()};
        }
        core::write_npy(o.output, out);
        std::printf("%s: conv2d (cross-correlation, %s) %s on %s -> %s %s\n", o.input.c_str(),
                    o.kernel_path.empty() ? o.filter.c_str() : o.kernel_path.c_str(), d.to_string().c_str(),
                    o.backend.c_str(), o.output.c_str(), out.shape_string().c_str());
    } catch (const core::InputError& e) {
        return apply_failure(e.what());
    } catch (const std::bad_alloc&) {
        return apply_failure(o.input + ": out of memory");
    }
    return kExitOk;
}

}  // namespace gpulab::app
