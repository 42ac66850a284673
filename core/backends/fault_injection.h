// Failures on demand, for tests and for rehearsing a lesson that goes wrong (issue 16). A backend
// wrapped here behaves like the one inside until its n-th run, then fails the way a real one does:
//   alloc   the run fails with an out-of-memory message, the next runs work again
//   fault   the run fails like a kernel fault (illegal address), the next runs work again
//   lost    the run fails and the failure is sticky, as a lost CUDA context is: from then on every
//           GPU backend wrapped with the same plan reports unavailable with the reason, and every
//           CPU backend keeps working
// The app reads GPULAB_INJECT_FAULT="<backend>:<run>:<kind>" (e.g. "cuda-kernel:3:lost") once, when
// it makes its backends; unset, nothing is wrapped and nothing changes.
// Verified by tests/test_fault_injection.cpp (the workload keeps running and reports the message).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "backend.h"

namespace gpulab::core {

enum class FaultKind { Alloc, Fault, Lost };

struct FaultSpec {
    std::string backend;  // name() of the backend that fails
    int run = 1;          // 1-based: which of its runs fails
    FaultKind kind = FaultKind::Fault;
};

// "cuda-kernel:3:lost" -> spec; nullopt (and `error` set) for anything else.
std::optional<FaultSpec> parse_fault_spec(const std::string& text, std::string& error);

// Wraps every backend of `list` with one shared plan: the one named in `spec` fails as described,
// and a sticky failure takes every GPU backend of the list down with it.
void inject_fault(BackendList& list, const FaultSpec& spec);

// inject_fault from GPULAB_INJECT_FAULT when it is set; returns a sentence for stderr when the
// variable is set but malformed ("" otherwise).
std::string inject_fault_from_environment(BackendList& list);

}  // namespace gpulab::core
