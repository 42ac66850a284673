// mpirun's messages in one sentence: see mpirun_report.h. The patterns are Open MPI 4.1's (Debian 12).
#include "mpirun_report.h"

#include <regex>

namespace gpulab::distributed {

namespace {

// mpirun's text as one line: its blocks wrap sentences at about 70 columns.
std::string joined(std::string_view text) {
    std::string out;
    bool space = false;
    for (char c : text) {
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
            space = !out.empty();
            continue;
        }
        if (space) out += ' ';
        space = false;
        out += c;
    }
    return out;
}

}  // namespace

bool is_worker_sentence(std::string_view line) { return line.rfind("gpulab", 0) == 0; }

std::string mpirun_failure_sentence(std::string_view mpirun_text, int exit_code) {
    const std::string text = joined(mpirun_text);
    std::smatch m;
    if (std::regex_search(text, m, std::regex(R"(process rank (\d+) with PID (\d+) on node (\S+) exited on signal (\d+)(?: \(([^)]+)\))?)")))
        // Open MPI 4.1 says "PID 0" for a process it lost track of: then the PID is left out.
        return "worker " + m[1].str() + " (" + (m[2].str() != "0" ? "process " + m[2].str() + " " : std::string()) +
               "on " + m[3].str() + ") was killed by signal " +
               m[4].str() + (m[5].matched ? " (" + m[5].str() + ")" : std::string()) +
               "; mpirun stopped the other workers and the training ended";
    if (std::regex_search(text, m, std::regex(R"(MPI_ABORT was invoked on rank (\d+) in communicator \S+ with errorcode (\d+))")))
        return "worker " + m[1].str() + " gave up (error code " + m[2].str() +
               "); mpirun stopped the other workers and the training ended";
    if (std::regex_search(text, m, std::regex(R"(Process name: \[\[\d+,\d+\],(\d+)\] Exit code: (\d+))")))
        return "worker " + m[1].str() + " ended with exit code " + m[2].str() +
               "; mpirun stopped the other workers and the training ended";
    if (text.find("not enough slots available") != std::string::npos)
        return "mpirun found fewer slots than --workers asks for in the --hostfile; give the hosts more slots "
               "(localhost slots=4) or ask for fewer workers";
    // Else mpirun's first line that says something: not a frame of dashes, not empty.
    std::size_t start = 0;
    while (start < mpirun_text.size()) {
        std::size_t end = mpirun_text.find('\n', start);
        if (end == std::string_view::npos) end = mpirun_text.size();
        std::string_view line = mpirun_text.substr(start, end - start);
        start = end + 1;
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
        if (line.empty() || line.find_first_not_of('-') == std::string_view::npos) continue;
        if (line.size() > 200) line = line.substr(0, 200);
        return "mpirun failed with exit code " + std::to_string(exit_code) + ": " + std::string(line);
    }
    return "mpirun failed with exit code " + std::to_string(exit_code) + " and said nothing";
}

}  // namespace gpulab::distributed
