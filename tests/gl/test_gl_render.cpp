// The GL layer on a real (offscreen) context: EGL with no DISPLAY, shader loading and its error
// messages, the colormap's colours read back from the GPU, host downsampling of big tensors,
// bad input, the interop fallback reason, and GPU timers that deliver without blocking.
// Lives in tests/gl/ (not tests/test_*.cpp) because it links the app's GL library, which the
// core-only gpulab_tests binary does not. Where no GL context can be made, every test prints
// "SKIPPED: no GL context (reason)" and CTest shows it as skipped. The interop round trip is in
// TEST_SUITE("gpu"): it needs the GL context to run on the CUDA device (EGL device platform on an
// NVIDIA machine) and skips with the interop check's reason everywhere else.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <unistd.h>

#include "backends/backend.h"
#include "interop/gl_interop.h"
#include "render/gl_util.h"
#include "gpu_backends.h"
#include "render/gpu_timer.h"
#include "render/offscreen_context.h"
#include "render/resources.h"
#include "render/tensor_texture.h"

using namespace gpulab::app;

namespace {

// One context for the whole binary (creating EGL contexts is slow on llvmpipe). DISPLAY and
// WAYLAND_DISPLAY are removed first: the context must come up on a machine with no display.
OffscreenContext* shared_context(std::string& why) {
    static std::string reason;
    static std::unique_ptr<OffscreenContext> ctx = [] {
        unsetenv("DISPLAY");
        unsetenv("WAYLAND_DISPLAY");
        return OffscreenContext::create(reason);
    }();
    why = reason;
    if (ctx) ctx->make_current();
    return ctx.get();
}

#define GPULAB_REQUIRE_GL()                                                \
    std::string gl_why_;                                                   \
    if (shared_context(gl_why_) == nullptr) {                              \
        std::printf("SKIPPED: no GL context (%s)\n", gl_why_.c_str());     \
        return;                                                            \
    }

struct Rgba {
    int r, g, b, a;
};

Rgba pixel(const std::vector<uint8_t>& px, int width, int x, int y) {
    const size_t i = (static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * 4;
    return {px[i], px[i + 1], px[i + 2], px[i + 3]};
}

// Sets an environment variable for one scope and puts the old value back.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) {
            had_ = true;
            old_ = old;
        }
        setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (had_) setenv(name_, old_.c_str(), 1);
        else unsetenv(name_);
    }

private:
    const char* name_;
    bool had_ = false;
    std::string old_;
};

std::filesystem::path make_temp_dir(const char* tag) {
    auto dir = std::filesystem::temp_directory_path() / ("gpulab_gl_test_" + std::string(tag) + "_" +
                                                         std::to_string(static_cast<long>(getpid())));
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace

TEST_SUITE("gl") {
    TEST_CASE("an offscreen OpenGL 3.3 core context comes up with no display") {
        GPULAB_REQUIRE_GL();
        std::string why;
        OffscreenContext* ctx = shared_context(why);
        MESSAGE("context: " << ctx->description());
        CHECK(ctx->description().find("EGL") != std::string::npos);
        CHECK(ctx->description().find("OpenGL") != std::string::npos);
        GLint major = 0, minor = 0, profile = 0;
        glGetIntegerv(GL_MAJOR_VERSION, &major);
        glGetIntegerv(GL_MINOR_VERSION, &minor);
        glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
        CHECK(major * 10 + minor >= 33);
        CHECK((profile & GL_CONTEXT_CORE_PROFILE_BIT) != 0);
    }

    TEST_CASE("an unknown GPULAB_EGL_PLATFORM is a readable error and not a crash") {
        GPULAB_REQUIRE_GL();
        std::string why;
        {
            ScopedEnv env("GPULAB_EGL_PLATFORM", "vulkan");
            CHECK(OffscreenContext::create(why) == nullptr);
        }
        CHECK(why.find("GPULAB_EGL_PLATFORM=vulkan") != std::string::npos);
        shared_context(why);  // make the shared context current again
    }

    TEST_CASE("the colormap program is found and links") {
        GPULAB_REQUIRE_GL();
        CHECK_FALSE(find_resource("shaders/colormap.frag").empty());
        CHECK_FALSE(data_root().empty());
        std::string log;
        GLuint program = load_program("textured_quad.vert", "colormap.frag", log);
        CHECK_MESSAGE(program != 0, log);
        glDeleteProgram(program);
    }

    TEST_CASE("missing shader files give 0 and a log naming the file") {
        GPULAB_REQUIRE_GL();
        auto empty = make_temp_dir("empty");
        ScopedEnv env("GPULAB_DATA_DIR", empty.string());
        CHECK(find_resource("shaders/colormap.frag").empty());
        std::string log;
        CHECK(load_program("textured_quad.vert", "colormap.frag", log) == 0);
        CHECK(log.find("shaders/textured_quad.vert") != std::string::npos);
        CHECK(log.find("GPULAB_DATA_DIR") != std::string::npos);

        // A TensorTexture without its shaders says so instead of drawing garbage.
        TensorTexture tex;
        const float one = 1.0f;
        CHECK_FALSE(tex.set_from_host(&one, 1, 1, {}));
        CHECK(tex.status().reason.find("textured_quad.vert") != std::string::npos);
        CHECK(tex.rgba_texture() == 0);
        std::filesystem::remove_all(empty);
    }

    TEST_CASE("a broken shader gives 0 and a log naming the file and line") {
        GPULAB_REQUIRE_GL();
        auto dir = make_temp_dir("broken");
        auto frag = dir / "broken.frag";
        std::ofstream(frag) << "#version 330 core\nout vec4 c;\nvoid main() { c = vec4(1.0) +; }\n";
        std::string log;
        auto vert = find_resource("shaders/textured_quad.vert");
        REQUIRE_FALSE(vert.empty());
        CHECK(load_program_files(vert.string(), frag.string(), log) == 0);
        CHECK(log.find(frag.string()) != std::string::npos);
        CHECK(log.find("compile failed") != std::string::npos);
        CHECK(load_program_files(vert.string(), (dir / "absent.frag").string(), log) == 0);
        CHECK(log.find("absent.frag") != std::string::npos);
        std::filesystem::remove_all(dir);
    }

    TEST_CASE("Framebuffer reads back top row first") {
        GPULAB_REQUIRE_GL();
        Framebuffer fb;
        REQUIRE(fb.resize(4, 4));
        fb.bind();
        glClearColor(0.0f, 0.0f, 1.0f, 1.0f);  // blue everywhere
        glClear(GL_COLOR_BUFFER_BIT);
        glEnable(GL_SCISSOR_TEST);
        glScissor(0, 2, 4, 2);  // GL's y goes up: rows 2-3 are the top half
        glClearColor(1.0f, 0.0f, 0.0f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        glDisable(GL_SCISSOR_TEST);
        std::vector<uint8_t> top_first = fb.read_rgba();
        REQUIRE(top_first.size() == 4u * 4u * 4u);
        CHECK(pixel(top_first, 4, 0, 0).r == 255);  // top is red
        CHECK(pixel(top_first, 4, 0, 3).b == 255);  // bottom is blue
        std::vector<uint8_t> stored = fb.read_rgba(true);
        CHECK(pixel(stored, 4, 0, 0).b == 255);  // stored row 0 is GL's bottom
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        CHECK_FALSE(fb.resize(0, 4));
        CHECK(read_pixels_rgba(0, 0, 0, 0).empty());
    }

    TEST_CASE("the colour-blind ramp draws the stops of diverging_ramp.h with orange above zero") {
        GPULAB_REQUIRE_GL();
        // The shader holds no colours: every stop must arrive from the C++ side, the same numbers the
        // views' own cells use (diverging_rgb), so a picture and its colour bar cannot disagree.
        const std::vector<float> values = {-1.0f, -0.5f, 0.0f, 0.5f, 1.0f};
        TensorTexture tex;
        REQUIRE_MESSAGE(tex.set_from_host(values.data(), 5, 1, {-1.0f, 1.0f, DivergingRamp::BlueOrange}),
                        tex.status().reason);
        const std::vector<uint8_t> px = tex.read_rgba();
        REQUIRE(px.size() == 5u * 4u);
        for (int i = 0; i < 5; ++i) {
            const Rgb8 want = kBlueOrangeStops[i];
            const Rgba got = pixel(px, 5, i, 0);
            CAPTURE(i);
            CHECK(std::abs(got.r - want.r) <= 2);
            CHECK(std::abs(got.g - want.g) <= 2);
            CHECK(std::abs(got.b - want.b) <= 2);
            const Rgb8 cpu = diverging_rgb(DivergingRamp::BlueOrange, values[static_cast<std::size_t>(i)]);
            CHECK(std::abs(got.r - cpu.r) <= 2);
            CHECK(std::abs(got.b - cpu.b) <= 2);
        }
        const Rgba pos = pixel(px, 5, 4, 0);
        CHECK(pos.r > pos.g);  // orange: red, some green, no blue
        CHECK(pos.g > pos.b + 60);
    }

    TEST_CASE("negative is blue and zero near white and positive red and NaN magenta") {
        GPULAB_REQUIRE_GL();
        const float nan = std::numeric_limits<float>::quiet_NaN();
        // 4x2, row-major; row 0 is the top row of the picture.
        const std::vector<float> values = {-1.0f, 0.0f, 1.0f, nan,  //
                                           -0.5f, 0.5f, -1e9f, 1e9f};
        TensorTexture tex;
        REQUIRE_MESSAGE(tex.set_from_host(values.data(), 4, 2, {}), tex.status().reason);
        CHECK(tex.width() == 4);
        CHECK(tex.height() == 2);
        CHECK(tex.rgba_texture() != 0);
        CHECK(tex.status().path == DisplayPath::HostUpload);
        CHECK(tex.status().downsample == 1);
        CHECK(tex.status().reason.rfind("host upload", 0) == 0);
        MESSAGE("status: " << tex.status().reason);

        std::vector<uint8_t> px = tex.read_rgba();
        REQUIRE(px.size() == 4u * 2u * 4u);
        const Rgba neg = pixel(px, 4, 0, 0), zero = pixel(px, 4, 1, 0), pos = pixel(px, 4, 2, 0),
                   bad = pixel(px, 4, 3, 0);
        CHECK(neg.b > neg.r + 60);
        CHECK(zero.r >= 235);
        CHECK(zero.g >= 235);
        CHECK(zero.b >= 235);
        CHECK(pos.r > pos.b + 60);
        CHECK(bad.r == 255);
        CHECK(bad.g == 0);
        CHECK(bad.b == 255);
        CHECK(neg.a == 255);
        // Half-way values are lighter than the ends: lightness says how far from 0.
        const Rgba half_neg = pixel(px, 4, 0, 1), half_pos = pixel(px, 4, 1, 1);
        CHECK(half_neg.b > half_neg.r);
        CHECK(half_pos.r > half_pos.b);
        CHECK(half_neg.r + half_neg.g + half_neg.b > neg.r + neg.g + neg.b);
        CHECK(half_pos.r + half_pos.g + half_pos.b > pos.r + pos.g + pos.b);
        // Out-of-range values clamp to the ends of the ramp.
        const Rgba far_neg = pixel(px, 4, 2, 1), far_pos = pixel(px, 4, 3, 1);
        CHECK(far_neg.r == neg.r);
        CHECK(far_neg.b == neg.b);
        CHECK(far_pos.r == pos.r);
        CHECK(far_pos.b == pos.b);

        // Small tensors are sampled nearest so each element stays a sharp square when zoomed.
        GLint filter = 0;
        glBindTexture(GL_TEXTURE_2D, tex.rgba_texture());
        glGetTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, &filter);
        CHECK(filter == GL_NEAREST);
        CHECK(glGetError() == GL_NO_ERROR);
    }

    TEST_CASE("zero stays white for an asymmetric range and a one-signed range spreads linearly") {
        GPULAB_REQUIRE_GL();
        const std::vector<float> values = {0.0f, 3.0f, -0.25f, 1.5f};
        TensorTexture tex;
        REQUIRE(tex.set_from_host(values.data(), 4, 1, {-0.25f, 3.0f}));
        std::vector<uint8_t> px = tex.read_rgba();
        CHECK(pixel(px, 4, 0, 0).g >= 235);                       // 0 -> white
        CHECK(pixel(px, 4, 1, 0).r > pixel(px, 4, 1, 0).b + 60);  // hi -> deep red
        CHECK(pixel(px, 4, 2, 0).b > pixel(px, 4, 2, 0).r + 60);  // lo -> deep blue

        REQUIRE(tex.set_from_host(values.data(), 4, 1, {0.0f, 3.0f}));
        px = tex.read_rgba();
        CHECK(pixel(px, 4, 0, 0).b > pixel(px, 4, 0, 0).r);       // lo end is blue
        CHECK(pixel(px, 4, 3, 0).g >= 235);                       // the middle, 1.5, is white

        REQUIRE(tex.set_from_host(values.data(), 4, 1, {1.0f, 1.0f}));  // empty range: no crash
        CHECK(pixel(tex.read_rgba(), 4, 0, 0).g >= 235);
    }

    TEST_CASE("a 3000x1000 host tensor is shown box-averaged at 1500x500") {
        GPULAB_REQUIRE_GL();
        const int w = 3000, h = 1000;
        std::vector<float> values(static_cast<size_t>(w) * h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) values[static_cast<size_t>(y) * w + x] = x < w / 2 ? -1.0f : 1.0f;
        values[static_cast<size_t>(h - 1) * w + (w - 1)] = std::numeric_limits<float>::quiet_NaN();
        TensorTexture tex;
        REQUIRE_MESSAGE(tex.set_from_host(values.data(), w, h, {}), tex.status().reason);
        CHECK(tex.width() <= TensorTexture::kMaxDisplaySide);
        CHECK(tex.height() <= TensorTexture::kMaxDisplaySide);
        CHECK(tex.width() == 1500);
        CHECK(tex.height() == 500);
        CHECK(tex.status().downsample == 2);
        CHECK(tex.status().source_width == w);
        CHECK(tex.status().reason.find("3000x1000 shown as 1500x500") != std::string::npos);
        std::vector<uint8_t> px = tex.read_rgba();
        REQUIRE(px.size() == 1500u * 500u * 4u);
        CHECK(pixel(px, 1500, 10, 10).b > pixel(px, 1500, 10, 10).r);        // left half negative
        CHECK(pixel(px, 1500, 1400, 10).r > pixel(px, 1500, 1400, 10).b);    // right half positive
        const Rgba corner = pixel(px, 1500, 1499, 499);                       // the block with the NaN
        CHECK(corner.r == 255);
        CHECK(corner.g == 0);
        CHECK(corner.b == 255);
        GLint filter = 0;
        glBindTexture(GL_TEXTURE_2D, tex.rgba_texture());
        glGetTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, &filter);
        CHECK(filter == GL_LINEAR);

        // Then a small one again: the texture shrinks back to the tensor's size.
        const float small[2] = {1.0f, -1.0f};
        REQUIRE(tex.set_from_host(small, 2, 1, {}));
        CHECK(tex.width() == 2);
        CHECK(tex.status().downsample == 1);
    }

    TEST_CASE("bad input is refused with a reason and keeps the last picture") {
        GPULAB_REQUIRE_GL();
        TensorTexture tex;
        CHECK(tex.rgba_texture() == 0);
        CHECK_FALSE(tex.set_from_host(nullptr, 4, 4, {}));
        CHECK(tex.status().reason.find("no data") != std::string::npos);
        const float v[4] = {1, 2, 3, 4};
        REQUIRE(tex.set_from_host(v, 2, 2, {}));
        const GLuint picture = tex.rgba_texture();
        CHECK_FALSE(tex.set_from_host(v, 0, 2, {}));
        CHECK_FALSE(tex.set_from_host(v, -3, 2, {}));
        CHECK(tex.status().reason.find("empty tensor") != std::string::npos);
        CHECK(tex.rgba_texture() == picture);
        CHECK(tex.width() == 2);
        CHECK_FALSE(tex.set_from_device(nullptr, 2, 2, {}));
        CHECK(tex.rgba_texture() == picture);
        const float inf = std::numeric_limits<float>::infinity();
        CHECK(tex.set_from_host(v, 2, 2, {-inf, inf}));  // a non-finite range still draws
    }

    TEST_CASE("without interop set_from_device says why and the host path still works") {
        GPULAB_REQUIRE_GL();
        gpulab::gpu::InteropCheck check = gpulab::gpu::check_gl_interop();
        MESSAGE("interop: " << check.reason);
        CHECK_FALSE(check.reason.empty());
        if (check.ok) return;  // a real interop machine: the pointer below would be dereferenced
        TensorTexture tex;
        const float v[4] = {-1, 0, 1, 0};
        CHECK_FALSE(tex.set_from_device(v, 2, 2, {}));
        CHECK(tex.status().reason == check.reason);
        CHECK(tex.status().path == DisplayPath::None);
        REQUIRE(tex.set_from_host(v, 2, 2, {}));
        CHECK(tex.status().path == DisplayPath::HostUpload);
        CHECK(tex.status().reason.find(check.reason.substr(check.reason.find(':') + 1)) != std::string::npos);
    }

    TEST_CASE("GPU timers deliver results later without blocking") {
        GPULAB_REQUIRE_GL();
        GpuFrameTimer frame;
        CHECK(frame.last_ns() == -1);
        std::vector<float> values(256 * 256, 0.5f);
        TensorTexture tex;
        frame.begin_frame();
        // The texture's own timestamp queries run inside the frame's GL_TIME_ELAPSED query.
        REQUIRE(tex.set_from_host(values.data(), 256, 256, {}));
        frame.end_frame();
        CHECK(glGetError() == GL_NO_ERROR);
        glFinish();
        frame.begin_frame();
        REQUIRE(tex.set_from_host(values.data(), 256, 256, {}));
        frame.end_frame();
        CHECK(frame.last_ns() >= 0);
        CHECK(tex.status().upload_ns >= 0);
        glFinish();
        REQUIRE(tex.set_from_host(values.data(), 256, 256, {}));
        CHECK(tex.status().colormap_ns >= 0);
        MESSAGE("frame " << frame.last_ns() << " ns, upload " << tex.status().upload_ns << " ns, colormap "
                         << tex.status().colormap_ns << " ns");
    }
}

TEST_SUITE("gpu") {
    TEST_CASE("interop shows a device tensor exactly as the host upload does") {
        GPULAB_REQUIRE_GL();
        const gpulab::gpu::GpuProbe& probe = gpulab::gpu::probe();
        if (!probe.device_ok) {
            // make gpu-check sets GPULAB_REQUIRE_GPU=1: there a missing device is a failure.
            const char* require = std::getenv("GPULAB_REQUIRE_GPU");
            if (require != nullptr && std::string(require) == "1") FAIL("GPULAB_REQUIRE_GPU=1 but no CUDA device: " << probe.reason);
            std::printf("SKIPPED: no CUDA device (%s)\n", probe.reason.c_str());
            return;
        }
        gpulab::gpu::InteropCheck check = gpulab::gpu::check_gl_interop();
        if (!check.ok) {
            std::printf("SKIPPED: no CUDA-GL interop (%s)\n", check.reason.c_str());
            return;
        }
        gpulab::core::BackendList backends = gpulab::gpu::make_backends();
        gpulab::core::Backend* cuda = nullptr;
        for (auto& b : backends)
            if (b->name() == "cuda-kernel") cuda = b.get();
        REQUIRE(cuda != nullptr);
        REQUIRE_MESSAGE(cuda->availability().ok, cuda->availability().reason);

        const int w = 64, h = 32;
        gpulab::core::Tensor in = gpulab::core::Tensor::zeros({h, w});
        for (int i = 0; i < w * h; ++i) in.ptr()[i] = static_cast<float>((i % w) - w / 2) / 8.0f;
        gpulab::core::Tensor out = gpulab::core::Tensor::zeros({h, w});
        gpulab::core::OpDesc op;
        op.activation = gpulab::core::Activation::Tanh;  // keeps both signs, so both colours appear
        gpulab::core::RunResult r = cuda->run(op, in, out);
        REQUIRE_MESSAGE(r.ok, r.error);
        const void* d_out = cuda->device_output();
        if (d_out == nullptr) {
            std::printf("SKIPPED: no CUDA device (the cuda-kernel backend keeps no device output)\n");
            return;
        }

        TensorTexture via_interop, via_host;
        REQUIRE_MESSAGE(via_interop.set_from_device(d_out, w, h, {}), via_interop.status().reason);
        CHECK(via_interop.status().path == DisplayPath::Interop);
        CHECK(via_interop.status().upload_ns >= 0);
        REQUIRE(via_host.set_from_host(out.ptr(), w, h, {}));
        std::vector<uint8_t> a = via_interop.read_rgba(), b = via_host.read_rgba();
        REQUIRE(a.size() == b.size());
        int worst = 0;
        for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(int(a[i]) - int(b[i])));
        CHECK(worst <= 1);
        MESSAGE(via_interop.status().reason << "; copy " << via_interop.status().upload_ns << " ns");

        // Same size again: the registration is reused (no re-register cost), and it still draws.
        REQUIRE(via_interop.set_from_device(d_out, w, h, {}));
        CHECK(via_interop.status().path == DisplayPath::Interop);
    }
}
