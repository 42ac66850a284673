// libFuzzer target for the IDX reader (core/train/idx.cpp): every input is parsed both as an image
// file and as a label file, raw or gzipped (zlib inflates what starts with the gzip magic). Only
// core::InputError may come out; whatever is accepted holds exactly the values its header names.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/image_io.h"
#include "train/idx.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    try {
        const gpulab::train::IdxImages im = gpulab::train::parse_idx_images(bytes, "fuzz.idx");
        if (static_cast<int64_t>(im.pixels.size()) != im.count * im.rows * im.cols) __builtin_trap();
    } catch (const gpulab::core::InputError&) {
    }
    try {
        gpulab::train::parse_idx_labels(bytes, "fuzz.idx");
    } catch (const gpulab::core::InputError&) {
    }
    return 0;
}
