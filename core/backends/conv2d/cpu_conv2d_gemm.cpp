// cpu-parallel's im2col + matrix-product convolution, shared by the convolution lesson (CNN layers,
// cpu_conv2d_simd.cpp picks it per shape) and training's convolution forward (core/train).
//
// The output positions are cut into panels of a few dozen pixels (one image's P*Q positions in
// row-major order, so a panel may span output rows). For one panel a thread copies every filter
// tap's view of the input into a small matrix (im2col, zero padding written in):
//
//     col[(c * R + r) * S + s][j] = in[n][c][y(j) * stride + r - pad][x(j) * stride + s - pad]
//
// and then one matrix product gives all K filters for the panel, straight into N,K,P,Q:
//
//     out[n][k][panel] (K x w) = filters (K x CRS) * col (CRS x w)
//
// The panel is sized so that col stays in the core's L2 cache while the product streams through
// it once per block of output channels; panels of all images are shared among the pool's threads,
// so batch 1 keeps every core busy too. The matrix product is training's (train/train_gemm.h):
// one register-blocked kernel per instruction set for the lesson and for training.
// Verified by tests/test_conv2d.cpp and tests/test_forced_isa.cpp (every usable ISA against
// cpu-scalar) and tests/test_train_layers.cpp (training's forward against cpu-scalar's).
#include "cpu_conv2d_gemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/thread_pool.h"
#include "backends/simd/train_gemm.h"

namespace gpulab::cpu {

namespace {

// col (CRS x w, row stride w) for output positions [j0, j0 + w) of image `x` (C,H,W).
void im2col_panel(const core::Conv2dDesc& d, const float* x, int64_t j0, int64_t w, float* col) {
    const int64_t C = d.channels, H = d.height, W = d.width, R = d.kernel, Q = d.out_width();
    const int64_t pad = d.pad(), stride = d.stride;
    for (int64_t c = 0; c < C; ++c)
        for (int64_t r = 0; r < R; ++r)
            for (int64_t s = 0; s < R; ++s) {
                float* out = col + ((c * R + r) * R + s) * w;
                // Walk the panel one output-row segment at a time.
                for (int64_t j = j0; j < j0 + w;) {
                    const int64_t p = j / Q, q0 = j % Q;
                    const int64_t len = std::min(Q - q0, j0 + w - j);
                    const int64_t y = p * stride + r - pad;
                    float* o = out + (j - j0);
                    if (y < 0 || y >= H) {
                        std::fill(o, o + len, 0.0f);
                    } else {
                        const float* row = x + (c * H + y) * W;
                        if (stride == 1) {
                            // Columns q with 0 <= q + s - pad < W are copied, the rest are padding.
                            const int64_t lo = std::clamp<int64_t>(pad - s, q0, q0 + len);
                            const int64_t hi = std::clamp<int64_t>(W + pad - s, lo, q0 + len);
                            std::fill(o, o + (lo - q0), 0.0f);
                            if (hi > lo) std::memcpy(o + (lo - q0), row + lo + s - pad, (hi - lo) * sizeof(float));
                            std::fill(o + (hi - q0), o + len, 0.0f);
                        } else {
                            for (int64_t q = q0; q < q0 + len; ++q) {
                                const int64_t xx = q * stride + s - pad;
                                o[q - q0] = (xx >= 0 && xx < W) ? row[xx] : 0.0f;
                            }
                        }
                    }
                    j += len;
                }
            }
}

// Output positions per panel: col (CRS x w floats) about kPanelFloats, w a multiple of 16 (the
// matrix product's column block), the panels of one image equal in size.
constexpr int64_t kPanelFloats = 48 * 1024;  // 192 KiB: inside a 512 KiB-1 MiB L2 with room for the filters

int64_t panel_width(int64_t crs, int64_t pq) {
    const int64_t target = std::max<int64_t>(16, kPanelFloats / std::max<int64_t>(1, crs));
    const int64_t panels = (pq + target - 1) / target;
    const int64_t even = (pq + panels - 1) / panels;
    return std::min(pq, (even + 15) / 16 * 16);
}

}  // namespace

void conv2d_gemm(SimdIsa isa, const core::Conv2dDesc& d, const float* input, const float* filters, const float* bias,
                 float* output) {
    const int64_t K = d.filters, CRS = d.channels * d.kernel * d.kernel;
    const int64_t PQ = d.out_height() * d.out_width(), image = d.channels * d.height * d.width;
    const int64_t w = panel_width(CRS, PQ);
    const int64_t per_image = (PQ + w - 1) / w;
    ThreadPool::shared().parallel_for(
        d.batch * per_image,
        [&](int64_t begin, int64_t end) {
            thread_local std::vector<float> col;
            col.resize(static_cast<std::size_t>(CRS * w));
            for (int64_t u = begin; u < end; ++u) {
                const int64_t n = u / per_image, j0 = (u % per_image) * w;
                const int64_t width = std::min(w, PQ - j0);
                im2col_panel(d, input + n * image, j0, width, col.data());
                float* out = output + n * K * PQ + j0;
                if (bias != nullptr) {
                    for (int64_t k = 0; k < K; ++k) std::fill(out + k * PQ, out + k * PQ + width, bias[k]);
                }
                train::gemm_with(isa, K, width, CRS, filters, CRS, 1, col.data(), width, out, PQ, bias != nullptr);
            }
        },
        1);
}

}  // namespace gpulab::cpu
