#include "defect.h"

#include <utility>

namespace gpulab::puzzles {

namespace {
const std::pair<DefectKind, const char*> kNames[] = {
    {DefectKind::CompileError, "compile error"}, {DefectKind::WrongAnswer, "wrong answer"},
    {DefectKind::OutOfBounds, "out of bounds"},   {DefectKind::Race, "race"},
    {DefectKind::Barrier, "barrier"},             {DefectKind::Uninitialised, "uninitialised"},
    {DefectKind::Misaligned, "misaligned"},       {DefectKind::WarpMask, "warp mask"},
    {DefectKind::LaunchRefused, "launch refused"}, {DefectKind::Divergence, "divergence"},
    {DefectKind::Unsupported, "unsupported"},     {DefectKind::Timeout, "timeout"},
    {DefectKind::Crash, "crash"},                 {DefectKind::Forbidden, "forbidden"},
    {DefectKind::MemoryLimit, "memory limit"},    {DefectKind::OutputLimit, "output limit"},
    {DefectKind::StackOverflow, "stack overflow"},
};

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
}  // namespace

const char* defect_kind_name(DefectKind k) {
    for (const auto& [kind, name] : kNames)
        if (kind == k) return name;
    return "defect";
}

bool defect_kind_from_name(const std::string& name, DefectKind& out) {
    for (const auto& [kind, n] : kNames) {
        if (name == n) {
            out = kind;
            return true;
        }
    }
    return false;
}

DefectKind classify_simulator_message(const std::string& m) {
    if (starts_with(m, "out-of-bounds")) return DefectKind::OutOfBounds;
    if (starts_with(m, "misaligned")) return DefectKind::Misaligned;
    if (starts_with(m, "shared-memory race") || starts_with(m, "global-memory race")) return DefectKind::Race;
    if (starts_with(m, "barrier divergence")) return DefectKind::Barrier;
    if (starts_with(m, "launch of") || starts_with(m, "static shared array")) return DefectKind::LaunchRefused;
    if (starts_with(m, "the simulator cannot run")) return DefectKind::Unsupported;
    if (starts_with(m, "uninitialised")) return DefectKind::Uninitialised;
    if (starts_with(m, "__syncwarp") || starts_with(m, "__ballot") || starts_with(m, "__any") ||
        starts_with(m, "__all") || starts_with(m, "__shfl") || m.find("warp operation") != std::string::npos ||
        m.find("lane") != std::string::npos) {
        return DefectKind::WarpMask;
    }
    return DefectKind::Crash;
}

}  // namespace gpulab::puzzles
