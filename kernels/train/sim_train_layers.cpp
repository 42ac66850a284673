// sim_train_layer_ops(): the training kernels on the SIMT simulator, one layer per call (see
// sim_train_layers.h). The device environment comes first, so the kernel headers compile with the
// host compiler; the launches are the same template code the GPU engine runs.
#include "sim/sim_device_env.h"

#include "train/sim_device.h"
#include "train/train_layers.h"

#include <vector>

#include "train/sim_train_layers.h"

namespace gpulab::sim {

namespace {

template <class T>
SimDevice::Array<T> upload(SimDevice& dev, const char* name, const T* host, std::int64_t count) {
    auto a = dev.alloc<T>(name, static_cast<std::size_t>(count));
    dev.upload(a, host, static_cast<std::size_t>(count));
    return a;
}

train::BatchResult softmax_cross_entropy(std::int64_t n, std::int64_t classes, const float* logits,
                                         const std::uint8_t* labels, float* dlogits) {
    SimDevice dev;
    const auto l = upload(dev, "logits", logits, n * classes);
    const auto y = upload(dev, "labels", labels, n);
    auto loss = dev.alloc<float>("loss", static_cast<std::size_t>(n));
    auto correct = dev.alloc<int>("correct", static_cast<std::size_t>(n));
    auto d = dev.alloc<float>("dlogits", static_cast<std::size_t>(n * classes));
    kern::layers::softmax_cross_entropy(dev, n, static_cast<int>(classes), l.ptr(), y.ptr(), loss.ptr(),
                                        correct.ptr(), d.ptr());
    std::vector<float> per_image(static_cast<std::size_t>(n));
    std::vector<int> hits(static_cast<std::size_t>(n));
    dev.download(loss, per_image.data(), per_image.size());
    dev.download(correct, hits.data(), hits.size());
    dev.download(d, dlogits, static_cast<std::size_t>(n * classes));
    train::BatchResult r;
    for (std::size_t m = 0; m < per_image.size(); ++m) {
        r.loss += per_image[m];
        r.correct += hits[m];
    }
    r.loss /= static_cast<double>(n);
    return r;
}

void sgd_momentum(std::int64_t count, const train::Sgd& sgd, float* w, float* v, const float* g) {
    SimDevice dev;
    const auto dw = upload(dev, "w", w, count);
    const auto dv = upload(dev, "v", v, count);
    const auto dg = upload(dev, "g", g, count);
    kern::layers::sgd_momentum(dev, count, sgd.learning_rate, sgd.momentum, dw.ptr(), dv.ptr(), dg.ptr());
    dev.download(dw, w, static_cast<std::size_t>(count));
    dev.download(dv, v, static_cast<std::size_t>(count));
}

}  // namespace

const train::CpuLayerOps& sim_train_layer_ops() {
    static const train::CpuLayerOps ops{"cuda-sim", nullptr, nullptr, nullptr, nullptr, nullptr,
                                        nullptr,    nullptr, nullptr, nullptr, nullptr, softmax_cross_entropy,
                                        sgd_momentum, "our CUDA training kernels on the SIMT simulator"};
    return ops;
}

}  // namespace gpulab::sim
