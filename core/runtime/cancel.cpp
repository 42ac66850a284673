// See cancel.h.
#include "cancel.h"

#include <atomic>

namespace gpulab::core {

namespace {
std::atomic<bool> g_cancel{false};
}  // namespace

void set_cancel_requested(bool on) { g_cancel.store(on, std::memory_order_relaxed); }
bool cancel_requested() { return g_cancel.load(std::memory_order_relaxed); }

}  // namespace gpulab::core
