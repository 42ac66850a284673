// libFuzzer target for the comparison CSV importer (core/compare/compare_import.cpp,
// core/compare/compare_lessons.cpp): parse_compare_file, then the accessor of whichever lesson the file
// claims to come from; and the same bytes as a recording's provenance.txt (core/recording, whose
// files may come from an instructor). Only InputError may leave; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "compare/compare_import.h"
#include "io/image_io.h"
#include "recording/gpu_recording.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace gpulab::core;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const CompareFile file = parse_compare_file(text, "fuzz.csv");
        if (file.workload == "activation") activation_comparison(file);
        else if (file.workload == "latency") sweep_comparison(file);
        else if (file.workload == "simd-mimd") simd_comparison(file);
        else if (file.workload == "conv2d") conv_comparison(file);
        else if (file.workload == "train") train_comparison(file);
        else if (file.workload == "tensor") tensor_speed_comparison(file);
    } catch (const InputError&) {
    }
    try {
        parse_provenance(text, "provenance.txt");
    } catch (const InputError&) {
    }
    return 0;
}
