// The convolution view's state changes: steps, the measurement job (every backend on the worker,
// then 2x2 max pooling of the reference output), textures for the pictures, the thread-block
// schedule of the "all at once" tab, the CSV, the caption and the export. Per channel the output
// textures follow the sliding window's plane, and the Channels tab gets each plane and their
// recombination. See conv2d_view.h; the
// panels are drawn in app/views/conv2d/conv2d_*.cpp.
// Verified by the gui.conv_* tests (tests/conv_gui_tests.cmake) and the screenshots.
#include "conv2d_view.h"
#include "conv2d_archive.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "views/stored_results.h"
#include "render/gl_objects.h"
#include "views/compare_view.h"
#include "measure/format.h"
#include "gpu_backends.h"
#include "gpu_model/gpu_model.h"
#include "io/image_io.h"
#include "measure/machine_info.h"
#include "widgets/diverging_map.h"
#include "widgets/ui_helpers.h"
#include "views/timing_plot.h"

namespace gpulab::app {

namespace {

Conv2dView::Panel panel_from(const std::string& name, Conv2dView::Panel fallback) {
    if (name == "sliding") return Conv2dView::Panel::Sliding;
    if (name == "all-at-once") return Conv2dView::Panel::AllAtOnce;
    if (name == "channels") return Conv2dView::Panel::Channels;
    if (name == "pooling") return Conv2dView::Panel::Pooling;
    if (name == "trained") return Conv2dView::Panel::Trained;
    return fallback;
}

float max_abs(const float* d, int64_t n) {
    float m = 0.0f;
    for (int64_t i = 0; i < n; ++i)
        if (std::isfinite(d[i])) m = std::max(m, std::fabs(d[i]));
    return m > 0.0f ? m : 1.0f;
}

// The colour range of an output picture: the 99.5th percentile of |v| rather than the maximum, so a
// few very strong edges do not wash every other response out to white. Sampled: a picture of
// millions of values needs only tens of thousands to place a percentile.
float display_range(const float* d, int64_t n) {
    if (n <= 0) return 1.0f;
    const int64_t step = std::max<int64_t>(1, n / 65536);
    std::vector<float> a;
    a.reserve(static_cast<std::size_t>(n / step + 1));
    for (int64_t i = 0; i < n; i += step)
        if (std::isfinite(d[i])) a.push_back(std::fabs(d[i]));
    if (a.empty()) return 1.0f;
    auto k = a.begin() + static_cast<std::ptrdiff_t>(static_cast<double>(a.size() - 1) * 0.995);
    std::nth_element(a.begin(), k, a.end());
    return *k > 0.0f ? *k : max_abs(d, n);
}

core::MeasureConfig measure_config(bool quick) {
    core::MeasureConfig c;
    c.measure_limits = false;  // convolution is compared in GFLOP/s, not against a copy
    if (quick) {
        c.warmup = 1;
        c.min_samples = 3;
        c.max_samples = 10;
        c.time_budget_ns = 200'000'000;
    } else {
        c.warmup = 2;
        c.min_samples = 10;
        c.max_samples = 40;
        c.time_budget_ns = 1'000'000'000;
    }
    return c;
}

std::shared_ptr<const ConvMeasurement> measure(const core::Conv2dParams& params, std::vector<core::Backend*> backends,
                                               bool quick, const core::ProgressFn& progress) {
    auto m = std::make_shared<ConvMeasurement>();
    m->run = core::run_conv2d(params, backends, measure_config(quick), progress);
    if (!m->run.ok) return m;
    try {
        m->pooled = core::max_pool_2x2(m->run.reference_output);
    } catch (const std::exception& e) {
        m->pool_error = e.what();
    }
    return m;
}

}  // namespace

// [SECTION] block schedule

BlockSchedule block_schedule(int64_t out_h, int64_t out_w, int64_t planes, int kernel, int stride) {
    BlockSchedule s;
    s.blocks_x = (std::max<int64_t>(out_w, 0) + BlockSchedule::kTile - 1) / BlockSchedule::kTile;
    s.blocks_y = (std::max<int64_t>(out_h, 0) + BlockSchedule::kTile - 1) / BlockSchedule::kTile;
    // Grid z is one plane (n, k) per block layer, as the tiled kernel launches it.
    s.planes = std::clamp<int64_t>(planes, 1, BlockSchedule::kMaxGridZ);
    s.blocks = core::tiled_conv_blocks(out_h, out_w, s.planes);
    s.threads = s.blocks * BlockSchedule::kTile * BlockSchedule::kTile;
    // Never blocks the frame: until the probe is done this shows the example.
    const gpu::GpuProbe& g = gpu::probe_now();
    int cc_major = core::kExampleGpu.cc_major, cc_minor = core::kExampleGpu.cc_minor;
    if (g.device_ok && g.sm_count > 0) {
        s.gpu_name = g.name;
        s.sm_count = g.sm_count;
        cc_major = g.cc_major;
        cc_minor = g.cc_minor;
        s.blocks_per_sm = gpu::conv2d_tiled_blocks_per_sm(kernel, stride);
    } else {
        // An example, said to be one.
        s.example = true;
        s.gpu_name = core::kExampleGpu.name;
        s.sm_count = core::kExampleGpu.sm_count;
        s.why = g.reason.empty() ? std::string("no CUDA device") : g.reason;
    }
    s.cc_major = cc_major;
    s.cc_minor = cc_minor;
    if (s.blocks_per_sm <= 0) {
        s.occupancy_estimated = true;
        s.registers = core::tiled_conv_registers(cc_major, cc_minor);
        const int threads = BlockSchedule::kTile * BlockSchedule::kTile;
        s.blocks_per_sm = std::max(1, core::resident_blocks_per_sm(cc_major, cc_minor, threads, s.registers));
    }
    const core::Waves w = core::waves_of(s.blocks, s.sm_count, s.blocks_per_sm);
    s.wave = w.per_wave;
    s.waves = w.waves;
    return s;
}

// [SECTION] picture texture

ImVec4 channel_tint(int64_t n) {
    switch (n) {
        case 0: return {1.0f, 0.22f, 0.18f, 1.0f};
        case 1: return {0.25f, 1.0f, 0.3f, 1.0f};
        case 2: return {0.3f, 0.45f, 1.0f, 1.0f};
        default: return {1.0f, 1.0f, 1.0f, 1.0f};
    }
}

namespace {

uint8_t to_byte(float v, float lo, float span) {
    const float t = std::isfinite(v) ? std::clamp((v - lo) / span, 0.0f, 1.0f) : 0.0f;
    return static_cast<uint8_t>(std::lround(t * 255.0f));
}

}  // namespace

PictureTexture::~PictureTexture() {
    if (id_) {
        glDeleteTextures(1, &id_);
        note_gl_objects(GlKind::Texture, -1);
    }
}

void PictureTexture::set_gray(const float* data, int width, int height, float lo, float hi, ImVec4 tint) {
    if (!data || width <= 0 || height <= 0) return;
    const std::size_t n = static_cast<std::size_t>(width) * height;
    std::vector<uint8_t> rgba(n * 4);
    const float span = hi > lo ? hi - lo : 1.0f;
    for (std::size_t i = 0; i < n; ++i) {
        const float b = static_cast<float>(to_byte(data[i], lo, span));
        rgba[i * 4 + 0] = static_cast<uint8_t>(std::lround(b * tint.x));
        rgba[i * 4 + 1] = static_cast<uint8_t>(std::lround(b * tint.y));
        rgba[i * 4 + 2] = static_cast<uint8_t>(std::lround(b * tint.z));
        rgba[i * 4 + 3] = 255;
    }
    upload(rgba, width, height);
}

void PictureTexture::set_rgb(const float* r, const float* g, const float* b, int width, int height, float lo,
                             float hi) {
    if (!r || !g || !b || width <= 0 || height <= 0) return;
    const std::size_t n = static_cast<std::size_t>(width) * height;
    std::vector<uint8_t> rgba(n * 4);
    const float span = hi > lo ? hi - lo : 1.0f;
    for (std::size_t i = 0; i < n; ++i) {
        rgba[i * 4 + 0] = to_byte(r[i], lo, span);
        rgba[i * 4 + 1] = to_byte(g[i], lo, span);
        rgba[i * 4 + 2] = to_byte(b[i], lo, span);
        rgba[i * 4 + 3] = 255;
    }
    upload(rgba, width, height);
}

void PictureTexture::upload(const std::vector<uint8_t>& rgba, int width, int height) {
    if (!id_) {
        glGenTextures(1, &id_);
        note_gl_objects(GlKind::Texture, 1);
    }
    glBindTexture(GL_TEXTURE_2D, id_);
    // Nearest when each input pixel is drawn larger than a screen pixel: the sliding window is
    // about individual pixels, and smoothing would hide them.
    const GLint filter = std::max(width, height) <= TensorTexture::kNearestMaxSide ? GL_NEAREST : GL_LINEAR;
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    glBindTexture(GL_TEXTURE_2D, 0);
    width_ = width;
    height_ = height;
}

// [SECTION] steps

Conv2dView::Conv2dView(ViewHost& host)
    : host_(host), conv_only_backends_(gpu::make_conv2d_extra_backends()), custom_values_(49, 0.0f) {
    backends_ = host_.backends;
    for (const auto& b : conv_only_backends_) backends_.push_back(b.get());
    custom_values_[4] = 1.0f;  // 3x3 identity until the student edits it
    back_with_stored_results<const ConvMeasurement>(cache_, "conv2d", 1, [](const ConvMeasurement& m) {
        return core::conv2d_run_bytes(m.run) + m.pooled.bytes();
    });
}

Conv2dView::~Conv2dView() = default;

void Conv2dView::enter_step(const core::LessonStep& step) {
    params_ = core::conv2d_params_from(step.params, params_);
    const std::string image = core::param_string(step.params, "image", "");
    if (!image.empty()) {
        std::strncpy(path_buf_, image.c_str(), sizeof path_buf_ - 1);
        use_file_ = try_load_image(image);
        if (!use_file_) host_.step_input_problem = "the step's picture cannot be used: " + host_.error;
    }
    panel_ = panel_from(core::param_string(step.params, "panel", ""), panel_);
    select_panel_ = true;
    predict_ = step.predict;
    trace_step_ = 0;  // the block trace starts again at its first warp's stores
    pick_ = -1;
    reveal_now_ = false;
    if (step.action == "animate") {
        playing_ = true;
        position_ = 0.0;
        anim_time_ = 0.0f;
    }
    layer_on_step_ = false;
    if (panel_ == Panel::Trained) {
        // The trained tab keeps its weights across steps: it loads or trains once.
        trained_playing_ = true;
        trained_stage_ = 0.0;
        run_on_step_ = trained_ == nullptr;
        // Its Timing: a layer of the step's shape (conv2's), from this session's cache or measured.
        const std::string key = core::conv2d_config_key(current_params());
        if (const auto hit = cache_.find(key)) {
            if (layer_result_ != hit->result) show(hit->result, /*fresh=*/false);
        } else {
            if (layer_result_ && core::conv2d_config_key(layer_result_->run.params) != key) layer_result_.reset();
            layer_on_step_ = params_.layer_mode;
        }
        return;
    }
    // Every tab draws measured data, so a step measures when the result on screen is for other
    // settings (or there is none yet for the mode the step shows), unless this session measured
    // these settings already: then that result shows at once, labelled, and R measures again.
    run_on_step_ = false;
    const std::string key = core::conv2d_config_key(current_params());
    if (const auto hit = cache_.find(key)) {
        const ConvMeasurement* shown = params_.layer_mode ? layer_result_.get() : result_.get();
        if (shown != hit->result.get()) show(hit->result, /*fresh=*/false);
        host_.show_cached(hit->measured_unix_s, hit->origin);
        return;
    }
    // Never the previous step's picture and numbers under this step's heading while it measures.
    std::shared_ptr<const ConvMeasurement>& shown = params_.layer_mode ? layer_result_ : result_;
    if (shown && core::conv2d_config_key(shown->run.params) != key) {
        shown.reset();
        textures_dirty_ = true;
    }
    if (step.action == "run" || !shown) run_on_step_ = true;
}

// [SECTION] runs

core::Conv2dParams Conv2dView::current_params() const {
    core::Conv2dParams p = params_;
    p.image_path = use_file_ ? loaded_image_ : std::string();
    if (p.filter == "custom" && p.filter_path.empty()) {
        p.custom_filter = core::Tensor::zeros({1, 1, custom_size_, custom_size_});
        std::copy(custom_values_.begin(), custom_values_.begin() + custom_size_ * custom_size_,
                  p.custom_filter.data.begin());
    }
    return p;
}

bool Conv2dView::start_run() {
    if (panel_ == Panel::Trained) return start_trained_run();
    return start_measure_run();
}

bool Conv2dView::start_measure_run() {
    if (use_file_ && loaded_image_.empty()) {
        host_.error = "no image loaded: enter a path and press Load, or drop a PNG/JPG on the window";
        return false;
    }
    const core::Conv2dParams params = current_params();
    const std::vector<core::Backend*> backends = backends_;
    return host_.submit("convolution", [this, params, backends](const core::ProgressFn& progress) {
        auto m = measure(params, backends, false, progress);
        return std::function<void()>([this, m] { finish(m); });
    });
}

void Conv2dView::request_run() {
    if (host_.refuse_if_busy()) return;
    start_run();
}

void Conv2dView::run_blocking(bool quick) {
    run_on_step_ = false;
    if (panel_ == Panel::Trained) {
        // Headless: the trained tab's job on this thread; with --quick a few batches when no saved
        // file exists, said so in the label.
        run_trained_blocking(quick);
        if (layer_on_step_) {
            layer_on_step_ = false;
            finish(measure(current_params(), backends_, quick, {}));
        }
        return;
    }
    finish(measure(current_params(), backends_, quick, {}));
    // The exported window shows the sliding window part-way down the picture, where the test
    // image has edges for the filter to find, rather than in the blank top-left corner.
    // Per channel it sits in the green plane, so the export shows that the planes take turns.
    if (!params_.layer_mode && result_) {
        const int64_t pq = result_->run.desc.out_height() * result_->run.desc.out_width();
        const int64_t q_count = std::max<int64_t>(result_->run.desc.out_width(), 1);
        const int64_t first = per_channel_result() ? pq : 0;
        position_ = static_cast<double>(
            std::min(positions() - 1, first + (pq / q_count) * 11 / 20 * q_count + q_count * 2 / 5));
        playing_ = false;
    }
}

void Conv2dView::finish(std::shared_ptr<const ConvMeasurement> m) {
    if (!m->run.ok) {
        if (m->run.error == "cancelled")
            host_.info = (m->run.params.layer_mode ? layer_result_ : result_)
                             ? "measurement cancelled; the panels show the previous result"
                             : "measurement cancelled";
        else
            host_.error = m->run.error;
        return;
    }
    cache_.put(core::conv2d_config_key(m->run.params), m, core::conv2d_run_bytes(m->run), m->run.started_unix_s);
    show(std::move(m), /*fresh=*/true);
    host_.error.clear();
}

void Conv2dView::show(std::shared_ptr<const ConvMeasurement> m, bool fresh) {
    if (m->run.params.layer_mode) {
        layer_result_ = std::move(m);
        device_output_tag_.forget();
    } else {
        result_ = std::move(m);
        if (fresh) {
            std::vector<uint64_t> generations;
            for (const core::Backend* b : backends_) generations.push_back(b->output_generation());
            device_output_tag_.remember(std::move(generations), host_.jobs->busy());
        } else {
            device_output_tag_.forget();  // the GPU's buffers hold later runs' outputs now
        }
        position_ = std::min(position_, static_cast<double>(std::max<int64_t>(positions() - 1, 0)));
        trace_block();  // one block of the tiled kernel on the new image: milliseconds
    }
    textures_dirty_ = true;
}

void Conv2dView::update(float dt) {
    anim_time_ += dt;
    if (textures_ramp_ != diverging_ramp()) textures_dirty_ = true;  // the View menu's palette changed
    update_trained(dt);
    if (textures_dirty_) update_textures();
    if (playing_ && positions() > 0) {
        position_ += static_cast<double>(dt) * speed_;
        if (position_ >= static_cast<double>(positions())) position_ = 0.0;  // loop: class keeps watching
    }
    if (result_ && position_channel() != output_plane_) show_output_plane(position_channel());
    if (host_.jobs->busy()) return;
    if (run_on_step_) {
        run_on_step_ = false;
        start_run();
    } else if (layer_on_step_) {
        layer_on_step_ = false;
        start_measure_run();
    }
}

void Conv2dView::prepare_frame() {
    if (textures_ramp_ != diverging_ramp()) textures_dirty_ = true;
    if (textures_dirty_) update_textures();
    if (result_ && position_channel() != output_plane_) show_output_plane(position_channel());
    for (auto* t : {output_tex_.get(), pooled_tex_.get()})
        if (t) t->poll_timing();
}

int64_t Conv2dView::positions() const {
    // N is 1 in grayscale and 3 per channel: the window visits every plane in turn.
    return result_ ? result_->run.desc.batch * result_->run.desc.out_height() * result_->run.desc.out_width() : 0;
}

void Conv2dView::position_pq(int64_t& p, int64_t& q) const {
    const int64_t w = result_ ? std::max<int64_t>(result_->run.desc.out_width(), 1) : 1;
    const int64_t pq = result_ ? std::max<int64_t>(result_->run.desc.out_height() * w, 1) : 1;
    const int64_t i = std::clamp<int64_t>(static_cast<int64_t>(position_), 0, std::max<int64_t>(positions() - 1, 0));
    p = (i % pq) / w;
    q = i % w;
}

int64_t Conv2dView::position_channel() const {
    if (!result_) return 0;
    const int64_t pq = std::max<int64_t>(result_->run.desc.out_height() * result_->run.desc.out_width(), 1);
    const int64_t i = std::clamp<int64_t>(static_cast<int64_t>(position_), 0, std::max<int64_t>(positions() - 1, 0));
    return std::min(i / pq, result_->run.desc.batch - 1);
}

bool Conv2dView::per_channel_result() const {
    return result_ && result_->run.params.per_channel && result_->run.desc.batch == 3;
}

const ConvMeasurement* Conv2dView::shown() const {
    if (params_.layer_mode) return layer_result_ ? layer_result_.get() : result_.get();
    return result_ ? result_.get() : layer_result_.get();
}

void Conv2dView::show_output_plane(int64_t channel) {
    if (!result_) return;
    const core::Conv2dRun& r = result_->run;
    const core::Conv2dDesc& d = r.desc;
    channel = std::clamp<int64_t>(channel, 0, d.batch - 1);
    output_plane_ = channel;
    if (!output_tex_) output_tex_ = std::make_unique<TensorTexture>();
    const int qw = static_cast<int>(d.out_width()), ph = static_cast<int>(d.out_height());
    const int64_t plane = d.out_height() * d.out_width();
    // Output (N, K, P, Q): the first filter's plane of picture n.
    const int64_t offset = channel * d.filters * plane;
    // The GPU's own output straight from device memory where it can; else the reference.
    display_note_.clear();
    for (std::size_t i = 0; i < r.reports.size() && i < backends_.size(); ++i) {
        const auto& rep = r.reports[i];
        if (!device_output_tag_.current(i, backends_[i]->output_generation(), host_.jobs->busy())) continue;
        const void* dptr = backends_[i]->device_output();
        if (rep.ran && rep.check.pass && rep.kind == core::BackendKind::Gpu && dptr &&
            output_tex_->set_from_device(static_cast<const float*>(dptr) + offset, qw, ph, output_range_)) {
            display_note_ = rep.backend + " output via CUDA-GL interop";
            break;
        }
    }
    // No GPU ran (no driver, no device): the real kernel's output from the simulator, when it matched.
    const bool gpu_ran = std::any_of(r.reports.begin(), r.reports.end(), [](const core::BackendReport& rep) {
        return rep.ran && rep.kind == core::BackendKind::Gpu;
    });
    if (display_note_.empty() && !gpu_ran && r.simulated_output.size() >= offset + plane) {
        output_tex_->set_from_host(r.simulated_output.ptr() + offset, qw, ph, output_range_);
        display_note_ = r.simulated_backend + " output (the CUDA kernel, simulated on the CPU), host upload";
    }
    if (display_note_.empty() && r.reference_output.size() >= offset + plane) {
        output_tex_->set_from_host(r.reference_output.ptr() + offset, qw, ph, output_range_);
        display_note_ = "cpu-scalar reference output, host upload";
    }
    if (per_channel_result()) display_note_ += std::string(", channel ") + kChannelNames[channel];
    const auto& s = result_->pooled.shape;
    if (result_->pooled.size() > 0 && s.size() >= 2) {
        const int64_t pooled_plane = s.back() * s[s.size() - 2];
        const int64_t pooled_offset = channel * d.filters * pooled_plane;
        if (result_->pooled.size() >= pooled_offset + pooled_plane) {
            if (!pooled_tex_) pooled_tex_ = std::make_unique<TensorTexture>();
            pooled_tex_->set_from_host(result_->pooled.ptr() + pooled_offset, static_cast<int>(s.back()),
                                       static_cast<int>(s[s.size() - 2]), output_range_);
        }
    }
}

void Conv2dView::update_textures() {
    textures_dirty_ = false;
    textures_ramp_ = diverging_ramp();
    if (result_) {
        const core::Conv2dRun& r = result_->run;
        const core::Conv2dDesc& d = r.desc;
        const int w = static_cast<int>(d.width), h = static_cast<int>(d.height);
        const int64_t in_plane = d.height * d.width, plane = d.out_height() * d.out_width();
        const bool rgb = per_channel_result();
        const float* in = r.input.ptr();
        if (rgb && r.input.size() >= 3 * in_plane)
            input_tex_.set_rgb(in, in + in_plane, in + 2 * in_plane, w, h, 0.0f, 1.0f);
        else
            input_tex_.set_gray(in, w, h, 0.0f, 1.0f);
        // One range for all planes: the same edge reads as equally strong whichever plane it is in.
        const float range =
            display_range(r.reference_output.ptr(), std::min(r.reference_output.size(), rgb ? 3 * d.filters * plane
                                                                                              : plane));
        output_range_ = diverging_range(-range, range);
        show_output_plane(position_channel());
        if (rgb && r.reference_output.size() >= 3 * d.filters * plane) {
            const int qw = static_cast<int>(d.out_width()), ph = static_cast<int>(d.out_height());
            const float* out[3];
            for (int64_t n = 0; n < 3; ++n) {
                plane_in_tex_[n].set_gray(in + n * in_plane, w, h, 0.0f, 1.0f, channel_tint(n));
                if (!plane_out_tex_[n]) plane_out_tex_[n] = std::make_unique<TensorTexture>();
                out[n] = r.reference_output.ptr() + n * d.filters * plane;
                plane_out_tex_[n]->set_from_host(out[n], qw, ph, output_range_);
            }
            // Recombined: a filter whose weights sum to about 1 keeps the picture's brightness, so
            // its outputs are shown as they are; a zero-sum filter (edges) answers around 0, so
            // 0 becomes mid-grey; any other sum is divided out.
            double sum = 0.0;
            for (int64_t i = 0; i < d.kernel * d.kernel && i < r.filters.size(); ++i) sum += r.filters.data[i];
            if (std::fabs(sum - 1.0) < 0.05) {
                recombined_tex_.set_rgb(out[0], out[1], out[2], qw, ph, 0.0f, 1.0f);
                recombined_note_ = "weights sum to 1, values shown as they are (0 black, 1 full colour)";
            } else if (std::fabs(sum) < 0.05) {
                recombined_tex_.set_rgb(out[0], out[1], out[2], qw, ph, -range, range);
                recombined_note_ = "weights sum to 0, so 0 is mid-grey, brighter above, darker below";
            } else {
                const float fsum = static_cast<float>(sum);
                const float lo = sum > 0 ? 0.0f : fsum, hi = sum > 0 ? fsum : 0.0f;
                recombined_tex_.set_rgb(out[0], out[1], out[2], qw, ph, lo, hi);
                recombined_note_ = "weights sum to " + core::format_fixed(sum, 2) + ", values divided by it";
            }
        }
    }
    if (layer_result_) {
        const core::Conv2dRun& r = layer_result_->run;
        const core::Conv2dDesc& d = r.desc;
        constexpr int64_t kMaxShown = 8;  // small multiples beyond this would be too small to read
        const int64_t c_shown = std::min(d.channels, kMaxShown), k_shown = std::min(d.filters, kMaxShown);
        channel_tex_.resize(static_cast<std::size_t>(c_shown));
        feature_tex_.resize(static_cast<std::size_t>(k_shown));
        const int64_t in_plane = d.height * d.width, out_plane = d.out_height() * d.out_width();
        const float in_range = max_abs(r.input.ptr(), std::min(r.input.size(), in_plane * d.channels));
        const float out_range =
            display_range(r.reference_output.ptr(), std::min(r.reference_output.size(), out_plane * d.filters));
        for (int64_t c = 0; c < c_shown; ++c) {
            auto& t = channel_tex_[static_cast<std::size_t>(c)];
            if (!t) t = std::make_unique<TensorTexture>();
            if (r.input.size() >= (c + 1) * in_plane)
                t->set_from_host(r.input.ptr() + c * in_plane, static_cast<int>(d.width), static_cast<int>(d.height),
                                 diverging_range(-in_range, in_range));
        }
        for (int64_t k = 0; k < k_shown; ++k) {
            auto& t = feature_tex_[static_cast<std::size_t>(k)];
            if (!t) t = std::make_unique<TensorTexture>();
            if (r.reference_output.size() >= (k + 1) * out_plane)
                t->set_from_host(r.reference_output.ptr() + k * out_plane, static_cast<int>(d.out_width()),
                                 static_cast<int>(d.out_height()), diverging_range(-out_range, out_range));
        }
    }
}

// [SECTION] input images

bool Conv2dView::try_load_image(const std::string& path) {
    try {
        core::Tensor t = params_.per_channel ? core::load_image_rgb(path) : core::load_image_gray(path);
        loaded_image_ = path;
        host_.info = "loaded " + path + " " + t.shape_string();
        host_.error.clear();
        return true;
    } catch (const std::exception& e) {
        host_.error = e.what();  // the previous input stays in use
        return false;
    }
}

void Conv2dView::drop_files(const std::vector<std::string>& paths) {
    if (paths.empty()) return;
    std::strncpy(path_buf_, paths.front().c_str(), sizeof path_buf_ - 1);
    if (try_load_image(paths.front())) {
        use_file_ = true;
        params_.layer_mode = false;
        if (!host_.jobs->busy()) start_run();
    }
}

// [SECTION] CSV and caption

std::vector<std::string> conv_caption_lines(const core::Conv2dRun& run, std::string_view lesson_title) {
    std::vector<std::string> lines = machine_caption_lines(lesson_title, run.started_unix_s);
    std::string what =
        run.params.layer_mode
            ? "CNN layer, random data and filters"
            : "filter " + run.params.filter + " on " +
                  (run.params.image_path.empty() ? std::string("the built-in test image")
                                                 : std::filesystem::path(run.params.image_path).filename().string()) +
                  (run.params.per_channel ? ", per channel (R, G, B filtered separately: N=3, C=1)" : ", grayscale");
    lines.push_back("Convolution (cross-correlation, no kernel flip): " + what);
    lines.push_back(run.desc.to_string() + ", " + core::format_fixed(run.desc.flops() / 1e6, 2) + " MFLOP per run");
    return lines;
}

std::string conv_csv(const core::Conv2dRun& run, const std::vector<std::string>& caption,
                     const core::ImportedConv* other) {
    std::ostringstream o;
    for (const auto& line : caption) o << "# " << line << "\n";
    o << "backend,median_ns,min_ns,max_ns,samples,gflops,implementation,verdict,source\n";
    const std::string source = "," + core::csv_field(shown_result_source()) + "\n";
    for (const core::BackendReport& r : run.reports) {
        o << core::csv_field(r.backend) << ",";
        if (r.ran) {
            const std::string verdict = r.check.pass ? r.check.verdict
                                                     : (r.check.verdict.empty() ? "MISMATCH" : r.check.verdict);
            const bool timed = core::kind_is_timed(r.kind);  // cuda-sim: no GFLOP/s, its time labelled
            o << r.total.median_ns << "," << r.total.min_ns << "," << r.total.max_ns << "," << r.total.samples << ","
              << (timed ? core::format_fixed(r.gflops, 3) : std::string()) << "," << core::csv_field(r.implementation)
              << "," << core::csv_field(timed ? verdict : "simulated on the CPU, time not a GPU speed: " + verdict)
              << source;
        } else {
            const std::string why = !r.availability.ok ? r.availability.reason
                                    : r.error.empty()  ? std::string("skipped")
                                                       : r.error;
            o << ",,,0,,," << core::csv_field("not run: " + why) << source;
        }
    }
    // A recording's GPU rows, as it wrote them (its note is the implementation that ran there).
    if (other && !other->recorded_source.empty())
        for (const core::ImportedConvBackend& b : other->backends)
            if (b.ran)
                o << core::csv_field(b.backend) << "," << b.median_ns << "," << b.min_ns << "," << b.max_ns << ","
                  << b.samples << "," << core::format_fixed(b.gflops, 3) << "," << core::csv_field(b.note) << ",,"
                  << core::csv_field(other->recorded_source) << "\n";
    return o.str();
}

// [SECTION] export

ExportResult Conv2dView::export_files(const ViewExport& in) {
    ExportResult result;
    const ConvMeasurement* m = shown();
    if (!m) {
        result.message = "nothing to export yet: run the measurement first (R)";
        return result;
    }
    if (textures_dirty_) update_textures();
    ExportWriter out(in.out_dir, in.lesson_id);
    if (!out.ok()) return out.failed();
    const core::Conv2dRun& run = m->run;
    std::vector<std::string> caption = conv_caption_lines(run, in.lesson_title);
    std::string error;

    if (!out.text("-conv.csv", conv_csv(run, caption, comparison(run)))) return out.failed();
    for (std::string& line : comparison_caption(run)) caption.push_back(std::move(line));

    const std::filesystem::path png = out.path("-conv.png");
    const bool pictures = !run.params.layer_mode && result_ && input_tex_.id() != 0 && output_tex_;
    const bool colour = pictures && per_channel_result() && recombined_tex_.id() != 0;
    const bool ok = render_panel_png(in.ui_scale, 1200, png.string(), error, [&](const Fonts& fonts, float scale) {
        draw_export_heading(fonts, in.lesson_title + ": one filter, every output pixel independent");
        draw_caption_block(caption);
        ImGui::Spacing();
        if (pictures) {
            const float side = 300.0f * scale;
            auto image = [&](const char* title, GLuint id, float w, float h) {
                ImGui::BeginGroup();
                ImGui::TextUnformatted(title);
                const float s = side / std::max(w, h);
                ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(id)), {w * s, h * s});
                ImGui::EndGroup();
            };
            image(("input " + std::string(colour ? "R, G, B " : "") + std::to_string(run.desc.height) + " x " +
                   std::to_string(run.desc.width))
                      .c_str(),
                  input_tex_.id(), static_cast<float>(input_tex_.width()), static_cast<float>(input_tex_.height()));
            ImGui::SameLine();
            ImGui::BeginGroup();
            ImGui::Text("filter %s, %lld x %lld", run.params.filter.c_str(), static_cast<long long>(run.desc.kernel),
                        static_cast<long long>(run.desc.kernel));
            draw_filter_grid(run.filters, run.desc.kernel, 150.0f * scale);
            ImGui::EndGroup();
            ImGui::SameLine();
            const std::string out_size =
                std::to_string(run.desc.out_height()) + " x " + std::to_string(run.desc.out_width());
            if (colour) {
                image(("output R, G, B " + out_size).c_str(), recombined_tex_.id(),
                      static_cast<float>(recombined_tex_.width()), static_cast<float>(recombined_tex_.height()));
                ImGui::TextColored(kMutedColour, "each colour plane filtered on its own (N=3, C=1), recombined: %s",
                                   recombined_note_.c_str());
            } else {
                image(("output " + out_size).c_str(), output_tex_->rgba_texture(),
                      static_cast<float>(output_tex_->width()), static_cast<float>(output_tex_->height()));
                ImGui::TextColored(kMutedColour, "output: %s; blue below zero, white at zero, %s above",
                                   display_note_.c_str(), diverging_positive_word());
            }
        }
        ImGui::Spacing();
        draw_export_heading(fonts, "Every backend, same input and filter (medians; GFLOP/s from 2 x taps x outputs)");
        draw_backend_bars(run, ImGui::GetContentRegionAvail().x, /*compact=*/false);
        // A recording or an estimate is in the bars above, in its GPU rows; a loaded machine gets its own chart.
        if (const core::ImportedConv* other = other_ ? comparison(run) : nullptr) {
            ImGui::Spacing();
            draw_export_heading(fonts, "This machine vs the " + other_name(*other) + " (longer bars are faster)");
            draw_comparison_bars(run, ImGui::GetContentRegionAvail().x);
        }
    });
    if (!out.picture(png, ok, error)) return out.failed();
    if (block_trace_ && block_trace_->ok) {
        // One block of the real tiled kernel from its cuda-sim trace (conv2d_block_trace.cpp).
        const std::filesystem::path trace_png = out.path("-block-trace.png");
        const bool traced =
            render_panel_png(in.ui_scale, 1100, trace_png.string(), error, [&](const Fonts& fonts, float) {
                draw_export_heading(fonts, in.lesson_title + ": inside one block of the tiled kernel");
                draw_caption_block(caption);
                ImGui::Spacing();
                draw_block_trace(ImGui::GetContentRegionAvail().x, false);
            });
        if (!out.picture(trace_png, traced, error)) return out.failed();
    }
    result = out.finish(in.window_rgba, in.window_width, in.window_height);
    if (result.ok && comparison(run)) result.message += compare_export_note(*comparison(run), comparison_mismatch(run));
    return result;
}

std::string Conv2dView::export_description() const {
    return "Write <lesson>-conv.png (input, filter, output and every backend's timing with GFLOP/s, with a caption "
           "naming this machine), <lesson>-block-trace.png (one block of the tiled kernel traced on cuda-sim), "
           "<lesson>-window.png and <lesson>-conv.csv (per backend: median, min, max, samples, "
           "GFLOP/s, implementation, verdict).";
}

std::string Conv2dView::measurement_csv(const std::string& lesson_title) const {
    const ConvMeasurement* m = shown();
    return m ? conv_csv(m->run, conv_caption_lines(m->run, lesson_title), comparison(m->run)) : std::string();
}

// [SECTION] status bar

void Conv2dView::draw_status() {
    if (!output_tex_) {
        ImGui::TextColored(kMutedColour, "display: nothing shown yet");
        return;
    }
    const DisplayStatus& ds = output_tex_->status();
    const bool interop = ds.path == DisplayPath::Interop;
    ImGui::TextColored(interop ? kOkColour : kAccentColour, "%s",
                       interop ? "display: CUDA-GL interop" : "display: host upload");
    hover_tip(("Path of the last output picture: " + ds.reason + "\n\nShowing: " + display_note_).c_str());
    if (!ds.interop_ok && !ds.interop_reason.empty()) {
        ImGui::SameLine();
        ImGui::TextColored(kMutedColour, "(interop not possible here)");
        hover_tip(ds.interop_reason.c_str());
    }
}

}  // namespace gpulab::app
