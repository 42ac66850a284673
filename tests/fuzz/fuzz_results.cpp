// libFuzzer target for `gpulab prerun --import` (core/io/result_store.cpp): the input is one
// entry file in a folder another computer sent. Importing it must never crash, and must never write
// anywhere but the store's imported/ folder, whatever its header says: after each input the fuzzer
// checks that the scratch folder holds nothing else.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/result_store.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace gpulab::core;
    static const fs::path root = fs::temp_directory_path() / ("gpulab-fuzz-results-" + std::to_string(::getpid()));
    static const fs::path in = root / "in" / "sent", store = root / "store";
    fs::remove_all(root);
    fs::create_directories(in);
    {
        std::ofstream f(in / "entry.result", std::ios::binary);
        f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    StoreIdentity me;
    me.version = GPULAB_VERSION;
    me.build = "fuzz build";
    me.machine = "fuzz machine";
    ResultStore s(store, me, 1 << 20);
    (void)s.import_from(in);
    (void)s.load("latency", 1, "relu");
    // Only the store's folders and the input may exist under root.
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(root)) {
        const fs::path p = e.path();
        if (p == root / "in" || p == in || p == in / "entry.result" || p == store || p == store / "imported" ||
            p.parent_path() == store / "imported")
            continue;
        __builtin_trap();  // a file outside the store's imported/ folder
    }
    return 0;
}
