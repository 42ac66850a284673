// How one output map of a trained CNN layer is made from its input channels, as numbers: for one
// picture, the maps that enter a convolution layer (conv2 of the lesson's model gets 32 maps of
// 13x13 after conv1, ReLU and pooling), and for ONE output filter k the C partial maps (slice c of
// filter k, R x S, slid over input channel c), their running sum in channel order, + bias = the
// layer's output map (before ReLU), then ReLU. The convolution lesson's "Channels in a trained
// network" panel draws exactly these numbers (app/views/conv2d/conv2d_trained.cpp).
//
// Where the learned weights come from is here too: a file of learned parameters in the user's cache
// folder ($XDG_CACHE_HOME/gpulab, else ~/.cache/gpulab), `trained-params-<model hash>.npy` (written
// with core's own .npy writer) beside `trained-params-<model hash>.txt` (how they were learned and a
// checksum of the .npy's numbers). Both are written to temporary files and renamed into place; a
// file that is missing, unreadable, of another model or whose checksum disagrees is refused with
// one sentence, and the caller trains again.
//
// Plain C++ (no GL, no ImGui). Verified by tests/test_channel_partials.cpp: the partial maps + bias
// against the engines' own convolution forward (cpu-scalar's loops and cpu-parallel's), the forward
// chain against the cpu-parallel engine's logits, the file's round trip, and corrupt or foreign
// files refused and retrained.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dataset.h"
#include "model.h"
#include "race.h"

namespace gpulab::train {

// [SECTION] the numbers of one output map

// Runs layers [0, end_layer) of `model` on one image (model.input floats) with cpu-scalar's
// reference loops, batch of one; returns the activations that enter layer `end_layer`. Throws
// core::InputError for parameters of the wrong count or end_layer past the last layer.
std::vector<float> forward_to(const ModelDesc& model, const std::vector<float>& params, const float* image,
                              std::size_t end_layer);

// The index in model.layers of the `nth` (0-based) convolution, or -1 when the model has fewer.
int conv_layer_index(const ModelDesc& model, int nth);

struct ChannelPartials {
    std::int64_t channels = 0;      // C: input channels of the layer
    std::int64_t in_h = 0, in_w = 0;  // each input map
    std::int64_t kernel = 0;        // R = S
    std::int64_t out_h = 0, out_w = 0;  // P, Q
    std::int64_t filter = 0;        // k, the output filter shown
    std::int64_t filters = 0;       // K, how many the layer has
    std::vector<float> inputs;      // C x H x W: the layer's input maps
    std::vector<float> slices;      // C x R x S: filter k's weights, one slice per input channel
    std::vector<float> partials;    // C x P x Q: slice c slid over input channel c
    std::vector<float> running;     // C x P x Q: partials 0..c added in channel order
    float bias = 0.0f;
    std::vector<float> output;      // P x Q: running[C-1] + bias, the layer's output before ReLU
    std::vector<float> relu;        // P x Q: max(output, 0)
    std::int64_t plane() const { return out_h * out_w; }
};

// The partial maps of output filter `filter` of convolution layer `conv_layer` (an index into
// model.layers) for the layer's input maps `inputs` (layer.in floats). Throws core::InputError for
// a layer that is not a convolution, a filter out of range or inputs of the wrong size.
ChannelPartials channel_partials(const ModelDesc& model, const std::vector<float>& params, std::size_t conv_layer,
                                 const std::vector<float>& inputs, std::int64_t filter);

// The filter of `conv_layer` whose output map (before ReLU) holds the largest value for `inputs`:
// the strongest response, the panel's default choice.
std::int64_t strongest_filter(const ModelDesc& model, const std::vector<float>& params, std::size_t conv_layer,
                              const std::vector<float>& inputs);

// [SECTION] the file of learned parameters

// How the parameters were learned, as written beside them.
struct ParamsRecord {
    std::string model_spec;
    std::int64_t train_images = 0;  // training pictures seen
    std::int64_t batches = 0;
    std::int64_t batch = 0;
    int epochs = 0;                 // started; 1 with a whole epoch or part of one
    bool whole_epoch = false;       // false: stopped after `batches` batches
    std::int64_t test_images = 0;   // how many test pictures the accuracy is measured on
    double test_accuracy = 0.0;     // fraction, 0..1
    std::int64_t trained_unix_s = 0;
    std::string engine;
    // "learned just now from 6,000 Fashion-MNIST pictures, 1 epoch, test accuracy 81.2 % (2,000 test
    // pictures)", "learned on 2025-03-04 from ...", or for part of an epoch "filters after 20 batches
    // (1,280 Fashion-MNIST pictures), test accuracy ..."
    std::string describe(bool just_now) const;
};

struct LearnedParams {
    std::vector<float> params;
    ParamsRecord record;
};

// $XDG_CACHE_HOME/gpulab when XDG_CACHE_HOME is set and absolute, else $HOME/.cache/gpulab; "" when
// neither is known.
std::string params_cache_dir();
// 16 hex digits (FNV-1a, 64 bits) of the model's spec, input shape and class count.
std::string model_hash(const ModelDesc& model);
// <dir>/trained-params-<hash>.npy and the record beside it, <dir>/trained-params-<hash>.txt.
std::string params_file_path(const std::string& dir, const ModelDesc& model);
std::string params_record_path(const std::string& dir, const ModelDesc& model);

// Writes both files atomically (temporary files renamed into place), creating `dir`. Returns "" or
// one sentence saying why they could not be saved (the parameters stay usable in memory).
std::string save_learned_params(const std::string& dir, const ModelDesc& model, const LearnedParams& learned);
// Reads them back. Throws core::InputError with one sentence when either file is missing,
// unreadable or corrupt, belongs to another model, or the record's checksum disagrees with the
// numbers.
LearnedParams load_learned_params(const std::string& dir, const ModelDesc& model);

// [SECTION] getting learned parameters: load them, else train and save

struct ObtainConfig {
    std::string cache_dir;             // "" : neither load nor save
    std::int64_t train_images = 6000;  // the first N training pictures, one epoch
    std::int64_t test_images = 2000;   // the accuracy is measured on the first N test pictures
    std::int64_t batch = 64;
    std::int64_t max_batches = 0;      // > 0: stop after this many (headless --quick); never saved then
    std::string engine = "cpu-parallel";
    std::uint64_t seed = 1;
};

struct ObtainedParams {
    bool ok = false;
    std::string reason;        // why there are none (training failed or was stopped)
    bool stopped = false;      // the callback stopped training
    bool trained_now = false;  // false: loaded from the file
    LearnedParams learned;
    std::string refused;       // why an existing file was not used ("" when none existed or it loaded)
    std::string save_note;     // why the new parameters could not be saved, or that they were not
    std::string file;          // the .npy loaded or written
};

// Loads the file in config.cache_dir when it exists and is good; otherwise trains `engine` from
// init_params(seed) for one epoch (or max_batches) on the first train_images of `data`, measures
// the accuracy on the first test_images, and saves (whole epochs only). `on_batch` sees every batch
// and may stop it. Never throws.
ObtainedParams obtain_learned_params(const Dataset& data, const ModelDesc& model, const ObtainConfig& config,
                                     const LaneCallback& on_batch = {});

}  // namespace gpulab::train
