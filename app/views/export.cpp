// Export files: see export.h. Every panel PNG (the timing panel here, the latency sweep in
// latency_export.cpp) uses its own ImGui context (1.86 keeps the OpenGL3
// backend's objects per context in io.BackendRendererUserData), so it never disturbs the GUI's
// frame, and draws with the same timing_plot functions as the screen.
#include "export.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "measure/run_quality.h"
#include "io/file_io.h"
#include "widgets/fonts.h"
#include "measure/format.h"
#include "render/gl_util.h"
#include "render/render_problems.h"
#include "measure/machine_info.h"
#include "gpu_backends.h"
#include "gpu_model/gpu_model.h"
#include "backends/simd/simd_math.h"

namespace gpulab::app {

namespace {

bool write_text(const std::filesystem::path& path, const std::string& text, std::string& error) {
    if (DeferredExportWrites* queue = DeferredExportWrites::current()) {
        queue->add({path.string(), text, nullptr, 0, 0});
        return true;
    }
    error = core::write_output_file(path.string(), text);  // checked after close: a full disk is an error
    return error.empty();
}

bool write_pixels(const std::string& path, Pixels rgba, int width, int height, std::string& error) {
    if (!rgba || width <= 0 || height <= 0 || rgba->size() < static_cast<std::size_t>(width) * height * 4) {
        error = "no pixels to write for " + path;
        return false;
    }
    if (DeferredExportWrites* queue = DeferredExportWrites::current()) {
        queue->add({path, {}, std::move(rgba), width, height});
        return true;
    }
    return write_png(path, *rgba, width, height, error);
}

bool render_timing_png(const ExportInput& in, const std::vector<std::string>& caption, const std::string& path,
                       std::string& error) {
    return render_panel_png(in.ui_scale, 1100, path, error, [&](const Fonts& fonts, float scale) {
        draw_export_heading(fonts, in.lesson_title + (in.other ? ": measured timings, this machine vs another"
                                                                : ": measured timings"));
        draw_caption_block(caption);
        ImGui::Spacing();
        draw_timing_panel(in.run, *in.history, 200.0f * scale, in.other);
    });
}

}  // namespace

// Draws in a fresh ImGui context into a framebuffer and reads the window's rectangle back. Frames
// are repeated because auto-sized windows settle over 2-3.
void draw_export_heading(const Fonts& fonts, const std::string& text) {
    ImGui::PushFont(fonts.bold ? fonts.bold : fonts.regular);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopFont();
}

bool render_panel_png(float ui_scale, int logical_width, const std::string& path, std::string& error,
                      const std::function<void(const Fonts&, float)>& draw) {
    ImGuiContext* previous = ImGui::GetCurrentContext();
    ImGuiContext* ctx = ImGui::CreateContext();
    ImGui::SetCurrentContext(ctx);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    const float scale = std::max(ui_scale, 1.0f);
    Fonts fonts = load_fonts(io.Fonts, scale);
    apply_style(scale);
    bool ok = ImGui_ImplOpenGL3_Init("#version 330");
    const int width = static_cast<int>(static_cast<float>(logical_width) * scale);
    const int canvas_h = static_cast<int>(1400 * scale);
    Framebuffer fb;
    if (!ok || !fb.resize(width, canvas_h)) {
        error = ok ? "cannot create an offscreen framebuffer for " + path
                   : "cannot initialise the ImGui OpenGL renderer for " + path;
        if (ok) ImGui_ImplOpenGL3_Shutdown();
        ImGui::DestroyContext(ctx);
        ImGui::SetCurrentContext(previous);
        return false;
    }
    io.DisplaySize = {static_cast<float>(width), static_cast<float>(canvas_h)};
    ImVec2 window_size{0, 0};
    for (int frame = 0; frame < 4; ++frame) {
        io.DeltaTime = 1.0f / 60.0f;
        ImGui_ImplOpenGL3_NewFrame();
        ImGui::NewFrame();
        ImGui::SetNextWindowPos({0, 0});
        ImGui::SetNextWindowSize({static_cast<float>(width), 0.0f});
        ImGui::Begin("Timing", nullptr,
                     ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings);
        draw(fonts, scale);
        window_size = ImGui::GetWindowSize();
        ImGui::End();
        ImGui::Render();
        fb.bind();
        glClearColor(0.10f, 0.105f, 0.12f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    }
    std::vector<uint8_t> rgba = fb.read_rgba();
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    ImGui_ImplOpenGL3_Shutdown();
    ImGui::DestroyContext(ctx);
    ImGui::SetCurrentContext(previous);

    const int h = std::clamp(static_cast<int>(window_size.y + 0.5f), 1, canvas_h);
    rgba.resize(static_cast<std::size_t>(width) * h * 4);
    return write_pixels(path, std::make_shared<const std::vector<uint8_t>>(std::move(rgba)), width, h, error);
}

std::string samples_csv(const core::ActivationRun& run, const std::vector<std::string>& caption) {
    std::ostringstream out;
    for (const auto& line : caption) out << "# " << line << "\n";
    out << "# one row per timed run; upload/compute/download split that run's total (CPU backends spend it all "
           "in compute; GPU phases are CUDA-event times)\n";
    for (const auto& r : run.reports)
        if (r.ran && !core::kind_is_timed(r.kind))
            out << "# " << r.backend << ": the CUDA kernel simulated on the CPU; its times are the simulator's, not a "
                                        "GPU speed\n";
    out << "backend,sample,total_ns,upload_ns,compute_ns,download_ns,source\n";
    const std::string source = core::csv_field(shown_result_source());
    for (const auto& r : run.reports) {
        for (std::size_t i = 0; i < r.samples_ns.size(); ++i) {
            out << core::csv_field(r.backend) << "," << i << "," << r.samples_ns[i] << ",";
            if (i < r.phases.size()) {
                const core::PhaseTimes& p = r.phases[i];
                out << p.upload_ns << "," << p.compute_ns << "," << p.download_ns;
            } else if (r.kind == core::BackendKind::Cpu) {
                // A report without per-sample phases: a CPU run is compute and nothing else.
                out << "0," << r.samples_ns[i] << ",0";
            } else {
                out << ",,";
            }
            out << "," << source << "\n";
        }
    }
    return out.str();
}

namespace {
std::string g_shown_result_machine;  // the UI thread's, as the captions
}

void set_shown_result_machine(std::string other_machine_label) { g_shown_result_machine = std::move(other_machine_label); }
const std::string& shown_result_machine() { return g_shown_result_machine; }
std::string with_source_column(const std::string& csv, const std::string& source) {
    const std::string field = "," + core::csv_field(source);
    std::string out;
    out.reserve(csv.size() + csv.size() / 8);
    bool header_next = true;  // the first line of a table is its header
    for (std::size_t pos = 0; pos < csv.size();) {
        std::size_t end = csv.find('\n', pos);
        if (end == std::string::npos) end = csv.size();
        const std::string_view line(csv.data() + pos, end - pos);
        pos = end + 1;
        out += line;
        if (line.empty()) {
            header_next = true;
        } else if (line.front() != '#') {
            out += header_next ? std::string(",source") : field;
            header_next = false;
        }
        out += '\n';
    }
    return out;
}

std::string shown_result_source() {
    return g_shown_result_machine.empty() ? std::string(core::kSourceMeasuredHere) : "measured on " + g_shown_result_machine;
}

std::vector<std::string> machine_caption_lines(std::string_view lesson_title, int64_t started_unix_s) {
    std::vector<std::string> lines;
    if (!g_shown_result_machine.empty()) {
        // Not this computer's CPU and GPU lines under another computer's numbers.
        lines.push_back("gpulab " + std::string(GPULAB_VERSION) + "  |  " + std::string(lesson_title) + "  |  " +
                        core::utc_timestamp(started_unix_s));
        lines.push_back("measured on another computer: " + g_shown_result_machine +
                        " (loaded with gpulab prerun --import), not on this one");
        return lines;
    }
    const core::MachineInfo& m = core::host_machine();
    const gpu::GpuProbe& g = gpu::probe();
    lines.push_back("gpulab " + std::string(GPULAB_VERSION) + "  |  " + std::string(lesson_title) + "  |  " +
                    core::utc_timestamp(started_unix_s));
    lines.push_back("CPU: " + (m.cpu_model.empty() ? std::string("unknown model") : m.cpu_model) + " (" +
                    std::to_string(m.hardware_threads) + " threads), SIMD " + cpu::isa_summary() +
                    (m.os.empty() ? "" : ", " + m.os));
    if (g.device_ok) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "GPU: %s (CC %d.%d, %d SMs, %s)", g.name.c_str(), g.cc_major, g.cc_minor,
                      g.sm_count, core::format_bytes(static_cast<double>(g.total_memory)).c_str());
        lines.emplace_back(buf);
    } else {
        // The driver's exact error once, in the versions line below; here the plain words.
        const std::string plain = core::plain_gpu_reason(g.reason);
        lines.push_back("no GPU: " + (plain.empty() ? g.reason : plain));
    }
    lines.push_back(gpu::version_summary());
    // How much of the machine the last run had (core/measure/run_quality.h), once a run has finished.
    if (const core::RunQuality q = core::last_run_quality(); q.seconds > 0) lines.push_back("measurement: " + q.summary());
    return lines;
}

std::string summary_csv(const core::ActivationRun& run, const std::vector<std::string>& caption,
                        const core::ImportedRun* other) {
    std::ostringstream out;
    for (const auto& line : caption) out << "# " << line << "\n";
    out << "backend,available,ran,samples,median_ns,min_ns,max_ns,p25_ns,p75_ns,upload_median_ns,"
           "compute_median_ns,download_median_ns,gbps,gbps_with_transfers,limit_name,limit_gbps,fraction_of_limit,"
           "speedup_vs_cpu_scalar,verdict,source\n";
    const std::string source = core::csv_field(shown_result_source());
    for (const auto& r : run.reports) {
        std::string verdict = !r.availability.ok ? "not run: " + r.availability.reason
                              : !r.ran           ? "not run: " + r.error
                              : !core::kind_is_timed(r.kind)
                                  ? "simulated on the CPU, time not a GPU speed: " + r.check.verdict
                                  : r.check.verdict;
        out << core::csv_field(r.backend) << "," << (r.availability.ok ? 1 : 0) << "," << (r.ran ? 1 : 0) << ","
            << r.total.samples << "," << r.total.median_ns << "," << r.total.min_ns << "," << r.total.max_ns << ","
            << r.total.p25_ns << "," << r.total.p75_ns << "," << r.upload.median_ns << "," << r.compute.median_ns
            << "," << r.download.median_ns << "," << r.gbps << "," << r.gbps_with_transfers << ","
            << core::csv_field(r.limit.ok ? r.limit.name : std::string()) << "," << (r.limit.ok ? r.limit.gbps : 0.0)
            << "," << r.fraction_of_limit << "," << speedup_vs_scalar(run, r) << "," << core::csv_field(verdict) << ","
            << source << "\n";
    }
    // A recording's GPU rows: what it wrote of them (median, spread, GB/s); the fields it does not
    // carry stay empty, and no speed-up, which would divide one computer's time by another's.
    if (other && !other->recorded_source.empty())
        for (const core::ImportedBackend& b : other->backends) {
            if (!b.ran) continue;
            out << core::csv_field(b.backend) << ",1,1," << b.samples << "," << b.median_ns << "," << b.min_ns << ","
                << b.max_ns << ",,,,,," << b.gbps << ",,,,,,," << core::csv_field(other->recorded_source) << "\n";
        }
    return out.str();
}

ExportResult write_export(const ExportInput& in) {
    ExportResult result;
    if (!in.run || !in.history) {
        result.message = "nothing to export yet: run a measurement first (R)";
        return result;
    }
    ExportWriter out(in.out_dir, in.lesson_id);
    if (!out.ok()) return out.failed();
    std::vector<std::string> caption = caption_lines(*in.run, in.lesson_title);
    if (in.other) {
        for (std::string& line : comparison_caption_lines(*in.run, *in.other)) caption.push_back(std::move(line));
    }
    if (!out.text("-samples.csv", samples_csv(*in.run, caption))) return out.failed();
    if (!out.text("-summary.csv", summary_csv(*in.run, caption, in.other))) return out.failed();
    const std::filesystem::path timing = out.path("-timing.png");
    std::string error;
    if (!out.picture(timing, render_timing_png(in, caption, timing.string(), error), error)) return out.failed();
    return out.finish(in.window_rgba, in.window_width, in.window_height);
}

// [SECTION] the shared writer

ExportWriter::ExportWriter(const std::string& out_dir, const std::string& lesson_id)
    : dir_(out_dir.empty() ? std::filesystem::path("gpulab-export") : std::filesystem::path(out_dir)),
      stem_(lesson_id.empty() ? "gpulab" : lesson_id) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec || !std::filesystem::is_directory(dir_, ec)) {
        ok_ = false;
        result_.message = "cannot create export folder " + dir_.string() + ": " + (ec ? ec.message() : "not a folder");
    }
}

bool ExportWriter::text(const std::string& suffix, const std::string& content) {
    if (!ok_) return false;
    const std::filesystem::path file = path(suffix);
    std::string error;
    return picture(file, write_text(file, content, error), error);
}

bool ExportWriter::picture(const std::filesystem::path& file, bool written, const std::string& error) {
    if (!ok_) return false;
    if (!written) {
        // Says which file failed and what is left of the export (kept, or gone with its folder).
        ok_ = false;
        result_.message = core::partial_write_message(error, dir_.string(), result_.files.size());
        return false;
    }
    result_.files.push_back(file.string());
    return true;
}

ExportResult ExportWriter::finish(const Pixels& window_rgba, int width, int height) {
    if (ok_ && window_rgba && !window_rgba->empty()) {
        const std::filesystem::path window = path("-window.png");
        std::string error;
        picture(window, write_pixels(window.string(), window_rgba, width, height, error), error);
    }
    if (!ok_) return result_;
    // Pictures drawn without their colour map are not a success, whatever the files hold.
    if (const std::string& problem = render_problem(); !problem.empty()) {
        result_.ok = false;
        result_.message = "the pictures could not be drawn (" + problem + "); the " +
                          std::to_string(result_.files.size()) + " files written in " + dir_.string() +
                          " show them empty";
        return result_;
    }
    result_.ok = true;
    // The absolute folder: a relative one means little to someone who started the app from a menu.
    std::error_code ec;
    const std::filesystem::path shown = std::filesystem::absolute(dir_, ec);
    result_.message =
        "exported " + std::to_string(result_.files.size()) + " files to " + (ec ? dir_ : shown).string();
    return result_;
}

}  // namespace gpulab::app
