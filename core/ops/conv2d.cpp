// Conv2dDesc's checks and its one-line description (see conv2d.h). The messages are what a
// student sees when a shape cannot be convolved, so each names the numbers involved.
// Verified by tests/test_conv2d.cpp ("validate ..." cases).
#include "conv2d.h"

namespace gpulab::core {

std::string Conv2dDesc::validate() const {
    if (batch < 1 || channels < 1 || filters < 1) {
        return "batch, channels and filters must be at least 1 (got N=" + std::to_string(batch) +
               " C=" + std::to_string(channels) + " K=" + std::to_string(filters) + ")";
    }
    if (height < 1 || width < 1) {
        return "the input must be at least 1x1 (got " + std::to_string(height) + "x" + std::to_string(width) + ")";
    }
    if (kernel < 1) return "the kernel size must be at least 1 (got " + std::to_string(kernel) + ")";
    // Even sizes have no centre pixel, so "same" padding would shift the picture by half a pixel.
    if (kernel % 2 == 0) {
        return "the kernel must have an odd size (1, 3, 5, ...) so it has a centre; got " + std::to_string(kernel) +
               "x" + std::to_string(kernel);
    }
    if (kernel > kMaxConv2dKernel) {
        return "the kernel is " + std::to_string(kernel) + "x" + std::to_string(kernel) + "; the largest allowed is " +
               std::to_string(kMaxConv2dKernel) + "x" + std::to_string(kMaxConv2dKernel);
    }
    if (stride < 1) return "the stride must be at least 1 (got " + std::to_string(stride) + ")";
    if (stride > kMaxConv2dStride) {
        return "the stride must be at most " + std::to_string(kMaxConv2dStride) + " (got " + std::to_string(stride) +
               ")";
    }
    // Without padding the filter must fit inside the picture at least once.
    if (padding == Padding::None && (kernel > height || kernel > width)) {
        return "a " + std::to_string(kernel) + "x" + std::to_string(kernel) + " kernel does not fit in a " +
               std::to_string(height) + "x" + std::to_string(width) + " input without padding";
    }
    return "";
}

std::string Conv2dDesc::to_string() const {
    return "N=" + std::to_string(batch) + " C=" + std::to_string(channels) + " H=" + std::to_string(height) +
           " W=" + std::to_string(width) + " K=" + std::to_string(filters) + " R=S=" + std::to_string(kernel) +
           " pad=" + (padding == Padding::Zero ? "zero" : "none") + " stride=" + std::to_string(stride) +
           " -> P=" + std::to_string(out_height()) + " Q=" + std::to_string(out_width());
}

}  // namespace gpulab::core
