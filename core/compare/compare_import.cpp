// Parser for another machine's exported lesson CSV: see compare_import.h. The caption lines are the
// ones each view writes (caption_lines, sweep_caption_lines, simd_caption_lines, conv_caption_lines
// in app/) prefixed with "# "; the tables are summary_csv's, sweep_csv's, simd_csv's and conv_csv's.
// This file holds the generic reader and the activation summary; core/compare/compare_lessons.cpp the other
// three lessons. Verified by tests/test_compare_import.cpp.
#include "compare_import.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "compare_parse.h"
#include "io/file_io.h"
#include "io/image_io.h"
#include "io/number_text.h"
#include "measure/format.h"

namespace gpulab::core {

namespace {

constexpr std::string_view kCaptionSeparator = "  |  ";

// Which lesson wrote a table, from the first columns of its header. The activation samples file is
// a gpulab file a lesson writes but not the one to compare with, so it has its own answer.
struct TableKind {
    std::string_view header_start;
    std::string_view workload;
};
constexpr TableKind kTableKinds[] = {
    {"backend,available,ran,samples,median_ns", "activation"},
    {"elements,backend,ran,samples,median_ns", "latency"},
    {"kind,name,value,detail", "simd-mimd"},
    {"backend,median_ns,min_ns,max_ns,samples,gflops", "conv2d"},
    {"section,engine,batch,epoch_or_layer", "train"},
    {"kind,input,lane,matrix", "tensor"},
};
constexpr std::string_view kSamplesHeader = "backend,sample,total_ns";

// "AMD EPYC 9B14 (2 threads), Debian GNU/Linux 12" -> "AMD EPYC 9B14".
std::string cpu_model_of(std::string_view text) {
    const std::size_t threads = text.rfind(" threads)");
    if (threads != std::string_view::npos) {
        const std::size_t open = text.rfind(" (", threads);
        if (open != std::string_view::npos) return std::string(cmp::trim(text.substr(0, open)));
    }
    return std::string(cmp::trim(text));
}

// The workload whose table starts with `header`; InputError for the samples file and unknown tables.
std::string workload_of(const std::string& name, const std::string& title, std::string_view header) {
    if (cmp::starts_with(header, kSamplesHeader))
        cmp::fail(name, "wrong lesson or file: the per-sample table of '" + title +
                            "'; compare with the per-backend summary (<lesson>-summary.csv) instead");
    for (const TableKind& k : kTableKinds)
        if (cmp::starts_with(header, k.header_start)) return std::string(k.workload);
    cmp::fail(name, "not a gpulab lesson export this version can read (its table starts \"" +
                        std::string(header.substr(0, 60)) + "\")");
}

}  // namespace

// [SECTION] shared helpers (compare_parse.h)

namespace cmp {

[[noreturn]] void fail(const std::string& name, const std::string& problem) {
    throw InputError(name + ": " + problem);
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.remove_suffix(1);
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    return s;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

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

int64_t to_int(const std::string& field, const std::string& name, int line_no, std::string_view column) {
    try {
        std::size_t used = 0;
        const long long v = std::stoll(field, &used);
        if (used == field.size() && v >= 0) return v;
    } catch (const std::exception&) {
    }
    fail(name, "line " + std::to_string(line_no) + ": " + std::string(column) + " is \"" + quoted_start(field) +
                   "\", not a whole number >= 0");
}

double to_double(const std::string& field, const std::string& name, int line_no, std::string_view column) {
    // Strict, as the command line's numbers are (app/cli/strict_number.h): decimal, the whole field,
    // finite and of a size gpulab writes; "nan", "inf" or 1e300 would become "-0 pictures/s" or a
    // 58-digit ratio, and an infinite double cast to an integer is undefined behaviour.
    if (field.empty()) return 0.0;
    if (is_decimal_text(field)) {  // bounded and linear (io/number_text.h): no regex on a 200 KB field
        const double v = std::strtod(field.c_str(), nullptr);
        if (std::isfinite(v) && std::fabs(v) < 1e15) return v;
    }
    fail(name, "line " + std::to_string(line_no) + ": " + std::string(column) + " is \"" + quoted_start(field) +
                   "\", not a number gpulab writes there (finite, decimal)");
}

}  // namespace cmp

// [SECTION] the generic model

int CompareTable::column(std::string_view name) const {
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i] == name) return static_cast<int>(i);
    return -1;
}

const std::string& CompareTable::cell(std::size_t row, std::string_view name) const {
    static const std::string kEmpty;
    const int c = column(name);
    return c < 0 || row >= rows.size() ? kEmpty : rows[row][static_cast<std::size_t>(c)];
}

std::string CompareFile::caption_after(std::string_view prefix) const {
    for (const auto& line : caption)
        if (cmp::starts_with(line, prefix)) return line.substr(prefix.size());
    return {};
}

const CompareTable* CompareFile::table(std::string_view first_column) const {
    for (const auto& t : tables)
        if (!t.columns.empty() && t.columns.front() == first_column) return &t;
    return nullptr;
}

std::string machine_label(const std::string& cpu_model, const std::string& gpu_name) {
    return (cpu_model.empty() ? std::string("unknown CPU") : cpu_model) + ", " +
           (gpu_name.empty() ? std::string("no GPU") : gpu_name);
}

CompareFile parse_compare_file(std::string_view text, const std::string& name) {
    using namespace cmp;
    CompareFile out;
    out.path = name;
    std::int64_t row_count = 0;
    // A spreadsheet saving the file again may put a UTF-8 byte-order mark in front (and CRLF line
    // ends, which trim() drops): still the same export (issue 31, item 6).
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    std::vector<std::string_view> lines;
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        lines.push_back(trim(text.substr(pos, end - pos)));
        pos = end + 1;
    }
    if (lines.empty() || !starts_with(lines.front(), "# gpulab "))
        fail(name, "not a gpulab export CSV (its first line should be \"# gpulab <version>  |  <lesson>  |  <date>\")");

    // First line: "# gpulab <version>  |  <lesson title>  |  <date>".
    const std::string_view first = lines.front().substr(2);
    std::vector<std::string_view> parts;
    for (std::size_t pos = 0;;) {
        const std::size_t sep = first.find(kCaptionSeparator, pos);
        parts.push_back(first.substr(pos, sep == std::string_view::npos ? std::string_view::npos : sep - pos));
        if (sep == std::string_view::npos) break;
        pos = sep + kCaptionSeparator.size();
    }
    if (parts.size() < 3) {
        // gpulab 0.1.0's sweep CSV began "# gpulab 0.1.0 latency sweep, relu, <date>" and named no GPU.
        if (first.find(" latency sweep, ") != std::string_view::npos)
            fail(name, "a latency sweep CSV from an older gpulab that does not name the machine's GPU; export it "
                       "again with this version to compare with it");
        fail(name, "not a gpulab export CSV (the first line has no lesson and date)");
    }
    // "gpulab <version>"; "# gpulab  |  ..." leaves just "gpulab" (a substr(7) past its end threw
    // std::out_of_range: found by tests/fuzz/fuzz_compare).
    out.version = std::string(trim(parts[0].substr(std::min<std::size_t>(7, parts[0].size()))));
    out.lesson_title = std::string(trim(parts[1]));
    out.date = std::string(trim(parts[2]));

    // Captions anywhere; a blank line ends a table; the first line after it is the next header.
    CompareTable* current = nullptr;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const std::string_view l = lines[i];
        const int line_no = static_cast<int>(i) + 1;
        if (starts_with(l, "#")) {
            out.caption.emplace_back(trim(l.substr(1)));
            continue;
        }
        if (l.empty()) {
            current = nullptr;
            continue;
        }
        std::vector<std::string> fields = split_csv(l);
        if (!current) {
            // The lesson is known from the first header, before any row can fail to match it.
            if (out.tables.empty()) out.workload = workload_of(name, out.lesson_title, l);
            out.tables.emplace_back();
            current = &out.tables.back();
            current->columns = std::move(fields);
            continue;
        }
        if (fields.size() < current->columns.size())
            fail(name, "line " + std::to_string(line_no) + " has " + std::to_string(fields.size()) +
                           " columns, its table's header has " + std::to_string(current->columns.size()));
        // Extra fields would be an unquoted comma in the last column; they are kept out of the way.
        fields.resize(current->columns.size());
        // A row cap: the lessons' readers match each row against the rows before it, and 100,000
        // rows froze the window for minutes (issue 43). gpulab's largest export (the latency sweep)
        // has about two hundred.
        if (++row_count > kMaxCompareRows)
            fail(name, "more than " + format_count(kMaxCompareRows) +
                           " rows; a gpulab export has a few hundred at most, so this file is not one");
        current->rows.push_back(std::move(fields));
        current->line_numbers.push_back(line_no);
    }

    for (const auto& c : out.caption) {
        if (starts_with(c, "CPU: ")) {
            if (out.cpu.empty()) out.cpu = cpu_model_of(std::string_view(c).substr(5));
        } else if (starts_with(c, "GPU: ")) {
            const std::string_view g = std::string_view(c).substr(5);
            if (out.gpu.empty()) out.gpu = std::string(trim(g.substr(0, g.find(" (CC"))));
        } else if (starts_with(c, "no GPU")) {
            if (out.gpu.empty()) out.gpu = "no GPU";
        }
    }
    if (out.tables.empty()) fail(name, "no table under the caption lines: nothing to compare with");
    // Rows an export carries from elsewhere (a recorded GPU run, an estimate: the "source" column,
    // issue 39) are not this machine's measurements: reading them back as its own would pass a
    // recording off as a second machine's run.
    for (CompareTable& t : out.tables) {
        const int source = t.column("source");
        if (source < 0) continue;
        for (std::size_t i = t.rows.size(); i-- > 0;) {
            const std::string& s = t.rows[i][static_cast<std::size_t>(source)];
            if (s.empty() || s == kSourceMeasuredHere) continue;
            t.rows.erase(t.rows.begin() + static_cast<std::ptrdiff_t>(i));
            t.line_numbers.erase(t.line_numbers.begin() + static_cast<std::ptrdiff_t>(i));
        }
    }
    if (out.cpu.empty()) fail(name, "not a gpulab export CSV (no \"# CPU: ...\" caption line)");
    if (out.gpu.empty()) out.gpu = "no GPU";
    out.machine_label = machine_label(out.cpu, out.gpu == "no GPU" ? std::string() : out.gpu);
    if (out.tables.front().rows.empty())
        fail(name, "no rows under the column header: nothing to compare with");
    return out;
}

CompareFile load_compare_file(const std::string& path) {
    if (path.empty()) throw InputError("compare: no file given");
    // Regular files only, size capped: a FIFO would block and /dev/zero grow without end (issue 16).
    return parse_compare_file(read_input_file(path, kMaxCompareFileBytes, "comparison CSV"), path);
}

void require_workload(const CompareFile& file, std::string_view workload) {
    if (file.workload == workload) return;
    throw InputError(file.path + " is an export of lesson '" + file.lesson_title +
                     "'; open that lesson to compare with it");
}

// [SECTION] elementwise activations

const ImportedBackend* ImportedRun::find(std::string_view backend) const {
    return cmp::find_by(backends, &ImportedBackend::backend, backend);
}

ImportedRun activation_comparison(const CompareFile& file) {
    using namespace cmp;
    ImportedRun out;
    static_cast<ImportedMachine&>(out) = file;
    const std::string& name = file.path;
    const std::string op = file.caption_after("Op: ");
    const std::size_t on = op.find(" on ");
    const std::size_t el = op.find(" elements");
    if (on == std::string::npos || el == std::string::npos || el < on)
        fail(name, "the \"# Op: <op> on <n> elements\" caption line is missing: not an elementwise-activations "
                   "summary");
    out.op = op.substr(0, on);
    out.elements = op.substr(on + 4, el - on - 4);
    const CompareTable& t = file.tables.front();
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const int line_no = t.line_numbers[i];
        ImportedBackend b;
        b.backend = t.cell(i, "backend");
        b.ran = t.cell(i, "ran") == "1";
        b.samples = static_cast<int>(to_int(t.cell(i, "samples"), name, line_no, "samples"));
        b.median_ns = to_int(t.cell(i, "median_ns"), name, line_no, "median_ns");
        b.min_ns = to_int(t.cell(i, "min_ns"), name, line_no, "min_ns");
        b.max_ns = to_int(t.cell(i, "max_ns"), name, line_no, "max_ns");
        b.gbps = to_double(t.cell(i, "gbps"), name, line_no, "gbps");
        if (b.backend.empty()) fail(name, "line " + std::to_string(line_no) + " has no backend name");
        out.backends.push_back(std::move(b));
    }
    return out;
}

ImportedRun parse_compare_summary(std::string_view text, const std::string& name) {
    const CompareFile file = parse_compare_file(text, name);
    require_workload(file, "activation");
    return activation_comparison(file);
}

ImportedRun load_compare_summary(const std::string& path) {
    const CompareFile file = load_compare_file(path);
    require_workload(file, "activation");
    return activation_comparison(file);
}

}  // namespace gpulab::core
