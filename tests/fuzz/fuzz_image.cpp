// libFuzzer target for picture loading (core/io/image_io.cpp decode_image_gray): the project's size
// and memory checks around stb_image. stb_image itself comes from Debian's libstb without coverage
// instrumentation, so this target guards our side of the call (sizes, allocation, conversion);
// ASan still sees any bad access in the pixels stb hands back.
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/image_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    try {
        const gpulab::core::Tensor t = gpulab::core::decode_image_gray(bytes, "fuzz.png");
        if (t.shape.size() != 2 || static_cast<int64_t>(t.data.size()) != t.shape[0] * t.shape[1]) __builtin_trap();
    } catch (const gpulab::core::InputError&) {
    }
    return 0;
}
