// The training kernels one layer per call behind cpu-scalar's table of layer functions
// (train::CpuLayerOps, core/train/cpu_layers.h), for any device (SimDevice, CudaDevice): each
// function creates a device, copies its host inputs in, launches the layer's kernels
// (train_layers.h) and copies the outputs back. So a test compares any layer of the GPU code with
// the reference by calling both tables with the same arguments. Slow by design (a device and
// buffers per call): for tests, never for training.
//
// Include a device environment and the device's header first (sim_train_layers.cpp for the
// simulator, cuda_train_engine.cu for a GPU).
#pragma once

#include <cstdint>
#include <vector>

#include "train/cpu_layers.h"
#include "train_layers.h"

namespace gpulab::kern {

// `M`: IndexMath::Wide makes every convolution and pooling launch take the 64-bit index path,
// which real use reaches only past 2^31 elements; the tests run both tables (issue 30).
template <class Dev, IndexMath M = IndexMath::Auto>
struct LayerTable {
    template <class T>
    static typename Dev::template Array<T> upload(Dev& dev, const char* name, const T* host, std::int64_t count) {
        auto a = dev.template alloc<T>(name, static_cast<std::size_t>(count));
        dev.upload(a, host, static_cast<std::size_t>(count));
        return a;
    }

    static train::BatchResult softmax_cross_entropy(std::int64_t n, std::int64_t classes, const float* logits,
                                                    const std::uint8_t* labels, float* dlogits) {
        Dev dev;
        const auto l = upload(dev, "logits", logits, n * classes);
        const auto y = upload(dev, "labels", labels, n);
        auto loss = dev.template alloc<float>("loss", static_cast<std::size_t>(n));
        auto correct = dev.template alloc<int>("correct", static_cast<std::size_t>(n));
        auto d = dev.template alloc<float>("dlogits", static_cast<std::size_t>(n * classes));
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

    // Copies back `count` floats of a device array.
    static void fetch(Dev& dev, const typename Dev::template Array<float>& a, float* host, std::int64_t count) {
        dev.download(a, host, static_cast<std::size_t>(count));
    }

    static kern::TrainConvShape shape_of(const train::ConvShape& s) {
        return kern::train_conv_shape(s.n, s.c, s.h, s.w, s.k, s.r);
    }

    static void conv_forward(const train::ConvShape& s, const float* x, const float* w, const float* b, float* y) {
        Dev dev;
        const auto dx = upload(dev, "x", x, s.n * s.c * s.h * s.w);
        const auto dw = upload(dev, "w", w, s.k * s.c * s.r * s.r);
        const auto db = upload(dev, "b", b, s.k);
        auto dy = dev.template alloc<float>("y", static_cast<std::size_t>(s.n * s.k * s.p() * s.q()));
        kern::layers::conv_forward(dev, shape_of(s), dx.ptr(), dw.ptr(), db.ptr(), dy.ptr(), M);
        fetch(dev, dy, y, s.n * s.k * s.p() * s.q());
    }

    static void conv_backward_data(const train::ConvShape& s, const float* dy, const float* w, float* dx) {
        Dev dev;
        const auto ddy = upload(dev, "dy", dy, s.n * s.k * s.p() * s.q());
        const auto dw = upload(dev, "w", w, s.k * s.c * s.r * s.r);
        auto ddx = dev.template alloc<float>("dx", static_cast<std::size_t>(s.n * s.c * s.h * s.w));
        kern::layers::conv_backward_data(dev, shape_of(s), ddy.ptr(), dw.ptr(), ddx.ptr(), M);
        fetch(dev, ddx, dx, s.n * s.c * s.h * s.w);
    }

    static void conv_backward_weights(const train::ConvShape& s, const float* x, const float* dy, float* dw,
                                      float* db) {
        Dev dev;
        const auto dx = upload(dev, "x", x, s.n * s.c * s.h * s.w);
        const auto ddy = upload(dev, "dy", dy, s.n * s.k * s.p() * s.q());
        auto ddw = dev.template alloc<float>("dw", static_cast<std::size_t>(s.k * s.c * s.r * s.r));
        auto ddb = dev.template alloc<float>("db", static_cast<std::size_t>(s.k));
        kern::layers::conv_backward_weights(dev, shape_of(s), dx.ptr(), ddy.ptr(), ddw.ptr(), ddb.ptr(), M);
        fetch(dev, ddw, dw, s.k * s.c * s.r * s.r);
        fetch(dev, ddb, db, s.k);
    }

    static void relu_forward(std::int64_t count, const float* x, float* y) {
        Dev dev;
        const auto dx = upload(dev, "x", x, count);
        auto dy = dev.template alloc<float>("y", static_cast<std::size_t>(count));
        kern::layers::relu_forward(dev, count, dx.ptr(), dy.ptr());
        fetch(dev, dy, y, count);
    }

    static void relu_backward(std::int64_t count, const float* y, const float* dy, float* dx) {
        Dev dev;
        const auto d_y = upload(dev, "y", y, count);
        const auto d_dy = upload(dev, "dy", dy, count);
        auto d_dx = dev.template alloc<float>("dx", static_cast<std::size_t>(count));
        kern::layers::relu_backward(dev, count, d_y.ptr(), d_dy.ptr(), d_dx.ptr());
        fetch(dev, d_dx, dx, count);
    }

    static void maxpool_forward(std::int64_t planes, std::int64_t h, std::int64_t w, const float* x, float* y) {
        Dev dev;
        const auto dx = upload(dev, "x", x, planes * h * w);
        const auto pooled = static_cast<std::size_t>(planes * (h / 2) * (w / 2));
        auto dy = dev.template alloc<float>("y", pooled);
        auto winners = dev.template alloc<std::uint8_t>("argmax", pooled);
        kern::layers::maxpool_forward(dev, planes, h, w, dx.ptr(), dy.ptr(), winners.ptr(), M);
        fetch(dev, dy, y, planes * (h / 2) * (w / 2));
    }

    // The table's signature gives x, not the forward's winners: the forward kernel runs first to
    // record them, as the engine's forward pass does.
    static void maxpool_backward(std::int64_t planes, std::int64_t h, std::int64_t w, const float* x, const float* dy,
                                 float* dx) {
        Dev dev;
        const auto d_x = upload(dev, "x", x, planes * h * w);
        const auto pooled = static_cast<std::size_t>(planes * (h / 2) * (w / 2));
        auto y = dev.template alloc<float>("y", pooled);
        auto winners = dev.template alloc<std::uint8_t>("argmax", pooled);
        kern::layers::maxpool_forward(dev, planes, h, w, d_x.ptr(), y.ptr(), winners.ptr(), M);
        const auto d_dy = upload(dev, "dy", dy, planes * (h / 2) * (w / 2));
        auto d_dx = dev.template alloc<float>("dx", static_cast<std::size_t>(planes * h * w));
        kern::layers::maxpool_backward(dev, planes, h, w, winners.ptr(), d_dy.ptr(), d_dx.ptr(), M);
        fetch(dev, d_dx, dx, planes * h * w);
    }

    static void dense_forward(std::int64_t n, std::int64_t in, std::int64_t out, const float* x, const float* w,
                              const float* b, float* y) {
        Dev dev;
        const auto dx = upload(dev, "x", x, n * in);
        const auto dw = upload(dev, "w", w, out * in);
        const auto db = upload(dev, "b", b, out);
        auto dy = dev.template alloc<float>("y", static_cast<std::size_t>(n * out));
        kern::layers::dense_forward(dev, n, in, out, dx.ptr(), dw.ptr(), db.ptr(), dy.ptr());
        fetch(dev, dy, y, n * out);
    }

    static void dense_backward_data(std::int64_t n, std::int64_t in, std::int64_t out, const float* dy, const float* w,
                                    float* dx) {
        Dev dev;
        const auto d_dy = upload(dev, "dy", dy, n * out);
        const auto dw = upload(dev, "w", w, out * in);
        auto d_dx = dev.template alloc<float>("dx", static_cast<std::size_t>(n * in));
        kern::layers::dense_backward_data(dev, n, in, out, d_dy.ptr(), dw.ptr(), d_dx.ptr());
        fetch(dev, d_dx, dx, n * in);
    }

    static void dense_backward_weights(std::int64_t n, std::int64_t in, std::int64_t out, const float* x,
                                       const float* dy, float* dw, float* db) {
        Dev dev;
        const auto d_x = upload(dev, "x", x, n * in);
        const auto d_dy = upload(dev, "dy", dy, n * out);
        auto d_dw = dev.template alloc<float>("dw", static_cast<std::size_t>(out * in));
        auto d_db = dev.template alloc<float>("db", static_cast<std::size_t>(out));
        kern::layers::dense_backward_weights(dev, n, in, out, d_x.ptr(), d_dy.ptr(), d_dw.ptr(), d_db.ptr());
        fetch(dev, d_dw, dw, out * in);
        fetch(dev, d_db, db, out);
    }

    static void sgd_momentum(std::int64_t count, const train::Sgd& sgd, float* w, float* v, const float* g) {
        Dev dev;
        const auto dw = upload(dev, "w", w, count);
        const auto dv = upload(dev, "v", v, count);
        const auto dg = upload(dev, "g", g, count);
        kern::layers::sgd_momentum(dev, count, sgd.learning_rate, sgd.momentum, dw.ptr(), dv.ptr(), dg.ptr());
        dev.download(dw, w, static_cast<std::size_t>(count));
        dev.download(dv, v, static_cast<std::size_t>(count));
    }

    // Loss scaling's two kernels (loss_scale_kernels.cuh; not in CpuLayerOps, which is core's table
    // of layer functions): x *= factor, and whether every value is finite.
    static void scale_in_place(float* x, std::int64_t count, float factor) {
        Dev dev;
        const auto dx = upload(dev, "x", x, count);
        kern::layers::scale_values(dev, count, factor, dx.ptr());
        dev.download(dx, x, static_cast<std::size_t>(count));
    }
    static bool all_finite(const float* g, std::int64_t count) {
        Dev dev;
        const auto dg = upload(dev, "g", g, count);
        auto flag = dev.template alloc<int>("flag", 1);  // zeroed
        kern::layers::flag_nonfinite(dev, count, dg.ptr(), flag.ptr());
        int raised = 0;
        dev.download(flag, &raised, 1);
        return raised == 0;
    }

    static const train::CpuLayerOps& ops(const char* name, const char* implementation) {
        static const train::CpuLayerOps table{
            name,          conv_forward,        conv_backward_data,     conv_backward_weights,
            relu_forward,  relu_backward,       maxpool_forward,        maxpool_backward,
            dense_forward, dense_backward_data, dense_backward_weights, softmax_cross_entropy,
            sgd_momentum,  implementation};
        return table;
    }
};

}  // namespace gpulab::kern
