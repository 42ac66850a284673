// A 2D float tensor on screen: floats into a GL_R32F texture (host upload through a pixel buffer
// object, or CUDA-GL interop straight from device memory), then shaders/colormap.frag into an
// RGBA8 framebuffer texture of the same size.
//
// Host path: the floats are written into a freshly orphaned PBO (glBufferData with no data
// gives the driver a new buffer if the GPU is still reading the last one, so the CPU never
// waits), and glTexSubImage2D copies from the PBO to the texture on the GPU's side.
// Tensors larger than kMaxDisplaySide are box-averaged on the host by an integer factor f (each
// pixel is the mean of an f x f block): unlike taking every f-th element, a box keeps a lone
// spike visible as a tint and does not alias stripes into moire. A NaN anywhere in a block
// makes that pixel NaN on purpose, so downsampling can never hide one.
//
// Timing uses GL_TIMESTAMP pairs (gpu_timer.h) collected on a later call, never waiting; the
// interop copy is timed by CUDA events in kernels/.
// Verified by tests/test_gl_render.cpp (colours of -1, 0, +1, NaN; 3000x1000 shown at
// 1500x500; bad input; the CPU-only build's interop reason) and by /tmp/gl_colormap_demo.png.
#include "tensor_texture.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "interop/gl_interop.h"
#include "gl_objects.h"
#include "gl_util.h"
#include "render_problems.h"
#include "gpu_timer.h"

namespace gpulab::app {

namespace {

// Saves and restores the GL state a pass here touches, so calling set_* in the middle of an
// ImGui frame (or of the app's own rendering) leaves that frame's state as it was.
class StateGuard {
public:
    StateGuard() {
        glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_fbo_);
        glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fbo_);
        glGetIntegerv(GL_VIEWPORT, viewport_);
        glGetIntegerv(GL_CURRENT_PROGRAM, &program_);
        glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vao_);
        glGetIntegerv(GL_ACTIVE_TEXTURE, &active_texture_);
        glActiveTexture(GL_TEXTURE0);
        glGetIntegerv(GL_TEXTURE_BINDING_2D, &texture_);
        glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &unpack_buffer_);
        blend_ = glIsEnabled(GL_BLEND);
        scissor_ = glIsEnabled(GL_SCISSOR_TEST);
        depth_ = glIsEnabled(GL_DEPTH_TEST);
        cull_ = glIsEnabled(GL_CULL_FACE);
        // A scissor or blend left on by the caller would clip or tint the pass.
        glDisable(GL_BLEND);
        glDisable(GL_SCISSOR_TEST);
        glDisable(GL_DEPTH_TEST);
        glDisable(GL_CULL_FACE);
    }
    ~StateGuard() {
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(draw_fbo_));
        glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(read_fbo_));
        glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
        glUseProgram(static_cast<GLuint>(program_));
        glBindVertexArray(static_cast<GLuint>(vao_));
        glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(texture_));
        glActiveTexture(static_cast<GLenum>(active_texture_));
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, static_cast<GLuint>(unpack_buffer_));
        restore(GL_BLEND, blend_);
        restore(GL_SCISSOR_TEST, scissor_);
        restore(GL_DEPTH_TEST, depth_);
        restore(GL_CULL_FACE, cull_);
    }
    StateGuard(const StateGuard&) = delete;
    StateGuard& operator=(const StateGuard&) = delete;

private:
    static void restore(GLenum cap, GLboolean on) {
        if (on) glEnable(cap);
        else glDisable(cap);
    }
    GLint draw_fbo_ = 0, read_fbo_ = 0, viewport_[4] = {0, 0, 0, 0}, program_ = 0, vao_ = 0;
    GLint active_texture_ = GL_TEXTURE0, texture_ = 0, unpack_buffer_ = 0;
    GLboolean blend_ = GL_FALSE, scissor_ = GL_FALSE, depth_ = GL_FALSE, cull_ = GL_FALSE;
};

// Mean of each f x f block (edge blocks are smaller). NaN propagates through the sum by design.
void box_downsample(const float* src, int width, int height, int f, float* dst, int out_w, int out_h) {
    for (int oy = 0; oy < out_h; ++oy) {
        const int y0 = oy * f, y1 = std::min(y0 + f, height);
        for (int ox = 0; ox < out_w; ++ox) {
            const int x0 = ox * f, x1 = std::min(x0 + f, width);
            double sum = 0.0;
            for (int y = y0; y < y1; ++y) {
                const float* row = src + static_cast<size_t>(y) * static_cast<size_t>(width);
                for (int x = x0; x < x1; ++x) sum += row[x];
            }
            dst[static_cast<size_t>(oy) * static_cast<size_t>(out_w) + static_cast<size_t>(ox)] =
                static_cast<float>(sum / static_cast<double>((y1 - y0) * (x1 - x0)));
        }
    }
}

std::string size_text(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

}  // namespace

struct TensorTexture::Impl {
    GLuint float_tex = 0, pbo = 0, vao = 0, program = 0;
    GLint u_values = -1, u_lo = -1, u_hi = -1, u_stops = -1;
    int tex_w = 0, tex_h = 0;  // storage of float_tex
    bool program_failed = false;
    std::string program_log;
    Framebuffer rgba;
    GpuIntervalTimer upload_timer, colormap_timer;
    int64_t upload_wanted = 0, colormap_wanted = 0;  // issued() after the latest timed pass
    std::unique_ptr<gpu::GlTextureInterop> interop;  // registered for float_tex at tex_w x tex_h
    DisplayStatus status;
    std::vector<float> scratch;  // host copy when the PBO cannot be mapped

    Impl() {
        glGenTextures(1, &float_tex);
        glGenBuffers(1, &pbo);
        glGenVertexArrays(1, &vao);
        note_gl_objects(GlKind::Texture, 1);
        note_gl_objects(GlKind::Buffer, 1);
        note_gl_objects(GlKind::VertexArray, 1);
    }
    ~Impl() {
        interop.reset();  // unregister before the texture goes away
        if (program != 0) {
            glDeleteProgram(program);
            note_gl_objects(GlKind::Program, -1);
        }
        glDeleteVertexArrays(1, &vao);
        glDeleteBuffers(1, &pbo);
        glDeleteTextures(1, &float_tex);
        note_gl_objects(GlKind::Texture, -1);
        note_gl_objects(GlKind::Buffer, -1);
        note_gl_objects(GlKind::VertexArray, -1);
    }

    bool ensure_program() {
        if (program != 0) return true;
        if (program_failed) return false;  // do not recompile and re-log every frame
        program = load_program("textured_quad.vert", "colormap.frag", program_log);
        if (program == 0) {
            program_failed = true;
            // The file and the driver's first complaint, on one line; the rest of its log is detail.
            std::string first = program_log.substr(0, program_log.find('\n'));
            if (const std::size_t nl = program_log.find('\n'); nl != std::string::npos)
                first += " " + program_log.substr(nl + 1, program_log.find('\n', nl + 1) - nl - 1);
            note_render_problem("the colour-map shader could not be used: " + first);
            return false;
        }
        u_values = glGetUniformLocation(program, "u_values");
        u_lo = glGetUniformLocation(program, "u_lo");
        u_hi = glGetUniformLocation(program, "u_hi");
        u_stops = glGetUniformLocation(program, "u_stops");
        return true;
    }

    // (Re)allocates the float texture. Any interop registration is for the old storage and
    // must be dropped first: CUDA would otherwise keep writing into a texture that is gone.
    void ensure_float_texture(int w, int h) {
        if (w == tex_w && h == tex_h) return;
        interop.reset();
        glBindTexture(GL_TEXTURE_2D, float_tex);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, w, h, 0, GL_RED, GL_FLOAT, nullptr);
        // The colormap shader uses texelFetch; NEAREST also keeps the texture complete without mipmaps.
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        tex_w = w;
        tex_h = h;
    }

    // Colour-maps float_tex into the RGBA framebuffer. False with status.reason on failure.
    bool colormap(ColorRange range) {
        if (!ensure_program()) {
            status.reason = "colormap shader unavailable: " + program_log;
            return false;
        }
        if (!rgba.resize(tex_w, tex_h)) {
            status.reason = "cannot create a " + size_text(tex_w, tex_h) + " RGBA8 framebuffer";
            return false;
        }
        const GLint filter = std::max(tex_w, tex_h) <= kNearestMaxSide ? GL_NEAREST : GL_LINEAR;
        glBindTexture(GL_TEXTURE_2D, rgba.texture());
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);

        // A range that is empty or not finite still draws: the shader maps hi <= lo to white.
        float lo = std::isfinite(range.lo) ? range.lo : -1.0f;
        float hi = std::isfinite(range.hi) ? range.hi : 1.0f;
        colormap_timer.collect();
        colormap_timer.begin();
        rgba.bind();
        glUseProgram(program);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, float_tex);
        glUniform1i(u_values, 0);
        glUniform1f(u_lo, lo);
        glUniform1f(u_hi, hi);
        // The ramp is the caller's (the palette's, diverging_ramp.h): the shader holds no colours.
        GLfloat stops[5 * 3];
        for (int i = 0; i < 5; ++i) {
            const Rgb8 c = diverging_stops(range.ramp)[i];
            stops[i * 3 + 0] = c.r / 255.0f;
            stops[i * 3 + 1] = c.g / 255.0f;
            stops[i * 3 + 2] = c.b / 255.0f;
        }
        glUniform3fv(u_stops, 5, stops);
        glBindVertexArray(vao);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        colormap_timer.end();
        colormap_wanted = colormap_timer.issued();
        status.colormap_ns = colormap_timer.last_ns();  // the previous pass until poll_timing() has this one
        return true;
    }
};

TensorTexture::TensorTexture() : impl_(std::make_unique<Impl>()) {}
TensorTexture::~TensorTexture() = default;

bool TensorTexture::set_from_host(const float* data, int width, int height, ColorRange range) {
    DisplayStatus& st = impl_->status;
    if (data == nullptr || width <= 0 || height <= 0) {
        st.reason = "host upload: nothing to show (" + std::string(data == nullptr ? "no data" : "empty tensor") +
                    ", " + size_text(width, height) + ")";
        return false;
    }
    StateGuard guard;
    const int f = std::max((width + kMaxDisplaySide - 1) / kMaxDisplaySide,
                           (height + kMaxDisplaySide - 1) / kMaxDisplaySide);
    const int out_w = (width + f - 1) / f, out_h = (height + f - 1) / f;
    const size_t count = static_cast<size_t>(out_w) * static_cast<size_t>(out_h);
    const size_t bytes = count * sizeof(float);

    impl_->ensure_float_texture(out_w, out_h);
    impl_->upload_timer.collect();
    impl_->upload_timer.begin();
    const auto host_t0 = std::chrono::steady_clock::now();
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, impl_->pbo);
    // Orphan: the driver may hand out fresh memory rather than wait for last frame's copy.
    glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_DRAW);
    void* mapped = glMapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(bytes),
                                    GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT);
    float* dst = static_cast<float*>(mapped);
    if (dst == nullptr) {
        impl_->scratch.resize(count);
        dst = impl_->scratch.data();
    }
    if (f == 1) std::memcpy(dst, data, bytes);
    else box_downsample(data, width, height, f, dst, out_w, out_h);
    if (mapped != nullptr) {
        // GL_FALSE from unmap means the memory was lost (mode switch): upload from the host copy.
        if (glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER) != GL_TRUE) {
            impl_->scratch.resize(count);
            if (f == 1) std::memcpy(impl_->scratch.data(), data, bytes);
            else box_downsample(data, width, height, f, impl_->scratch.data(), out_w, out_h);
            mapped = nullptr;
        }
    }
    if (mapped == nullptr)
        glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(bytes), impl_->scratch.data());
    st.host_copy_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - host_t0)
                          .count();

    GLint prev_alignment = 4;
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &prev_alignment);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);  // rows of floats are always 4-byte aligned
    glBindTexture(GL_TEXTURE_2D, impl_->float_tex);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, out_w, out_h, GL_RED, GL_FLOAT, nullptr);  // from the PBO
    glPixelStorei(GL_UNPACK_ALIGNMENT, prev_alignment);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    impl_->upload_timer.end();
    impl_->upload_wanted = impl_->upload_timer.issued();

    st.path = DisplayPath::HostUpload;
    st.upload_ns = impl_->upload_timer.last_ns();  // the previous copy until poll_timing() has this one
    st.source_width = width;
    st.source_height = height;
    st.downsample = f;
    gpu::InteropCheck check = gpu::check_gl_interop();
    st.interop_ok = check.ok;
    st.interop_reason = check.reason;
    std::string why = check.ok ? "host upload: the data was on the host" : check.reason;
    if (why.rfind("host upload", 0) != 0) why = "host upload: " + why;
    if (f > 1) {
        why += "; " + size_text(width, height) + " shown as " + size_text(out_w, out_h) + " (mean of " +
               std::to_string(f) + "x" + std::to_string(f) + " blocks)";
    }
    st.reason = why;
    return impl_->colormap(range);
}

bool TensorTexture::set_from_device(const void* d_data, int width, int height, ColorRange range) {
    DisplayStatus& st = impl_->status;
    if (d_data == nullptr || width <= 0 || height <= 0) {
        st.reason = "interop: nothing to show (" + std::string(d_data == nullptr ? "no data" : "empty tensor") + ", " +
                    size_text(width, height) + ")";
        return false;
    }
    gpu::InteropCheck check = gpu::check_gl_interop();
    st.interop_ok = check.ok;
    st.interop_reason = check.reason;
    if (!check.ok) {
        st.reason = check.reason;
        return false;
    }
    GLint max_side = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_side);
    if (width > max_side || height > max_side) {
        st.reason = "interop: " + size_text(width, height) + " is larger than GL_MAX_TEXTURE_SIZE " +
                    std::to_string(max_side) + " (the host path downsamples it)";
        return false;
    }
    StateGuard guard;
    impl_->ensure_float_texture(width, height);
    if (!impl_->interop) {
        std::string why;
        impl_->interop = gpu::register_gl_texture(impl_->float_tex, width, height, why);
        if (!impl_->interop) {
            st.reason = "interop: registering the texture failed: " + why;
            return false;
        }
    }
    const int64_t ns = impl_->interop->copy_from_device(d_data, width, height);
    if (ns < 0) {
        st.reason = "interop: copy failed: " + impl_->interop->error();
        impl_->interop.reset();  // registering again next time may work (e.g. after a context change)
        return false;
    }
    st.path = DisplayPath::Interop;
    st.upload_ns = ns;
    st.host_copy_ns = -1;
    st.source_width = width;
    st.source_height = height;
    st.downsample = 1;
    st.reason = check.reason;
    return impl_->colormap(range);
}

void TensorTexture::poll_timing() {
    Impl& m = *impl_;
    m.colormap_timer.collect();
    if (m.colormap_wanted > 0 && m.colormap_timer.collected() >= m.colormap_wanted)
        m.status.colormap_ns = m.colormap_timer.last_ns();
    // The interop copy is timed by CUDA events and already known; only the host path waits on GL.
    if (m.status.path != DisplayPath::HostUpload) return;
    m.upload_timer.collect();
    if (m.upload_wanted > 0 && m.upload_timer.collected() >= m.upload_wanted)
        m.status.upload_ns = m.upload_timer.last_ns();
}

GLuint TensorTexture::rgba_texture() const { return impl_->rgba.width() > 0 ? impl_->rgba.texture() : 0; }
int TensorTexture::width() const { return impl_->rgba.width(); }
int TensorTexture::height() const { return impl_->rgba.height(); }
const DisplayStatus& TensorTexture::status() const { return impl_->status; }

std::vector<uint8_t> TensorTexture::read_rgba() const { return impl_->rgba.read_rgba(true); }

}  // namespace gpulab::app
