// run_export: `gpulab export` with no window and no display. An offscreen EGL context, an ImGui
// context with no platform backend (display size and frame time set by hand), one synchronous
// measurement, then the same Shell frame as the GUI drawn into a framebuffer for a few frames
// (auto-sized windows settle over 2-3) before the files are written. With --all-steps every step
// is entered in turn (params applied, its action run) and drawn to <id>-step-NN.png, the numbers
// on screen go to <id>-step-NN.csv, and <id>.json records the configuration and the hardware.
// Verified by the gui.export test in tests/gui_tests.cmake and the presenter.export_* tests in
// tests/presenter_tests.cmake, which run all four lessons and check the PNGs are not blank and
// differ from step to step, and that every step has its CSV with a header and data. --compare
// loads another machine's summary first (tests/compare_tests.cmake).
#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>
#include <variant>

#include "app_entry.h"
#include "io/file_io.h"
#include "widgets/cell_text.h"
#include "widgets/fonts.h"
#include "widgets/presenter_palette.h"
#include "render/gl_util.h"
#include "gpu_backends.h"
#include "json_out.h"
#include "measure/machine_info.h"
#include "runtime/memory.h"
#include "layout_check.h"
#include "render/offscreen_context.h"
#include "measure/run_quality.h"
#include "shell/shell.h"
#include "backends/simd/simd_math.h"

namespace gpulab::app {

namespace {

std::string param_json(const core::ParamValue& v) {
    if (const bool* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
    if (const int64_t* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
    if (const double* d = std::get_if<double>(&v)) return json_number(*d);
    return json_string(std::get<std::string>(v));
}

struct StepPicture {
    const core::LessonStep* step = nullptr;
    std::string png;
    std::string csv;  // the measurement on screen at this step; empty: none yet
    bool measured = false;
};

// <id>.json: what was exported, with which settings, on which machine, so a folder of pictures
// can be traced back to its run.
std::string export_json(const ExportOptions& o, const std::string& lesson_id, const std::string& title,
                        float scale, const std::vector<StepPicture>& steps, const std::vector<std::string>& files) {
    const core::MachineInfo& m = core::host_machine();
    const gpu::GpuProbe& g = gpu::probe();
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch()).count();
    std::string j = "{\n";
    j += "  \"gpulab_version\": " + json_string(GPULAB_VERSION) + ",\n";
    j += "  \"exported_at\": " + json_string(core::utc_timestamp(now)) + ",\n";
    j += "  \"lesson\": {\"id\": " + json_string(lesson_id) + ", \"title\": " + json_string(title) + "},\n";
    j += "  \"config\": {\"width\": " + std::to_string(o.width) + ", \"height\": " + std::to_string(o.height) +
         ", \"theme\": " + json_string(o.theme) + ", \"palette\": " + json_string(o.palette) + ", \"ui_scale\": " + json_number(scale) +
         ", \"quick\": " + (o.quick ? "true" : "false") + "},\n";
    // Said once here so a reader of the folder knows what each step's CSV holds without the app.
    j += "  \"step_csv\": " +
         json_string("one CSV per step, <id>-step-NN.csv: the measurement on screen at that step, in the same "
                     "table as the lesson's own export CSV (activations: the per-backend summary; conv: -conv.csv; "
                     "simd: -simd.csv; latency: -sweep.csv); a step with no run of its own repeats the previous "
                     "step's measurement (\"measured\": false)") +
         ",\n";
    j += "  \"steps\": [";
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const core::LessonStep& s = *steps[i].step;
        j += i ? ",\n" : "\n";
        j += "    {\"index\": " + std::to_string(i + 1) + ", \"title\": " + json_string(s.title) +
             ", \"action\": " + json_string(s.action) + ", \"measured\": " + (steps[i].measured ? "true" : "false") +
             ", \"png\": " + json_string(steps[i].png) + ", \"csv\": " + json_string(steps[i].csv) +
             ", \"params\": {";
        bool first = true;
        for (const auto& [key, value] : s.params) {
            j += (first ? "" : ", ") + json_string(key) + ": " + param_json(value);
            first = false;
        }
        j += "}}";
    }
    j += "\n  ],\n  \"files\": [";
    for (std::size_t i = 0; i < files.size(); ++i) j += (i ? ", " : "") + json_string(files[i]);
    j += "],\n";
    j += "  \"hardware\": {\n";
    j += "    \"cpu\": " + json_string(m.cpu_model) + ", \"hardware_threads\": " +
         std::to_string(m.hardware_threads) + ", \"os\": " + json_string(m.os) + ",\n";
    // The instruction set the SIMD loops ran with and the memory left for inputs: what explains the
    // CPU numbers when two machines' exports are compared.
    j += "    \"simd_isa\": " + json_string(std::string(cpu::simd_isa())) +
         ", \"simd_lanes\": " + std::to_string(cpu::simd_isa_lanes(cpu::best_simd_isa())) +
         ", \"host_memory_available\": " + std::to_string(core::available_host_memory()) + ",\n";
    j += "    \"gpu\": {\"compiled_in\": " + std::string(g.compiled_in ? "true" : "false") +
         ", \"device_ok\": " + (g.device_ok ? "true" : "false") + ", \"name\": " + json_string(g.name) +
         ", \"reason\": " + json_string(g.reason) + ", \"compute_capability\": " +
         json_string(std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)) +
         ", \"total_memory\": " + std::to_string(g.total_memory) + "},\n";
    j += "    \"versions\": " + json_string(gpu::version_summary()) + ",\n";
    j += "    \"cudnn\": {\"ok\": " + std::string(g.cudnn_ok ? "true" : "false") + ", \"version\": " +
         json_string(g.cudnn_version) + ", \"reason\": " + json_string(g.cudnn_reason) + "}\n";
    j += "  }\n}\n";
    return j;
}

}  // namespace

int run_export(const ExportOptions& options) {
    if (options.out_dir.empty()) {
        std::fprintf(stderr, "gpulab export: --out DIR is required\n");
        return 1;
    }
    if (options.width < 320 || options.height < 240 || options.width > 8192 || options.height > 8192) {
        std::fprintf(stderr, "gpulab export: picture size %dx%d is outside 320x240 .. 8192x8192\n", options.width,
                     options.height);
        return 1;
    }
    // An exported picture must not say "probing the GPU ...": wait for the probe here, once, so the
    // frames (which never wait, gpu::probe_now()) find it finished.
    gpu::probe();
    std::string why;
    std::unique_ptr<OffscreenContext> gl = OffscreenContext::create(why);
    if (!gl) {
        std::fprintf(stderr, "gpulab export: no offscreen OpenGL context: %s\n", why.c_str());
        return 1;
    }
    gl->make_current();

    auto shell = std::make_unique<Shell>();
    std::string error;
    if (!shell->init({options.lesson_dirs, options.lesson_id}, error)) {
        std::fprintf(stderr, "gpulab export: %s\n", error.c_str());
        return 1;
    }
    if (!options.compare_path.empty()) {
        // Checked before the measurement so a wrong file costs nothing; the label goes to stdout.
        if (!shell->load_comparison(options.compare_path, error)) {
            std::fprintf(stderr, "gpulab export: %s\n", error.c_str());
            return 1;
        }
    }
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = {static_cast<float>(options.width), static_cast<float>(options.height)};
    ImGui_ImplOpenGL3_Init("#version 330");
    set_colour_blind_palette(options.palette == "colour-blind");  // before any picture is drawn
    set_cell_text_notes(options.check_layout);                    // so the layout check can name cut text
    const bool presenter = options.theme == "presenter";
    if (presenter) {
        // The presenter layout at the text size a room would use on a screen of this height.
        shell->set_presenting(true);
        int index = options.height >= 1400 ? 2 : options.height >= 1000 ? 1 : 0;
        for (int i = 0; i < core::kPresenterScaleCount; ++i)
            if (core::kPresenterScales[i] == options.present_scale) index = i;
        shell->set_presenter_scale_index(index);
    }
    const float scale = shell->user_scale();
    shell->set_fonts(rebuild_fonts_and_style(scale, shell->presenter_state().theme));
    auto cleanup = [&] {
        shell.reset();
        ImGui_ImplOpenGL3_Shutdown();
        ImGui::DestroyContext();
    };
    if (!shell->set_export_dir(options.out_dir)) {
        std::fprintf(stderr, "gpulab export: the --out path is %zu characters long; at most 4,095 are allowed\n",
                     options.out_dir.size());
        cleanup();
        return 1;
    }
    Framebuffer fb;
    if (!fb.resize(options.width, options.height)) {
        std::fprintf(stderr, "gpulab export: cannot create a %dx%d framebuffer\n", options.width, options.height);
        cleanup();
        return 1;
    }
    FrameContext ctx;
    ctx.size = io.DisplaySize;
    ctx.headless = true;
    auto render = [&] {
        shell->set_animation_time(3.5f);
        for (int frame = 0; frame < 6; ++frame) {
            io.DeltaTime = 1.0f / 60.0f;
            ImGui_ImplOpenGL3_NewFrame();
            ImGui::NewFrame();
            shell->frame(ctx);
            ImGui::Render();
            fb.bind();
            glClearColor(0.07f, 0.07f, 0.08f, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
            ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        }
        return fb.read_rgba();
    };
    auto measure = [&] {
        // The conditions of the run go into the captions (views/export.cpp), as in the window.
        const core::CpuSample before = core::sample_cpu();
        shell->run_blocking(options.quick);
        core::set_last_run_quality(core::quality_between(
            before, core::sample_cpu(), static_cast<int>(std::thread::hardware_concurrency())));
        if (shell->has_result()) return true;
        std::fprintf(stderr, "gpulab export: measurement failed: %s\n", shell->error_message().c_str());
        return false;
    };

    std::printf("gpulab export: %s, measuring%s ...\n", gl->description().c_str(), options.quick ? " (quick)" : "");
    std::fflush(stdout);
    std::vector<StepPicture> pictures;
    std::vector<uint8_t> pixels;
    int layout_too_wide = 0;  // --check-layout: panels and table cells whose content is wider than they are
    if (options.all_steps) {
        std::error_code ec;
        std::filesystem::create_directories(options.out_dir, ec);
        if (ec) {
            std::fprintf(stderr, "gpulab export: cannot create export folder %s: %s\n", options.out_dir.c_str(),
                         ec.message().c_str());
            cleanup();
            return 1;
        }
        const std::string id = shell->lesson_id();
        for (int i = 0; i < shell->step_count(); ++i) {
            shell->go_to_step(i);
            if (!shell->step_input_problem().empty()) {
                std::fprintf(stderr, "gpulab export: step %d: %s\n", i + 1, shell->step_input_problem().c_str());
                cleanup();
                return 1;
            }
            StepPicture pic;
            pic.step = shell->current_step();
            // Each step shows what its action produces; a step with no run of its own (an
            // animation) shows the previous step's numbers, as it does in class.
            if ((!pic.step->action.empty() && pic.step->action != "animate") || !shell->has_result()) {
                if (!measure()) {
                    cleanup();
                    return 1;
                }
                pic.measured = true;
            }
            pixels = render();
            if (options.check_layout) {
                for (const LayoutOverflow& o : layout_overflows()) {
                    std::printf("  layout, step %d: %s\n", i + 1, describe(o).c_str());
                    if (o.wider_px > 0) ++layout_too_wide;
                }
                for (const CellOverflow& o : cell_overflows()) {
                    std::printf("  layout, step %d: %s\n", i + 1, describe(o).c_str());
                    ++layout_too_wide;
                }
            }
            char name[64];
            std::snprintf(name, sizeof name, "-step-%02d.png", i + 1);
            pic.png = id + name;
            const std::string path = (std::filesystem::path(options.out_dir) / pic.png).string();
            std::string werr;
            if (!write_png(path, pixels, options.width, options.height, werr)) {
                std::fprintf(stderr, "gpulab export: %s\n", werr.c_str());
                cleanup();
                return 1;
            }
            // The numbers behind the picture, so every step's measurement can be compared later.
            const std::string csv_text = shell->measurement_csv();
            if (!csv_text.empty()) {
                std::snprintf(name, sizeof name, "-step-%02d.csv", i + 1);
                pic.csv = id + name;
                const std::filesystem::path csv_path = std::filesystem::path(options.out_dir) / pic.csv;
                if (const std::string werr = core::write_output_file(csv_path.string(), csv_text); !werr.empty()) {
                    std::fprintf(stderr, "gpulab export: %s\n", werr.c_str());
                    cleanup();
                    return 1;
                }
            }
            std::printf("  step %d of %d: %s%s%s\n", i + 1, shell->step_count(), path.c_str(),
                        pic.csv.empty() ? "" : (" + " + pic.csv).c_str(), pic.measured ? "" : " (no run of its own)");
            std::fflush(stdout);
            pictures.push_back(std::move(pic));
        }
    } else {
        if (!shell->step_input_problem().empty()) {
            std::fprintf(stderr, "gpulab export: %s\n", shell->step_input_problem().c_str());
            cleanup();
            return 1;
        }
        if (!measure()) {
            cleanup();
            return 1;
        }
        shell->show_overview_panel();
        pixels = render();
    }
    ExportResult result = shell->export_now(std::move(pixels), options.width, options.height);
    if (result.ok && options.all_steps) {
        const std::string id = shell->lesson_id();
        std::vector<std::string> files;
        for (const auto& p : pictures) {
            files.push_back(p.png);
            if (!p.csv.empty()) files.push_back(p.csv);
        }
        for (const auto& f : result.files) files.push_back(std::filesystem::path(f).filename().string());
        const std::string json_path = (std::filesystem::path(options.out_dir) / (id + ".json")).string();
        const std::string werr =
            core::write_output_file(json_path, export_json(options, id, shell->lesson_title(), scale, pictures, files));
        if (!werr.empty()) {
            result.ok = false;
            result.message = werr;
        } else {
            result.files.push_back(json_path);
            result.message += "; " + std::to_string(pictures.size()) + " step pictures, their CSVs and " + id + ".json";
        }
    }
    if (result.ok) {
        std::printf("gpulab export: %s\n", result.message.c_str());
        for (const auto& f : result.files) std::printf("  %s\n", f.c_str());
    } else {
        std::fprintf(stderr, "gpulab export: %s\n", result.message.c_str());
    }
    cleanup();
    if (result.ok && layout_too_wide > 0) {
        std::fprintf(stderr,
                     "gpulab export: --check-layout: %d panel(s) or table cell(s) had content wider than they are "
                     "(listed above)\n",
                     layout_too_wide);
        return 1;
    }
    return result.ok ? 0 : 1;
}

}  // namespace gpulab::app
