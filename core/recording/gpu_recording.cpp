// Reading a recorded GPU run: see gpu_recording.h.
#include "gpu_recording.h"

#include <algorithm>
#include <system_error>

#include "io/file_io.h"
#include "io/image_io.h"

namespace gpulab::core {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

bool has_control(std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

bool ends_with(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// A provenance file is a few hundred bytes; anything near this is not one.
constexpr std::int64_t kMaxProvenanceBytes = 64 * 1024;
// One step's CSV is a few kilobytes; the latency sweep's, the largest, about 30.
constexpr std::int64_t kMaxRecordedCsvBytes = 2 << 20;

}  // namespace

RecordingProvenance parse_provenance(std::string_view text, const std::string& name) {
    RecordingProvenance p;
    int line_no = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = trim(text.substr(pos, end - pos));
        pos = end + 1;
        ++line_no;
        if (line.empty() || line.front() == '#') continue;
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos || colon == 0)
            throw InputError(name + ": line " + std::to_string(line_no) + " is not \"key: value\"");
        const std::string_view key = trim(line.substr(0, colon));
        const std::string_view value = trim(line.substr(colon + 1));
        if (has_control(value) || value.size() > 400)
            throw InputError(name + ": line " + std::to_string(line_no) + " holds control characters or is too long");
        std::string* field = key == "gpu"          ? &p.gpu
                             : key == "gpu_memory" ? &p.gpu_memory
                             : key == "driver"     ? &p.driver
                             : key == "cuda"       ? &p.cuda
                             : key == "cudnn"      ? &p.cudnn
                             : key == "cublas"     ? &p.cublas
                             : key == "commit"     ? &p.commit
                             : key == "date"       ? &p.date
                             : key == "command"    ? &p.command
                             : key == "not_a_gpu"  ? &p.not_a_gpu
                                                   : nullptr;
        if (field) *field = std::string(value);  // other keys: written by a newer gpulab, not needed here
    }
    if (p.gpu.empty()) throw InputError(name + ": no \"gpu:\" line naming the GPU that was recorded");
    if (p.date.empty()) throw InputError(name + ": no \"date:\" line saying when it was recorded");
    return p;
}

std::string GpuRecording::source() const {
    const std::string day = provenance.date.substr(0, provenance.date.find(' '));
    const std::string base = "recorded on " + provenance.gpu + ", " + day;
    return provenance.not_a_gpu.empty() ? base : provenance.not_a_gpu + ", not a GPU: " + base;
}

std::vector<const CompareFile*> GpuRecording::of_workload(std::string_view workload) const {
    std::vector<const CompareFile*> out;
    for (const CompareFile& f : files)
        if (f.workload == workload) out.push_back(&f);
    return out;
}

GpuRecording load_recording(const std::filesystem::path& folder) {
    GpuRecording rec;
    rec.folder = folder;
    const std::string dir = folder.string();
    std::error_code ec;
    if (std::filesystem::is_symlink(folder, ec))
        throw InputError(dir + ": a recording folder that is a symbolic link is not read");
    std::vector<std::string> names;
    std::filesystem::directory_iterator it(folder, ec);
    if (ec) throw InputError(dir + ": cannot read the recording folder: " + ec.message());
    for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
        if (ec) throw InputError(dir + ": cannot read the recording folder: " + ec.message());
        names.push_back(it->path().filename().string());
        if (static_cast<int>(names.size()) > kMaxRecordingFiles + 1)
            throw InputError(dir + ": more than " + std::to_string(kMaxRecordingFiles) +
                             " files; a recording holds one CSV per lesson step");
    }
    std::sort(names.begin(), names.end());
    rec.provenance = parse_provenance(read_file_in_folder(dir, "provenance.txt", kMaxProvenanceBytes, "provenance file"),
                                      dir + "/provenance.txt");
    std::int64_t total = 0;
    for (const std::string& n : names) {
        if (n == "provenance.txt") continue;
        if (!ends_with(n, ".csv")) continue;  // a README or the pictures: not read
        if (!is_plain_file_name(n)) {
            rec.skipped.push_back(n + ": not a plain file name");
            continue;
        }
        std::string text;
        try {
            text = read_file_in_folder(dir, n, kMaxRecordedCsvBytes, "recorded CSV");
        } catch (const InputError& e) {
            rec.skipped.push_back(n + ": " + e.what());
            continue;
        }
        total += static_cast<std::int64_t>(text.size());
        if (total > kMaxRecordingBytes)
            throw InputError(dir + ": more than " + std::to_string(kMaxRecordingBytes >> 20) +
                             " MiB of CSVs; a recording is a few megabytes");
        try {
            rec.files.push_back(parse_compare_file(text, dir + "/" + n));
        } catch (const InputError& e) {
            rec.skipped.push_back(n + ": " + e.what());
        }
    }
    return rec;
}

bool recorded_gpu_backend(std::string_view backend) {
    return !backend.empty() && backend.substr(0, 4) != "cpu-" && backend != "cuda-sim";
}

void mark_as_recorded(ImportedMachine& machine, const GpuRecording& recording) {
    machine.recorded_source = recording.source();
    machine.date = recording.provenance.date;
}

void mark_as_estimate(ImportedMachine& machine, const PublishedGpu& gpu) {
    machine.recorded_source = estimate_source(gpu);
    machine.estimate = true;
    machine.gpu = machine.machine_label = gpu.name;
    machine.version = GPULAB_VERSION;
}

}  // namespace gpulab::core
