// The running measurement's stop request, for work that has no progress callback to ask: a
// simulated kernel's blocks, the generation of a 2^26-element input, a training batch on the plain
// loop. The window's job runner raises it with Cancel or when the step is left, and lowers it when
// the next job starts; such loops check it between blocks, rows or pictures, so a run stops within
// a fraction of a second (issue 25) instead of after the whole kernel or batch. One flag for the
// process is enough: one measurement runs at a time (app/views/jobs.h). The command line never
// raises it. Verified by tests/test_cancel.cpp.
#pragma once

#include <stdexcept>

namespace gpulab::core {

void set_cancel_requested(bool on);
bool cancel_requested();

// Thrown by loops deep inside a backend when cancel_requested(); the workload that called them
// turns it into its "cancelled" result.
struct Cancelled : std::runtime_error {
    Cancelled() : std::runtime_error("cancelled") {}
};

// The check a long loop makes between pieces of its work. A piece should take well under 10 ms on
// an idle core: a window that leaves the step waits for the piece in hand, and on a busy machine
// (the run's thread is niced below the window's) that piece may take several times longer
// (issue 38: a stop within 100 ms under load). kCancelCheckElements is the piece size for
// element-wise loops: 2^15 floats take 10-300 us on one core.
inline void throw_if_cancelled() {
    if (cancel_requested()) throw Cancelled();
}
inline constexpr long long kCancelCheckElements = 1 << 15;

}  // namespace gpulab::core
