// Parser for another machine's activation summary CSV: see compare_import.h. The caption lines are
// the ones app/timing_plot.cpp writes (caption_lines) and app/export.cpp prefixes with "# "; the
// columns are summary_csv's. Only what a side-by-side needs is kept: machine, date, op, size and
// each backend's median and spread. Verified by tests/test_compare_import.cpp.
#include "compare_import.h"

#include <fstream>
#include <sstream>

#include "image_io.h"

namespace gpulab::core {

namespace {

// The activation summary's first columns; a samples CSV or another lesson's table differs here.
constexpr std::string_view kSummaryHeader = "backend,available,ran,samples,median_ns,min_ns,max_ns";
constexpr std::string_view kCaptionSeparator = "  |  ";

[[noreturn]] void fail(const std::string& name, const std::string& problem) {
    throw InputError(name + ": " + problem);
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.remove_suffix(1);
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    return s;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// One CSV line into fields; quoted fields may hold commas and doubled quotes (csv_field writes them).
std::vector<std::string> split_csv(std::string_view line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                fields.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

int64_t to_int(const std::string& field, const std::string& name, int line_no, const char* column) {
    try {
        std::size_t used = 0;
        const long long v = std::stoll(field, &used);
        if (used == field.size() && v >= 0) return v;
    } catch (const std::exception&) {
    }
    fail(name, "line " + std::to_string(line_no) + ": " + column + " is \"" + field + "\", not a whole number >= 0");
}

double to_double(const std::string& field) {
    try {
        return std::stod(field);
    } catch (const std::exception&) {
        return 0.0;
    }
}

// "AMD EPYC 9B14 (2 threads), Debian GNU/Linux 12" -> "AMD EPYC 9B14".
std::string cpu_model_of(std::string_view text) {
    const std::size_t threads = text.rfind(" threads)");
    if (threads != std::string_view::npos) {
        const std::size_t open = text.rfind(" (", threads);
        if (open != std::string_view::npos) return std::string(trim(text.substr(0, open)));
    }
    return std::string(trim(text));
}

}  // namespace

const ImportedBackend* ImportedRun::find(std::string_view backend) const {
    for (const auto& b : backends)
        if (b.backend == backend) return &b;
    return nullptr;
}

std::string machine_label(const std::string& cpu_model, const std::string& gpu_name) {
    return (cpu_model.empty() ? std::string("unknown CPU") : cpu_model) + ", " +
           (gpu_name.empty() ? std::string("no GPU") : gpu_name);
}

ImportedRun parse_compare_summary(std::string_view text, const std::string& name) {
    ImportedRun out;
    out.path = name;
    std::vector<std::string_view> lines;
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        lines.push_back(trim(text.substr(pos, end - pos)));
        pos = end + 1;
    }
    if (lines.empty() || !starts_with(lines.front(), "# gpulab "))
        fail(name,
             "not a gpulab summary CSV (its first line should be \"# gpulab <version>  |  <lesson>  |  <date>\")");

    // First line: "# gpulab <version>  |  <lesson title>  |  <date>".
    std::string_view first = lines.front().substr(2);
    std::vector<std::string_view> parts;
    for (std::size_t pos = 0;;) {
        const std::size_t sep = first.find(kCaptionSeparator, pos);
        parts.push_back(first.substr(pos, sep == std::string_view::npos ? std::string_view::npos : sep - pos));
        if (sep == std::string_view::npos) break;
        pos = sep + kCaptionSeparator.size();
    }
    if (parts.size() < 3) fail(name, "not a gpulab summary CSV (the first line has no lesson and date)");
    out.version = std::string(trim(parts[0].substr(7)));
    const std::string lesson_title(trim(parts[1]));
    out.date = std::string(trim(parts[2]));

    std::size_t i = 1;
    for (; i < lines.size() && starts_with(lines[i], "#"); ++i) {
        const std::string_view l = trim(lines[i].substr(1));
        if (starts_with(l, "CPU: ")) {
            out.cpu = cpu_model_of(l.substr(5));
        } else if (starts_with(l, "GPU: ")) {
            const std::string_view g = l.substr(5);
            out.gpu = std::string(trim(g.substr(0, g.find(" (CC"))));
        } else if (starts_with(l, "no GPU")) {
            out.gpu = "no GPU";
        } else if (starts_with(l, "Op: ")) {
            const std::string_view op = l.substr(4);
            const std::size_t on = op.find(" on ");
            const std::size_t el = op.find(" elements");
            if (on != std::string_view::npos && el != std::string_view::npos && el > on) {
                out.op = std::string(op.substr(0, on));
                out.elements = std::string(op.substr(on + 4, el - on - 4));
            }
        }
    }
    if (i >= lines.size() || !starts_with(lines[i], kSummaryHeader) || out.op.empty())
        fail(name, "wrong lesson or file: an export of \"" + lesson_title +
                       "\" that is not the elementwise-activations per-backend summary (use "
                       "elementwise-activations-summary.csv)");
    if (out.cpu.empty()) fail(name, "not a gpulab summary CSV (no \"# CPU: ...\" caption line)");
    if (out.gpu.empty()) out.gpu = "no GPU";
    out.machine_label = machine_label(out.cpu, out.gpu == "no GPU" ? std::string() : out.gpu);

    for (++i; i < lines.size(); ++i) {
        if (lines[i].empty()) continue;
        const int line_no = static_cast<int>(i) + 1;
        const std::vector<std::string> f = split_csv(lines[i]);
        if (f.size() < 7)
            fail(name, "line " + std::to_string(line_no) + " has " + std::to_string(f.size()) +
                           " columns, the summary has at least 7");
        ImportedBackend b;
        b.backend = f[0];
        b.ran = f[2] == "1";
        b.samples = static_cast<int>(to_int(f[3], name, line_no, "samples"));
        b.median_ns = to_int(f[4], name, line_no, "median_ns");
        b.min_ns = to_int(f[5], name, line_no, "min_ns");
        b.max_ns = to_int(f[6], name, line_no, "max_ns");
        if (f.size() > 12) b.gbps = to_double(f[12]);
        if (b.backend.empty()) fail(name, "line " + std::to_string(line_no) + " has no backend name");
        out.backends.push_back(std::move(b));
    }
    if (out.backends.empty()) fail(name, "no backend rows under the column header: nothing to compare with");
    return out;
}

ImportedRun load_compare_summary(const std::string& path) {
    if (path.empty()) throw InputError("compare: no file given");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open the file to compare with (missing or unreadable)");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_compare_summary(text.str(), path);
}

}  // namespace gpulab::core
