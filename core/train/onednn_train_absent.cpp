// cpu-onednn for training when gpulab was built without oneDNN: an engine that reports why and
// refuses to run (see onednn_train_engine.h). GPULAB_ONEDNN_WHY comes from core/CMakeLists.txt.
#include "io/image_io.h"
#include "onednn_train_engine.h"

namespace gpulab::train {

namespace {

class AbsentOnednnEngine final : public TrainEngine {
public:
    std::string_view name() const override { return "cpu-onednn"; }
    std::string_view description() const override { return "oneDNN's training primitives (not built)"; }
    core::Availability availability() const override { return {false, GPULAB_ONEDNN_WHY}; }
    void setup(const ModelDesc&, const std::vector<float>&, std::int64_t) override {
        throw core::InputError(std::string("cpu-onednn is not available: ") + GPULAB_ONEDNN_WHY);
    }
    void forward(const float*, std::int64_t) override {}
    BatchResult backward(const std::uint8_t*) override { return {}; }
    void step(const Sgd&) override {}
    std::vector<float> logits() const override { return {}; }
    std::vector<float> gradients() const override { return {}; }
    std::vector<float> params() const override { return {}; }
    std::vector<LayerTime> layer_times() const override { return {}; }
};

}  // namespace

std::unique_ptr<TrainEngine> make_onednn_train_engine() { return std::make_unique<AbsentOnednnEngine>(); }

}  // namespace gpulab::train
