#include "result_headline.h"

#include "measure/format.h"

namespace gpulab::app {

std::string medians_headline(const std::vector<core::BackendReport>& reports) {
    std::string line;
    for (const core::BackendReport& r : reports) {
        if (!r.ran || !core::kind_is_timed(r.kind) || r.total.samples == 0) continue;
        if (!line.empty()) line += ", ";
        line += r.backend + " " + core::format_duration(r.total.median_ns);
    }
    return line;
}

}  // namespace gpulab::app
