// The convolution lesson's view (lesson conv-sliding-window). One job on the worker runs
// core::run_conv2d on every backend for the current settings (a grayscale picture, a colour
// picture per channel: R, G, B filtered separately as N=3 C=1, or the CNN-layer mode with C input
// channels and K filters) and 2x2 max pooling of the result. The
// canvas has four tabs: the sliding window step by step (the real input values, filter values,
// products and sum of the current position, the output pixel it fills), all at once (the output
// tiled into the 16x16 thread blocks of the CUDA tiled kernel, lighting up in waves of
// SMs x resident blocks of this machine's GPU or of a labelled example GPU, beside one SM up close:
// its resident warps and warp schedulers, conv2d_sm_warps.cpp), the channels of a
// CNN layer as small multiples, pooling, and "Trained channels" (conv2d_trained.cpp): one output map
// of conv2 of the training lesson's model, with weights learned on Fashion-MNIST, built up from its
// 32 per-input-channel partial maps plus the bias (core/train/channel_partials.h). The Timing window has the predict prompt and a bar
// per backend with GFLOP/s, the ratio to the plain loop, the implementation and the verdict.
// Export writes <lesson>-conv.png, <lesson>-window.png and <lesson>-conv.csv.
// Verified by the gui.conv_* tests in tests/conv_gui_tests.cmake and by the screenshots.
#pragma once

#include <glad/gl.h>
#include <imgui.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/device_output_tag.h"
#include "measure/result_cache.h"
#include "runtime/memory.h"
#include "views/lesson_view.h"
#include "views/recorded_gpu.h"
#include "render/tensor_texture.h"
#include "sim/sim_trace_runs.h"
#include "train/channel_partials.h"
#include "workloads/conv2d_workload.h"
#include "views/result_headline.h"

namespace gpulab::app {

// One measurement job's result; immutable once handed to the main thread.
struct ConvMeasurement {
    core::Conv2dRun run;
    core::Tensor pooled;     // max_pool_2x2 of the reference output (N, K, P/2, Q/2)
    std::string pool_error;  // why `pooled` is empty
};

// How a GPU would schedule the tiled kernel over `planes` output planes of P x Q (N*K: one per
// picture and filter): the numbers the "all at once" tab draws. kernels/conv2d/conv2d.cu launches a grid
// of ceil(Q/16) x ceil(P/16) x planes blocks (z capped at 65,535, each z-block then looping over
// planes). From gpu::probe() and the device's occupancy query when a device exists, else an example
// GPU with the occupancy estimated from the register count nvcc reported (core/gpu_model/gpu_model.h).
struct BlockSchedule {
    static constexpr int kTile = 16;  // the tiled kernel's block: 16 x 16 threads, one output each
    static constexpr int64_t kMaxGridZ = 65535;
    int64_t blocks_x = 0, blocks_y = 0, planes = 1, blocks = 0, threads = 0;
    int sm_count = 0;
    int blocks_per_sm = 0;  // resident at once: the device's occupancy query, else the estimate below
    bool occupancy_estimated = false;  // true: from threads, blocks and `registers`, not asked of a device
    int registers = 0;                 // per thread, as nvcc reported it, for the estimate
    int64_t wave = 0;       // sm_count * blocks_per_sm
    int64_t waves = 0;
    bool example = false;  // true: not this machine (no GPU here); `gpu_name` names the example
    int cc_major = 0, cc_minor = 0;  // of that GPU: schedulers and FP32 lanes per SM (core/gpu_model/gpu_model.h)
    std::string gpu_name;
    std::string why;  // why the example is used
};
BlockSchedule block_schedule(int64_t out_h, int64_t out_w, int64_t planes = 1, int kernel = 3, int stride = 1);

// The lesson's CSV: caption lines as # comments, then one row per backend.
// `other`: a shipped GPU recording's rows follow this machine's; every row's last column says where
// it was measured (issue 39).
std::string conv_csv(const core::Conv2dRun& run, const std::vector<std::string>& caption,
                     const core::ImportedConv* other = nullptr);
std::vector<std::string> conv_caption_lines(const core::Conv2dRun& run, std::string_view lesson_title);

// The first filter's R x S weights as coloured cells with their values (on the diverging map: red,
// or orange, adds; blue subtracts), `width` pixels wide at most; advances the cursor.
void draw_filter_grid(const core::Tensor& filters, int64_t kernel, float width);
// Dark text on light cells, light text on dark ones (the numbers written into coloured cells).
ImU32 text_on(ImU32 bg);

// An RGBA8 texture of a picture with values in [lo, hi], for the input photo (a photo in a diverging
// colour map would read as a weather chart): one plane as grayscale or as shades of one colour, or
// three planes as a colour picture.
class PictureTexture {
  public:
    PictureTexture() = default;
    ~PictureTexture();
    PictureTexture(const PictureTexture&) = delete;
    PictureTexture& operator=(const PictureTexture&) = delete;
    // One plane of width*height floats; `tint` white gives grayscale, red shows a picture's R plane.
    void set_gray(const float* data, int width, int height, float lo, float hi, ImVec4 tint = {1, 1, 1, 1});
    // Three planes of width*height floats each, drawn as the red, green and blue of one picture.
    void set_rgb(const float* r, const float* g, const float* b, int width, int height, float lo, float hi);
    GLuint id() const { return id_; }
    int width() const { return width_; }
    int height() const { return height_; }

  private:
    void upload(const std::vector<uint8_t>& rgba, int width, int height);
    GLuint id_ = 0;
    int width_ = 0, height_ = 0;
};

// The per-channel mode's names: plane n of the colour input is kChannelNames[n].
inline constexpr const char* kChannelNames[3] = {"R", "G", "B"};
ImVec4 channel_tint(int64_t n);  // red, green or blue for plane n, white beyond

// The "Trained channels" tab's model and where its weights came from; made on the worker, immutable
// once handed to the main thread.
struct TrainedChannels {
    train::ModelDesc model;
    std::vector<float> params;
    bool learned = false;     // false: random weights (He initialisation, seed 1), never trained
    std::string provenance;   // the sentence that says exactly what the filters are
    std::string note;         // a refused file, a cache folder that could not be written, ...
    std::string file;         // the .npy the weights came from or went to ("" when none)
    // The pictures the student can pick: Fashion-MNIST test images (28x28 floats in [0, 1]) with their
    // labels, or, without the data set, the built-in test image with label -1.
    std::vector<std::vector<float>> pictures;
    std::vector<int> labels;
};

class Conv2dView : public LessonView {
  public:
    enum class Panel { Sliding, AllAtOnce, Channels, Pooling, Trained };

    explicit Conv2dView(ViewHost& host);
    ~Conv2dView() override;

    void enter_step(const core::LessonStep& step) override;
    void update(float dt) override;
    void prepare_frame() override;
    void request_run() override;
    void run_blocking(bool quick) override;
    bool has_result() const override {
        return result_ != nullptr || layer_result_ != nullptr || trained_ != nullptr;
    }
    std::string result_headline() const override {
        const ConvMeasurement* m = layer_on_step_ && layer_result_ ? layer_result_.get() : result_.get();
        return m ? medians_headline(m->run.reports) : std::string();
    }

    void draw_canvas() override;
    void draw_timing() override;
    void draw_controls() override;
    void draw_status() override;
    void drop_files(const std::vector<std::string>& paths) override;
    void set_animation_time(float seconds) override { anim_time_ = seconds; }
    bool load_comparison(const std::string& path, std::string& error) override;
    bool draws_predict_prompt() const override { return true; }
    std::string comparison_file_suffix() const override { return "-conv.csv"; }

    ExportResult export_files(const ViewExport& in) override;
    std::string export_description() const override;
    std::string measurement_csv(const std::string& lesson_title) const override;

  private:
    // [SECTION] canvas (conv2d_canvas.cpp, conv2d_layer.cpp)
    void draw_sliding_panel();
    void draw_all_at_once_panel();
    void draw_channels_panel();
    void draw_colour_planes_panel();
    void draw_pooling_panel();
    // [SECTION] one output map of a trained layer, channel by channel (conv2d_trained.cpp)
    void draw_trained_panel();
    void draw_trained_controls();
    bool start_trained_run();
    void run_trained_blocking(bool quick);
    void finish_trained(std::shared_ptr<const TrainedChannels> t, std::string message);
    void update_trained(float dt);
    void recompute_partials();  // partials_ for trained_picture_ and trained_filter_, on this thread
    void draw_play_controls();
    void draw_window_zoom(const core::Conv2dRun& run, int64_t p, int64_t q, ImVec2 size);
    void draw_input_with_window(const core::Conv2dRun& run, int64_t p, int64_t q, ImVec2 box);
    void draw_output_filling(const core::Conv2dRun& run, int64_t p, int64_t q, ImVec2 box);
    void draw_block_waves(const core::Conv2dRun& run, const BlockSchedule& s, ImVec2 box);
    void draw_block_plane(const BlockSchedule& s, GLuint texture, ImVec2 o, ImVec2 sz, int64_t first_block,
                          int64_t done, int64_t now_end);
    bool draw_result_note(bool layer);
    // One SM of the schedule up close (conv2d_sm_warps.cpp): its resident warps, its warp
    // schedulers issuing from a few of them a cycle, the rest waiting for memory or their turn.
    void draw_sm_warps(const BlockSchedule& s, ImVec2 box);
    // The text beside the blocks and the SM, in its own scrolling child `width` wide.
    void draw_all_at_once_text(const core::Conv2dRun& run, const BlockSchedule& s, float width);
    int all_at_once_part_ = 0;  // the column's part shown when it is cut into parts
    // [SECTION] one block of the tiled kernel, traced on cuda-sim (conv2d_block_trace.cpp)
    void trace_block();  // (re)records block_trace_ for picked_block_ of result_'s plane 0
    // interactive: the stepper's stage (stepped through with the buttons or the T key); a picture
    // (the export): every stage at once, with the counts.
    void draw_block_trace(float width, bool interactive);
    void draw_trace_stepper();

    // [SECTION] controls and timing (conv2d_controls.cpp)
    void draw_filter_controls();
    void draw_custom_editor();
    void draw_predict();
    // `compact` (the window): a line the GPU's own row makes redundant goes to a tooltip; the export
    // (false) keeps every line.
    void draw_backend_bars(const core::Conv2dRun& run, float width, bool compact = true);
    // A GPU backend that cannot run here, drawn from the recording or the estimate: a hatched bar on
    // the live bars' scale and a line saying whose figure it is.
    void draw_stand_in_row(const core::BackendReport& r, const core::ImportedConvBackend& b,
                           const core::ImportedConv& source, float name_w, float bar_w, double best) const;

    // [SECTION] comparison with another machine (conv2d_compare.cpp)
    // "" when the other machine ran the same N,C,H,W,K,R,S shape, else what differs.
    std::string comparison_mismatch(const core::Conv2dRun& run) const;
    // Both machines named, then per backend this machine's bar (solid) over the other's (hatched),
    // length from GFLOP/s, with median and GFLOP/s written beside each.
    void draw_comparison_bars(const core::Conv2dRun& run, float width) const;
    std::vector<std::string> comparison_caption(const core::Conv2dRun& run) const;

    // [SECTION] runs (conv2d_view.cpp)
    core::Conv2dParams current_params() const;
    bool start_measure_run();  // the convolution on every backend (not the trained tab's job)
    bool start_run();
    void finish(std::shared_ptr<const ConvMeasurement> m);
    // Puts a good result on screen, fresh from a run or from the cache (whose GPU buffers are gone).
    void show(std::shared_ptr<const ConvMeasurement> m, bool fresh);
    void update_textures();
    bool try_load_image(const std::string& path);
    int64_t positions() const;  // output positions of the picture result, over all planes (0 when none)
    void position_pq(int64_t& p, int64_t& q) const;  // within the current plane
    int64_t position_channel() const;                 // the plane of the current position (0 in grayscale)
    bool per_channel_result() const;                  // the picture result has R, G, B planes
    void show_output_plane(int64_t channel);          // output_tex_ / pooled_tex_ show this plane
    const ConvMeasurement* shown() const;  // the result of the current mode, else the other one

    ViewHost& host_;
    // The shared backends plus the ones only convolution has (cuda-naive: the one-thread-per-
    // output kernel, shown beside the tiled one because the gap between them is a teaching point).
    core::BackendList conv_only_backends_;
    std::vector<core::Backend*> backends_;

    // Controls, set by steps and by the student.
    core::Conv2dParams params_;
    int custom_size_ = 3;
    std::vector<float> custom_values_;  // custom_size_ * custom_size_, row-major
    bool use_file_ = false;
    char path_buf_[1024] = {};
    std::string loaded_image_;
    Panel panel_ = Panel::Sliding;
    bool select_panel_ = false;
    bool run_on_step_ = false;
    // The trained tab's step also times a layer of the trained layer's shape (its params), after
    // the learned filters are ready: the Timing window is never the previous step's layer.
    bool layer_on_step_ = false;

    // The sliding window: position (0 .. N*P*Q-1, fractional while playing; plane = position / (P*Q)) and speed.
    double position_ = 0.0;
    float speed_ = 2.0f;  // positions per second
    bool playing_ = false;

    std::optional<core::PredictPrompt> predict_;
    int pick_ = -1;
    bool reveal_now_ = false;

    std::shared_ptr<const ConvMeasurement> result_;        // single-channel picture
    std::shared_ptr<const ConvMeasurement> layer_result_;  // CNN-layer mode
    // Every run of this session in either mode, by its settings: a step with the same settings shows
    // it at once instead of measuring again (core/measure/result_cache.h).
    core::ResultCache<const ConvMeasurement> cache_{core::results_cache_bytes()};
    std::unique_ptr<core::ImportedConv> other_;            // another machine's export; null: none
    // The shipped GPU recording's run of the same shape, its GPU rows only (views/recorded_gpu.h),
    // shown where no file was loaded to compare with.
    mutable RecordedMatch<core::ImportedConv> recorded_;
    const core::ImportedConv* comparison(const core::Conv2dRun& run) const;
    bool textures_dirty_ = false;
    DivergingRamp textures_ramp_ = DivergingRamp::BlueRed;  // the palette's ramp the textures were drawn with
    // The backends are shared with every lesson and the worker: a device output is shown only while
    // it still holds result_'s run and no job is running (core/backends/device_output_tag.h).
    core::DeviceOutputTag device_output_tag_;
    PictureTexture input_tex_;  // colour in per-channel mode
    std::unique_ptr<TensorTexture> output_tex_, pooled_tex_;  // the current plane's output and pooling
    int64_t output_plane_ = -1;  // which plane output_tex_ shows
    // The "inside one block" view: the real tiled kernel's block traced on the simulator.
    bool show_block_trace_ = false;
    int picked_block_[2] = {-1, -1};  // bx, by; -1: the middle block
    int picked_thread_ = 16 * 5 + 7;  // linear thread index whose window is outlined
    std::shared_ptr<const sim::ConvBlockTrace> block_trace_;
    // The trace's stepper: which warp stores its part of the tile, the barrier, one thread's window
    // reads, then everything at once. With W warps (8 for 16 x 16 threads): trace_step_ 0..W-1 is
    // warp n's stores, W the barrier, W+1 the picked thread's window, W+2 the whole picture. The
    // counts (sectors, bank passes) are shown on demand.
    int trace_step_ = 0;
    bool trace_counts_ = false;
    ColorRange output_range_;    // one range for every plane, so the planes compare
    // Per channel: each input plane in its colour, each output plane, and the planes recombined.
    PictureTexture plane_in_tex_[3];
    std::unique_ptr<TensorTexture> plane_out_tex_[3];
    PictureTexture recombined_tex_;
    std::string recombined_note_;  // how the recombined output maps values to brightness
    std::vector<std::unique_ptr<TensorTexture>> channel_tex_, feature_tex_;
    std::string display_note_;  // which output the picture shows and by which path
    float anim_time_ = 0.0f;

    // "Trained channels": the weights, the picture and filter picked, and the accumulation's stage:
    // 0 .. C-1 while the partial maps of channels 0..stage are added, C with the bias, C+1 after ReLU.
    std::shared_ptr<const TrainedChannels> trained_;
    int trained_picture_ = 0;
    int trained_filter_ = -1;     // -1: the strongest response, chosen per picture
    std::optional<train::ChannelPartials> partials_;
    int partials_picture_ = -1, partials_filter_ = -2;  // what partials_ was computed for
    std::string partials_error_;
    double trained_stage_ = 0.0;
    float trained_speed_ = 4.0f;  // stages per second
    bool trained_playing_ = false;
};

}  // namespace gpulab::app
