// The convolution lesson's measurement (see conv2d_workload.h): inputs and filters, every
// backend on one shape, checks against cpu-scalar, GFLOP/s and what each library peer ran.
//
// Tolerance, stated once (conv2d_tolerance): backends add the same products in different orders
// (SIMD lanes, oneDNN's blocking, GPU tiles), so their float32 sums differ by rounding. Each
// output is a sum of C*R*S products, each at most max|input| * max|filter| in size, so we allow
//   abs = 1e-5 * C*R*S * max|input| * max|filter|   and   rel = 1e-5,
// far below anything visible and far above float32 rounding of such sums (~1e-7 per add).
// Verified by tests/test_conv2d.cpp.
#include "conv2d_workload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>

#include "runtime/cancel.h"
#include "measure/clock.h"
#include "backends/cpu_scalar.h"
#include "measure/format.h"
#include "io/image_io.h"
#include "runtime/memory.h"

namespace gpulab::core {

namespace {

bool report_progress(const ProgressFn& progress, float f, std::string_view stage) {
    return !progress || progress(std::clamp(f, 0.0f, 1.0f), stage);
}

// A small integer hash: the texture depends only on (x, y), so any traversal gives the same picture.
float hash_unit(uint32_t x, uint32_t y) {
    uint32_t h = x * 0x8da6b343u ^ y * 0xd8163841u;
    h ^= h >> 13;
    h *= 0x85ebca6bu;
    h ^= h >> 16;
    return static_cast<float>(h >> 8) * (1.0f / 16777216.0f);
}

float max_abs(const Tensor& t) {
    float m = 0.0f;
    for (float v : t.data) m = std::max(m, std::fabs(v));
    return m;
}

// Row i of Pascal's triangle, normalised: the binomial filter, a close cousin of a Gaussian with
// sigma = sqrt(i) / 2 (about kernel / 6 for the sizes used here) that sums to exactly 1.
std::vector<double> binomial_row(int64_t n) {
    std::vector<double> row(static_cast<std::size_t>(n), 1.0);
    for (int64_t i = 1; i < n; ++i) {
        for (int64_t j = i - 1; j >= 1; --j) row[j] += row[j - 1];
    }
    double sum = 0.0;
    for (double v : row) sum += v;
    for (double& v : row) v /= sum;
    return row;
}

Tensor filter_3x3(const float (&w)[9]) {
    Tensor t = Tensor::zeros({1, 1, 3, 3});
    std::copy(std::begin(w), std::end(w), t.data.begin());
    return t;
}

std::string to_lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

}  // namespace

// [SECTION] inputs and filters

namespace {

// The regions of the built-in scene: the grayscale picture uses only the brightness, the colour
// picture tints each region so the three planes differ from one another.
enum class SceneRegion { Sky, BrightDisc, DarkDisc, Rectangle, Stripes, CheckerOn, CheckerOff };

struct SceneSample {
    double value = 0.0;  // brightness before the film grain
    SceneRegion region = SceneRegion::Sky;
};

void check_test_image_size(int64_t height, int64_t width) {
    if (height < 1 || width < 1) {
        throw InputError("the test image must be at least 1x1 (got " + std::to_string(height) + "x" +
                         std::to_string(width) + ")");
    }
}

// One pixel of the scene at integer position (x, y) and centre-of-pixel coordinates (u, v) in [0, 1].
SceneSample scene_at(int64_t x, int64_t y, double u, double v, double aspect) {
    // Sky-like gradient: something for the box and Gaussian filters to leave alone.
    SceneSample s{0.2 + 0.45 * (0.65 * u + 0.35 * (1.0 - v)), SceneRegion::Sky};
    // A shaded bright disc (smooth edges for blur, a rim for Sobel).
    const double dx1 = (u - 0.3) * aspect, dy1 = v - 0.38;
    const double d1 = std::sqrt(dx1 * dx1 + dy1 * dy1);
    if (d1 < 0.2) s = {0.95 - 0.35 * d1 / 0.2 * (0.5 + 0.5 * (dx1 + dy1) / 0.4), SceneRegion::BrightDisc};
    // A dark disc with a hard edge (Laplacian and sharpen light up its outline).
    const double dx2 = (u - 0.72) * aspect, dy2 = v - 0.68;
    if (dx2 * dx2 + dy2 * dy2 < 0.13 * 0.13) s = {0.08, SceneRegion::DarkDisc};
    // A flat rectangle: vertical edges for Sobel-x, horizontal ones for Sobel-y.
    if (u > 0.55 && u < 0.92 && v > 0.1 && v < 0.34) s = {0.78, SceneRegion::Rectangle};
    // Fine stripes (period 6 pixels) and a checkerboard: detail that blurs away.
    if (u > 0.05 && u < 0.45 && v > 0.66 && v < 0.94) {
        s = {0.5 + 0.4 * std::sin(2.0 * M_PI * static_cast<double>(x + y / 2) / 6.0), SceneRegion::Stripes};
    }
    if (u > 0.52 && u < 0.6 && v > 0.45 && v < 0.95) {
        s = ((x / 4 + y / 4) % 2) ? SceneSample{0.85, SceneRegion::CheckerOn}
                                  : SceneSample{0.2, SceneRegion::CheckerOff};
    }
    return s;
}

// Film-grain texture so flat areas are not perfectly flat.
double grain_at(int64_t x, int64_t y) {
    return 0.05 * (hash_unit(static_cast<uint32_t>(x), static_cast<uint32_t>(y)) - 0.5);
}

// Red, green and blue factors for a region: each plane of the colour scene is the brightness
// times its factor, so edges sit in the same places in all three planes but with different
// strengths (the Channels tab shows a sobel edge strong in one plane and faint in another).
struct Tint {
    double r, g, b;
};

Tint tint_of(SceneRegion region) {
    switch (region) {
        case SceneRegion::Sky: return {0.55, 0.85, 1.35};         // bluish sky
        case SceneRegion::BrightDisc: return {1.05, 0.85, 0.35};  // warm sun
        case SceneRegion::DarkDisc: return {1.6, 0.8, 1.2};       // dark plum
        case SceneRegion::Rectangle: return {0.35, 1.15, 0.4};    // green field
        case SceneRegion::Stripes: return {1.15, 0.3, 1.0};       // magenta stripes
        case SceneRegion::CheckerOn: return {1.1, 1.05, 0.25};    // yellow squares
        case SceneRegion::CheckerOff: return {0.4, 0.6, 1.6};     // deep blue squares
    }
    return {1.0, 1.0, 1.0};
}

}  // namespace

Tensor make_test_image(int64_t height, int64_t width) {
    check_test_image_size(height, width);
    Tensor t = Tensor::zeros({height, width});
    const double inv_w = 1.0 / static_cast<double>(width), inv_h = 1.0 / static_cast<double>(height);
    const double aspect = static_cast<double>(width) / static_cast<double>(height);
    for (int64_t y = 0; y < height; ++y) {
        const double v = (static_cast<double>(y) + 0.5) * inv_h;
        float* row = t.ptr() + y * width;
        for (int64_t x = 0; x < width; ++x) {
            const double u = (static_cast<double>(x) + 0.5) * inv_w;
            const double value = scene_at(x, y, u, v, aspect).value + grain_at(x, y);
            row[x] = static_cast<float>(std::clamp(value, 0.0, 1.0));
        }
    }
    return t;
}

Tensor make_test_image_rgb(int64_t height, int64_t width) {
    check_test_image_size(height, width);
    Tensor t = Tensor::zeros({3, height, width});
    const double inv_w = 1.0 / static_cast<double>(width), inv_h = 1.0 / static_cast<double>(height);
    const double aspect = static_cast<double>(width) / static_cast<double>(height);
    const int64_t plane = height * width;
    for (int64_t y = 0; y < height; ++y) {
        const double v = (static_cast<double>(y) + 0.5) * inv_h;
        for (int64_t x = 0; x < width; ++x) {
            const double u = (static_cast<double>(x) + 0.5) * inv_w;
            const SceneSample s = scene_at(x, y, u, v, aspect);
            const Tint tint = tint_of(s.region);
            const double grain = grain_at(x, y);
            float* px = t.ptr() + y * width + x;
            px[0] = static_cast<float>(std::clamp(s.value * tint.r + grain, 0.0, 1.0));
            px[plane] = static_cast<float>(std::clamp(s.value * tint.g + grain, 0.0, 1.0));
            px[2 * plane] = static_cast<float>(std::clamp(s.value * tint.b + grain, 0.0, 1.0));
        }
    }
    return t;
}

std::vector<std::string> named_filters() {
    return {"identity", "box", "gaussian", "sharpen", "sobel-x", "sobel-y", "laplacian", "emboss"};
}

Tensor make_named_filter(const std::string& name_in, int64_t kernel) {
    const std::string name = to_lower(name_in);
    if (name == "box" || name == "gaussian") {
        if (kernel < 1 || kernel > 7 || kernel % 2 == 0) {
            throw InputError("the " + name + " filter size must be odd and between 1 and 7 (got " +
                             std::to_string(kernel) + ")");
        }
        Tensor t = Tensor::zeros({1, 1, kernel, kernel});
        const std::vector<double> row = binomial_row(kernel);
        for (int64_t r = 0; r < kernel; ++r) {
            for (int64_t s = 0; s < kernel; ++s) {
                t.data[r * kernel + s] = name == "box" ? static_cast<float>(1.0 / static_cast<double>(kernel * kernel))
                                                       : static_cast<float>(row[r] * row[s]);
            }
        }
        return t;
    }
    // Cross-correlation weights (the filter is not flipped): sobel-x is positive where the
    // picture gets brighter to the right, sobel-y where it gets brighter downwards.
    if (name == "identity") return filter_3x3({0, 0, 0, 0, 1, 0, 0, 0, 0});
    if (name == "sharpen") return filter_3x3({0, -1, 0, -1, 5, -1, 0, -1, 0});
    if (name == "sobel-x") return filter_3x3({-1, 0, 1, -2, 0, 2, -1, 0, 1});
    if (name == "sobel-y") return filter_3x3({-1, -2, -1, 0, 0, 0, 1, 2, 1});
    if (name == "laplacian") return filter_3x3({0, 1, 0, 1, -4, 1, 0, 1, 0});
    if (name == "emboss") return filter_3x3({-2, -1, 0, -1, 1, 1, 0, 1, 2});
    std::string names;
    for (const std::string& n : named_filters()) names += (names.empty() ? "" : ", ") + n;
    throw InputError("unknown filter '" + name_in + "' (expected one of: " + names + ")");
}

Tensor load_filter_file(const std::string& path) {
    Tensor t = read_npy(path);
    if (t.shape.size() != 2 && t.shape.size() != 4) {
        throw InputError(path + ": a filter must have shape (R, S) or (K, C, R, S), got " + t.shape_string());
    }
    const int64_t r = t.shape[t.shape.size() - 2], s = t.shape[t.shape.size() - 1];
    if (r != s) throw InputError(path + ": the filter must be square, got " + std::to_string(r) + "x" + std::to_string(s));
    if (r % 2 == 0) {
        throw InputError(path + ": the filter must have an odd size (1, 3, 5, ...) so it has a centre; got " +
                         std::to_string(r) + "x" + std::to_string(s));
    }
    if (r > kMaxConv2dKernel) {
        throw InputError(path + ": the filter is " + std::to_string(r) + "x" + std::to_string(s) +
                         "; the largest allowed is " + std::to_string(kMaxConv2dKernel) + "x" +
                         std::to_string(kMaxConv2dKernel));
    }
    if (t.size() == 0) throw InputError(path + ": the filter has no elements " + t.shape_string());
    for (float v : t.data) {
        if (!std::isfinite(v)) throw InputError(path + ": the filter contains NaN or infinity");
    }
    if (t.shape.size() == 2) t.shape = {1, 1, r, s};
    return t;
}

Tensor make_random_tensor(std::vector<int64_t> shape, uint32_t seed) {
    for (int64_t d : shape) {
        if (d < 1) throw InputError("a random tensor needs positive dimensions");
    }
    Tensor t = Tensor::zeros(std::move(shape));
    uint32_t state = 0x9e3779b9u ^ (seed * 2654435761u);
    for (float& v : t.data) {
        state = state * 1664525u + 1013904223u;
        v = static_cast<float>(state >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
    return t;
}

// [SECTION] pooling

Tensor max_pool_2x2(const Tensor& input) {
    if (input.shape.size() < 2) throw InputError("max pooling needs at least 2 dimensions, got " + input.shape_string());
    const int64_t h = input.shape[input.shape.size() - 2], w = input.shape[input.shape.size() - 1];
    if (h < 2 || w < 2) throw InputError("max pooling 2x2 needs an input of at least 2x2, got " + input.shape_string());
    const int64_t ph = h / 2, pw = w / 2;
    const int64_t planes = h * w > 0 ? input.size() / (h * w) : 0;
    std::vector<int64_t> shape = input.shape;
    shape[shape.size() - 2] = ph;
    shape[shape.size() - 1] = pw;
    Tensor out = Tensor::zeros(shape);
    for (int64_t plane = 0; plane < planes; ++plane) {
        const float* src = input.ptr() + plane * h * w;
        float* dst = out.ptr() + plane * ph * pw;
        for (int64_t y = 0; y < ph; ++y) {
            const float* a = src + (2 * y) * w;
            const float* b = a + w;
            for (int64_t x = 0; x < pw; ++x) {
                dst[y * pw + x] = std::max(std::max(a[2 * x], a[2 * x + 1]), std::max(b[2 * x], b[2 * x + 1]));
            }
        }
    }
    return out;
}

// [SECTION] the run

Tolerance conv2d_tolerance(const Conv2dDesc& desc, const Tensor& input, const Tensor& filters) {
    const double taps = static_cast<double>(desc.channels * desc.kernel * desc.kernel);
    const double scale = std::max(static_cast<double>(max_abs(input)) * max_abs(filters), 1e-30);
    return {1e-5 * taps * scale, 1e-5};
}

Conv2dParams conv2d_params_from(const std::map<std::string, ParamValue>& params, Conv2dParams base) {
    base.filter = param_string(params, "filter", base.filter);
    base.kernel = param_int(params, "kernel", base.kernel);
    const std::string padding = param_string(params, "padding", base.padding == Padding::Zero ? "zero" : "none");
    base.padding = padding == "none" ? Padding::None : Padding::Zero;
    base.stride = param_int(params, "stride", base.stride);
    base.image_path = param_string(params, "image", base.image_path);
    base.height = param_int(params, "height", base.height);
    base.width = param_int(params, "width", base.width);
    base.per_channel = param_bool(params, "per_channel", base.per_channel);
    base.layer_mode = param_bool(params, "layer_mode", base.layer_mode);
    base.batch = param_int(params, "batch", base.batch);
    base.channels = param_int(params, "channels", base.channels);
    base.filters = param_int(params, "filters", base.filters);
    return base;
}

namespace {

// Builds run.desc, run.input (N, C, H, W) and run.filters (K, C, R, S). Throws InputError.
// Returns an error sentence instead when the shape is refused before the big allocation.
std::string prepare_inputs(const Conv2dParams& p, Conv2dRun& run) {
    Conv2dDesc& d = run.desc;
    d.padding = p.padding;
    d.stride = p.stride;
    // Everything that must live at once: input, filters, the reference output and one candidate.
    auto refuse_if_too_big = [&d]() -> std::string {
        const std::string bad = d.validate();
        if (!bad.empty()) return bad;
        const double bytes = 4.0 * (static_cast<double>(d.input_elements()) + static_cast<double>(d.filter_elements()) +
                                    2.0 * static_cast<double>(d.output_elements()));
        Availability fits = check_host_allocation(static_cast<std::size_t>(std::min(bytes, 1e19)));
        if (!fits.ok) return d.to_string() + " refused: " + fits.reason;
        return "";
    };
    if (p.layer_mode) {
        d.batch = p.batch;
        d.channels = p.channels;
        d.height = p.height;
        d.width = p.width;
        d.filters = p.filters;
        d.kernel = p.kernel;
        if (std::string why = refuse_if_too_big(); !why.empty()) return why;
        run.input = make_random_tensor({d.batch, d.channels, d.height, d.width}, p.seed);
        run.filters = make_random_tensor({d.filters, d.channels, d.kernel, d.kernel}, p.seed + 1000u);
        return "";
    }
    // Image mode: one grayscale channel (or three colour planes, see below), one or more filters.
    if (p.filter == "custom") {
        if (!p.filter_path.empty()) {
            run.filters = load_filter_file(p.filter_path);
        } else if (!p.custom_filter.data.empty()) {
            run.filters = p.custom_filter;
            if (run.filters.shape.size() == 2) {
                run.filters.shape = {1, 1, run.filters.shape[0], run.filters.shape[1]};
            }
            if (run.filters.shape.size() != 4 || run.filters.shape[2] != run.filters.shape[3]) {
                return "the custom filter must have shape (R, S) or (K, C, R, S) with R == S, got " +
                       run.filters.shape_string();
            }
        } else {
            return "the custom filter is empty: give a .npy file";
        }
    } else {
        run.filters = make_named_filter(p.filter, p.kernel);
    }
    d.filters = run.filters.shape[0];
    d.channels = run.filters.shape[1];
    d.kernel = run.filters.shape[2];
    if (d.channels != 1) {
        return "the filter has " + std::to_string(d.channels) + " input channels but a picture has 1";
    }
    // Per channel: the colour picture's three planes become a batch of three one-channel
    // pictures (N=3, C=1), so every backend applies the same filter to each plane on its own.
    d.batch = p.per_channel ? 3 : 1;
    if (!p.image_path.empty()) {
        Tensor img = p.per_channel ? load_image_rgb(p.image_path) : load_image_gray(p.image_path);
        d.height = img.shape[img.shape.size() - 2];
        d.width = img.shape[img.shape.size() - 1];
        if (std::string why = refuse_if_too_big(); !why.empty()) return why;
        run.input = std::move(img);
    } else {
        d.height = p.height;
        d.width = p.width;
        if (std::string why = refuse_if_too_big(); !why.empty()) return why;
        run.input = p.per_channel ? make_test_image_rgb(d.height, d.width) : make_test_image(d.height, d.width);
    }
    run.input.shape = {d.batch, 1, d.height, d.width};
    return "";
}

}  // namespace

Conv2dRun run_conv2d(const Conv2dParams& params, std::span<Backend* const> backends, const MeasureConfig& config,
                     const ProgressFn& progress) {
    Conv2dRun run;  // early returns are "return run;" (a move), as in run_activation
    run.params = params;
    run.started_unix_s = std::chrono::duration_cast<std::chrono::seconds>(
                             std::chrono::system_clock::now().time_since_epoch()).count();
    try {
        // [SECTION] input and filters: refuse before allocating
        if (!report_progress(progress, 0.0f, "preparing input")) { run.error = "cancelled"; return run; }
        if (std::string why = prepare_inputs(params, run); !why.empty()) {
            run.error = why;
            return run;
        }
        const Conv2dDesc& d = run.desc;
        const std::vector<int64_t> out_shape = {d.batch, d.filters, d.out_height(), d.out_width()};
        const double bytes = 4.0 * static_cast<double>(d.input_elements() + d.filter_elements() + d.output_elements());
        const Tolerance tol = conv2d_tolerance(d, run.input, run.filters);

        // [SECTION] every backend, the reference first
        const float share = 1.0f / static_cast<float>(std::max<std::size_t>(backends.size(), 1));
        for (std::size_t bi = 0; bi < backends.size(); ++bi) {
            Backend* b = backends[bi];
            BackendReport rep;
            rep.backend = std::string(b->name());
            rep.kind = b->kind();
            rep.availability = b->availability();
            const float base = share * static_cast<float>(bi);
            if (rep.availability.ok && !b->supports_conv2d(d)) {
                rep.availability = {false, std::string(b->name()) + " does not offer conv2d for " + d.to_string()};
            }
            if (rep.availability.ok) {
                Availability fits = b->can_allocate(run.input.bytes() + run.filters.bytes() +
                                                    4 * static_cast<std::size_t>(d.output_elements()));
                if (!fits.ok) rep.availability = {false, fits.reason};
            }
            if (!rep.availability.ok) {
                run.reports.push_back(std::move(rep));
                continue;
            }
            if (!report_progress(progress, base, "warming up " + rep.backend)) { run.error = "cancelled"; return run; }

            Tensor out = Tensor::zeros(out_shape, throw_if_cancelled);
            if (!measure_samples(rep, config, [&] { return b->run_conv2d(d, run.input, run.filters, out); }, progress,
                                 base, share))
                { run.error = "cancelled"; return run; }
            if (rep.ran) {
                if (kind_is_timed(rep.kind)) {  // a simulation's time gives no GB/s or GFLOP/s
                    rep.gbps = gbps(bytes, rep.compute.median_ns);
                    rep.gbps_with_transfers = gbps(bytes, rep.total.median_ns);
                    rep.gflops =
                        rep.compute.median_ns > 0 ? d.flops() / static_cast<double>(rep.compute.median_ns) : 0.0;
                }
                rep.implementation = b->conv2d_implementation(d);
                if (run.reference_output.data.empty()) {
                    // The first backend that ran is the reference: callers put cpu-scalar first.
                    // Without it (a bench skipping the slow loop) the first peer stands in, and
                    // the verdicts say which backend they were compared with.
                    run.reference_output = out;
                    run.reference_backend = rep.backend;
                }
                rep.check = compare(run.reference_output, out, tol, throw_if_cancelled);
                if (!kind_is_timed(rep.kind) && rep.check.pass && run.simulated_backend.empty()) {
                    run.simulated_output = out;
                    run.simulated_backend = rep.backend;
                }
                if (run.reference_backend != "cpu-scalar") rep.check.verdict += " (vs " + run.reference_backend + ")";
                if (config.measure_limits && kind_is_timed(rep.kind)) {
                    if (!report_progress(progress, base + share * 0.95f, "measuring copy bandwidth for " + rep.backend))
                        { run.error = "cancelled"; return run; }
                    rep.limit = b->bandwidth_limit(run.input.bytes());
                    if (rep.limit.ok && rep.limit.gbps > 0) rep.fraction_of_limit = rep.gbps / rep.limit.gbps;
                }
            }
            run.reports.push_back(std::move(rep));
        }
        report_progress(progress, 1.0f, "done");
        run.ok = true;
    } catch (const Cancelled&) {
        run.error = "cancelled";
    } catch (const InputError& e) {
        run.error = e.what();
    } catch (const std::bad_alloc&) {
        run.error = "out of memory for " + run.desc.to_string();
    } catch (const std::exception& e) {
        run.error = std::string("unexpected error: ") + e.what();
    }
    return run;
}

std::string conv2d_config_key(const Conv2dParams& p) {
    const std::string geometry = " kernel " + std::to_string(p.kernel) +
                                 (p.padding == Padding::Zero ? " zero-padded" : " unpadded") + " stride " +
                                 std::to_string(p.stride) + " seed " + std::to_string(p.seed);
    if (p.layer_mode)
        return "layer " + std::to_string(p.batch) + "x" + std::to_string(p.channels) + "x" + std::to_string(p.height) +
               "x" + std::to_string(p.width) + " filters " + std::to_string(p.filters) + geometry;
    std::string key = "image " + (p.image_path.empty() ? std::to_string(p.height) + "x" + std::to_string(p.width)
                                                       : p.image_path);
    key += p.per_channel ? " per channel" : " grey";
    key += " filter " + p.filter;
    if (p.filter == "custom") {
        key += p.filter_path.empty() ? " values" : " " + p.filter_path;
        if (p.filter_path.empty())
            for (float v : p.custom_filter.data) key += " " + std::to_string(v);
    }
    return key + geometry;
}

std::size_t conv2d_run_bytes(const Conv2dRun& run) {
    const std::size_t floats = run.input.size() + run.filters.size() + run.reference_output.size() +
                               run.simulated_output.size();
    return floats * sizeof(float) + sizeof(Conv2dRun);
}

}  // namespace gpulab::core
