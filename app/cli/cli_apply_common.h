// What the three `gpulab apply` files share (cli_apply.cpp, cli_apply_conv.cpp,
// cli_apply_matmul.cpp): the .npy check on a file name and the one-line refusals with their exit
// codes (usage 2, a file or size problem 1).
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>

#include "cli.h"

namespace gpulab::app {

// True when `path` ends in .npy (any case).
inline bool has_npy_extension(const std::string& path) {
    if (path.size() < 4) return false;
    std::string ext = path.substr(path.size() - 4);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext == ".npy";
}

// "gpulab: <message>" on stderr; returns the exit code to give.
inline int apply_usage_error(const std::string& message) {
    std::fprintf(stderr, "gpulab: %s\n", message.c_str());
    return kExitUsage;
}
inline int apply_failure(const std::string& message) {
    std::fprintf(stderr, "gpulab: %s\n", message.c_str());
    return kExitFailure;
}

}  // namespace gpulab::app
