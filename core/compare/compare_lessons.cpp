// The per-lesson accessors of the comparison reader (compare_import.h) for the latency sweep, the
// SIMD-vs-MIMD and the convolution exports: each turns the generic tables into the few numbers its
// view draws beside the live run. Columns are found by name, so a column added later does not move
// them. Verified by tests/test_compare_import.cpp (one hand-written file per lesson) and by the
// compare.* tests, which read back each lesson's real export.
#include <algorithm>

#include "compare_import.h"
#include "compare_parse.h"

namespace gpulab::core {

namespace {

// The leading whole number of a text like "16 floats per instruction"; 0 when there is none.
int leading_int(const std::string& text) {
    int v = 0;
    for (char c : text) {
        if (c < '0' || c > '9') break;
        v = v * 10 + (c - '0');
    }
    return v;
}

}  // namespace

// [SECTION] latency vs throughput

const ImportedSweepSeries* ImportedSweep::find(std::string_view backend) const {
    return cmp::find_by(series, &ImportedSweepSeries::backend, backend);
}

ImportedSweep sweep_comparison(const CompareFile& file) {
    using namespace cmp;
    ImportedSweep out;
    static_cast<ImportedMachine&>(out) = file;
    // "Op: ReLU over 2^4 .. 2^16 float32 elements; ..."
    const std::string op = file.caption_after("Op: ");
    out.op = op.substr(0, op.find(" over "));
    const CompareTable& t = file.tables.front();
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        if (t.cell(i, "ran") != "1") continue;
        const int line_no = t.line_numbers[i];
        const std::string& backend = t.cell(i, "backend");
        if (backend.empty()) fail(file.path, "line " + std::to_string(line_no) + " has no backend name");
        const int64_t n = to_int(t.cell(i, "elements"), file.path, line_no, "elements");
        const int64_t ns = to_int(t.cell(i, "median_ns"), file.path, line_no, "median_ns");
        const std::string& compute_cell = t.cell(i, "compute_median_ns");
        const int64_t compute = compute_cell.empty() ? 0 : to_int(compute_cell, file.path, line_no, "compute_median_ns");
        auto it = std::find_if(out.series.begin(), out.series.end(),
                               [&](const ImportedSweepSeries& s) { return s.backend == backend; });
        if (it == out.series.end()) {
            out.series.push_back({backend, {}, {}, {}});
            it = out.series.end() - 1;
        }
        it->elements.push_back(n);
        it->median_ns.push_back(ns);
        it->compute_ns.push_back(compute);
    }
    for (auto& s : out.series) {
        // Rows come size by size already; sorting keeps a hand-edited file drawable as a curve.
        std::vector<std::size_t> order(s.elements.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return s.elements[a] < s.elements[b]; });
        ImportedSweepSeries sorted{s.backend, {}, {}, {}};
        for (std::size_t i : order) {
            sorted.elements.push_back(s.elements[i]);
            sorted.median_ns.push_back(s.median_ns[i]);
            sorted.compute_ns.push_back(s.compute_ns[i]);
        }
        s = std::move(sorted);
    }
    if (out.series.empty())
        fail(file.path, "no backend ran at any size in this sweep: nothing to compare with");
    return out;
}

// [SECTION] SIMD vs MIMD

const ImportedPattern* ImportedSimd::find(std::string_view pattern) const {
    return cmp::find_by(patterns, &ImportedPattern::pattern, pattern);
}

ImportedSimd simd_comparison(const CompareFile& file) {
    using namespace cmp;
    ImportedSimd out;
    static_cast<ImportedMachine&>(out) = file;
    const CompareTable& t = file.tables.front();
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const std::string& kind = t.cell(i, "kind");
        const std::string& key = t.cell(i, "name");
        const std::string& value = t.cell(i, "value");
        const int line_no = t.line_numbers[i];
        if (kind == "simd") {
            if (key == "isa") {
                out.simd_ok = true;
                out.isa = value;
                out.lanes = leading_int(t.cell(i, "detail"));
            } else if (key == "activation") {
                out.activation = value;
            } else if (key == "elements") {
                out.elements = to_int(value, file.path, line_no, "elements");
            } else if (key == "scalar_median_ns") {
                out.scalar_ns = to_int(value, file.path, line_no, "scalar_median_ns");
            } else if (key == "simd_median_ns") {
                out.simd_ns = to_int(value, file.path, line_no, "simd_median_ns");
            } else if (key == "speedup") {
                out.speedup = to_double(value, file.path, line_no, "speedup");
            } else if (key == "error") {
                out.simd_error = value;
            }
        } else if (kind == "mimd") {
            if (key == "threads") {
                out.mimd_ok = true;
                out.threads = static_cast<int>(to_int(value, file.path, line_no, "threads"));
            } else if (key == "wall_ns") {
                out.wall_ns = to_int(value, file.path, line_no, "wall_ns");
            } else if (key == "sequential_ns") {
                out.sequential_ns = to_int(value, file.path, line_no, "sequential_ns");
            } else if (key == "error") {
                out.mimd_error = value;
            }
        }
    }
    // The divergence table is the one with a "pattern" column (the span table sits between).
    for (const CompareTable& table : file.tables) {
        if (table.column("pattern") < 0) continue;
        for (std::size_t i = 0; i < table.rows.size(); ++i) {
            ImportedPattern ip;
            ip.pattern = table.cell(i, "pattern");
            ip.theoretical = to_double(table.cell(i, "theoretical_factor"), file.path, table.line_numbers[i], "theoretical_factor");
            const std::string& measured = table.cell(i, "measured_factor");
            ip.measured = !measured.empty() && measured != "not measured";
            ip.measured_factor = ip.measured ? to_double(measured, file.path, table.line_numbers[i], "measured_factor") : 0.0;
            out.patterns.push_back(std::move(ip));
        }
    }
    if (!out.simd_ok && !out.mimd_ok && out.patterns.empty())
        fail(file.path, "neither a SIMD, a MIMD nor a divergence measurement in this file: nothing to compare with");
    return out;
}

// [SECTION] convolution

const ImportedConvBackend* ImportedConv::find(std::string_view backend) const {
    return cmp::find_by(backends, &ImportedConvBackend::backend, backend);
}

ImportedConv conv_comparison(const CompareFile& file) {
    using namespace cmp;
    ImportedConv out;
    static_cast<ImportedMachine&>(out) = file;
    // "N=1 C=1 H=256 W=256 K=1 R=S=3 pad=zero stride=1 -> P=256 Q=256, 0.59 MFLOP per run"
    for (const auto& line : file.caption) {
        if (!starts_with(line, "N=")) continue;
        out.shape = line.substr(0, line.find(", "));
        break;
    }
    const CompareTable& t = file.tables.front();
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const int line_no = t.line_numbers[i];
        ImportedConvBackend b;
        b.backend = t.cell(i, "backend");
        if (b.backend.empty()) fail(file.path, "line " + std::to_string(line_no) + " has no backend name");
        // A backend that did not run has empty time columns and its reason in the verdict.
        b.ran = !t.cell(i, "median_ns").empty();
        if (b.ran) {
            b.median_ns = to_int(t.cell(i, "median_ns"), file.path, line_no, "median_ns");
            b.min_ns = to_int(t.cell(i, "min_ns"), file.path, line_no, "min_ns");
            b.max_ns = to_int(t.cell(i, "max_ns"), file.path, line_no, "max_ns");
            b.samples = static_cast<int>(to_int(t.cell(i, "samples"), file.path, line_no, "samples"));
            b.gflops = to_double(t.cell(i, "gflops"), file.path, line_no, "gflops");
            b.note = t.cell(i, "implementation");
        } else {
            b.note = t.cell(i, "verdict");
        }
        out.backends.push_back(std::move(b));
    }
    return out;
}

const ImportedTrainLane* ImportedTrain::find(std::string_view engine) const {
    for (const auto& l : race)
        if (l.engine == engine) return &l;
    return nullptr;
}

ImportedTrain train_comparison(const CompareFile& file) {
    using namespace cmp;
    ImportedTrain out;
    static_cast<ImportedMachine&>(out) = file;
    // One row per engine and epoch in section "race"; the last epoch's row has the lane's totals. An
    // engine that did not run has one row with empty numbers and its reason in the note.
    const CompareTable& t = file.tables.front();
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        if (t.cell(i, "section") != "race") continue;
        const int line_no = t.line_numbers[i];
        const std::string& engine = t.cell(i, "engine");
        if (engine.empty()) fail(file.path, "line " + std::to_string(line_no) + " has no engine name");
        ImportedTrainLane* lane = nullptr;
        for (auto& l : out.race)
            if (l.engine == engine) lane = &l;
        if (!lane) {
            out.race.push_back({});
            lane = &out.race.back();
            lane->engine = engine;
        }
        lane->note = t.cell(i, "note");
        if (t.cell(i, "images").empty()) continue;
        lane->ran = true;
        lane->images = to_int(t.cell(i, "images"), file.path, line_no, "images");
        lane->seconds = to_double(t.cell(i, "seconds"), file.path, line_no, "seconds");
        lane->images_per_second = to_double(t.cell(i, "images_per_s"), file.path, line_no, "images_per_s");
        lane->test_accuracy = to_double(t.cell(i, "test_accuracy"), file.path, line_no, "test_accuracy");
    }
    return out;
}

// [SECTION] tensor cores

const ImportedSpeedRow* ImportedTensorSpeed::find(std::string_view backend, std::string_view inputs,
                                                  std::int64_t size) const {
    for (const ImportedSpeedRow& r : rows)
        if (r.backend == backend && r.inputs == inputs && r.size == size) return &r;
    return nullptr;
}

ImportedTensorSpeed tensor_speed_comparison(const CompareFile& file) {
    using namespace cmp;
    ImportedTensorSpeed out;
    static_cast<ImportedMachine&>(out) = file;
    // The speed table is found by its columns, wherever it stands among the export's tables.
    for (const CompareTable& t : file.tables) {
        if (t.column("gflops_median") < 0 || t.column("backend") < 0) continue;
        for (std::size_t i = 0; i < t.rows.size(); ++i) {
            if (t.cell(i, "kind") != "speed") continue;
            const int line_no = t.line_numbers[i];
            ImportedSpeedRow r;
            r.backend = t.cell(i, "backend");
            r.inputs = t.cell(i, "inputs");
            if (r.backend.empty() || r.inputs.empty())
                fail(file.path, "line " + std::to_string(line_no) + " has no backend or input format");
            r.size = to_int(t.cell(i, "size"), file.path, line_no, "size");
            r.ran = t.cell(i, "ran") == "yes";
            if (r.ran) {
                r.gflops = to_double(t.cell(i, "gflops_median"), file.path, line_no, "gflops_median");
                r.gflops_min = to_double(t.cell(i, "gflops_min"), file.path, line_no, "gflops_min");
                r.gflops_max = to_double(t.cell(i, "gflops_max"), file.path, line_no, "gflops_max");
            }
            r.path = t.cell(i, "path");
            out.rows.push_back(std::move(r));
        }
    }
    return out;
}

}  // namespace gpulab::core
