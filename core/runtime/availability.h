// Whether something can be used, with the reason when it cannot: "no GPU" is a value with a reason,
// never a crash, and so is "this size does not fit in memory". The reason is shown verbatim. Here in
// runtime/ rather than beside the Backend interface so that the memory checks below backends can
// answer with it too.
#pragma once

#include <string>

namespace gpulab::core {

struct Availability {
    bool ok = false;
    std::string reason;
};

}  // namespace gpulab::core
