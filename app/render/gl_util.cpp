// Shader programs from files, GL error names, and an RGBA8 framebuffer that reads back as pixels.
// Verified by tests/test_gl_render.cpp: the colormap program links from shaders/, a missing file
// gives 0 and a log naming it, a broken shader gives a log naming the file, and a Framebuffer
// read back after a clear has the clear colour.
#include "gl_util.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "io/file_io.h"
#include "gl_objects.h"
#include "resources.h"

namespace gpulab::app {

namespace {

constexpr std::int64_t kMaxShaderBytes = 1 << 20;  // a shader is a few KiB

// Through the checked door (core/io/file_io.h): a FIFO or /dev/zero under a shader's name is a
// sentence in the log, not a hang or an allocation that never ends (issue 31, item 2).
bool read_text_file(const std::string& path, std::string& text, std::string& why) {
    try {
        text = core::read_input_file(path, kMaxShaderBytes, "shader file");
        return true;
    } catch (const std::exception& e) {
        why = e.what();
        return false;
    }
}

std::string shader_log(GLuint shader) {
    GLint len = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &len);
    std::string text(static_cast<size_t>(len > 1 ? len : 1), '\0');
    glGetShaderInfoLog(shader, len, nullptr, text.data());
    text.resize(text.find('\0') == std::string::npos ? text.size() : text.find('\0'));
    return text;
}

std::string program_log(GLuint program) {
    GLint len = 0;
    glGetProgramiv(program, GL_INFO_LOG_LENGTH, &len);
    std::string text(static_cast<size_t>(len > 1 ? len : 1), '\0');
    glGetProgramInfoLog(program, len, nullptr, text.data());
    text.resize(text.find('\0') == std::string::npos ? text.size() : text.find('\0'));
    return text;
}

// 0 with `log` set on failure. The driver's log says "0:12(5): error ..."; the "0" is the source
// string index, so the file name is put in front to make the line number usable.
GLuint compile_shader(GLenum type, const std::string& path, std::string& log) {
    std::string source, why;
    if (!read_text_file(path, source, why)) {
        log = "cannot read shader file " + path + " (" + why + ")";
        return 0;
    }
    GLuint shader = glCreateShader(type);
    note_gl_objects(GlKind::Shader, 1);
    const char* src = source.c_str();
    glShaderSource(shader, 1, &src, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok != GL_TRUE) {
        log = path + ": compile failed:\n" + shader_log(shader);
        glDeleteShader(shader);
        note_gl_objects(GlKind::Shader, -1);
        return 0;
    }
    std::string warnings = shader_log(shader);
    if (!warnings.empty()) log += path + ": " + warnings;
    return shader;
}

// Flips rows in place: GL stores the bottom row first.
void flip_rows(std::vector<uint8_t>& pixels, int width, int height) {
    const size_t stride = static_cast<size_t>(width) * 4;
    std::vector<uint8_t> row(stride);
    for (int y = 0; y < height / 2; ++y) {
        uint8_t* a = pixels.data() + static_cast<size_t>(y) * stride;
        uint8_t* b = pixels.data() + static_cast<size_t>(height - 1 - y) * stride;
        std::copy(a, a + stride, row.data());
        std::copy(b, b + stride, a);
        std::copy(row.data(), row.data() + stride, b);
    }
}

}  // namespace

GLuint load_program_files(const std::string& vert_path, const std::string& frag_path, std::string& log) {
    log.clear();
    GLuint vs = compile_shader(GL_VERTEX_SHADER, vert_path, log);
    if (vs == 0) return 0;
    GLuint fs = compile_shader(GL_FRAGMENT_SHADER, frag_path, log);
    if (fs == 0) {
        glDeleteShader(vs);
        note_gl_objects(GlKind::Shader, -1);
        return 0;
    }
    GLuint program = glCreateProgram();
    note_gl_objects(GlKind::Program, 1);
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    // The program keeps the compiled code; the shader objects are no longer needed.
    glDetachShader(program, vs);
    glDetachShader(program, fs);
    glDeleteShader(vs);
    glDeleteShader(fs);
    note_gl_objects(GlKind::Shader, -2);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
        log = "linking " + vert_path + " + " + frag_path + " failed:\n" + program_log(program);
        glDeleteProgram(program);
        note_gl_objects(GlKind::Program, -1);
        return 0;
    }
    return program;
}

GLuint load_program(const std::string& vert_file, const std::string& frag_file, std::string& log) {
    log.clear();
    for (const std::string* name : {&vert_file, &frag_file}) {
        if (find_resource("shaders/" + *name).empty()) {
            const char* env = std::getenv("GPULAB_DATA_DIR");
            log = "shader file shaders/" + *name + " not found (" +
                  (env && env[0] ? "looked only in GPULAB_DATA_DIR=" + std::string(env)
                                 : std::string("looked next to the binary, its parents, the source tree and the "
                                               "working directory; set GPULAB_DATA_DIR to the folder with shaders/")) +
                  ")";
            return 0;
        }
    }
    return load_program_files(find_resource("shaders/" + vert_file).string(),
                              find_resource("shaders/" + frag_file).string(), log);
}

std::string gl_error_name(GLenum error) {
    switch (error) {
        case GL_NO_ERROR: return "GL_NO_ERROR";
        case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
        case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
        case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
        case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
        case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
        default: {
            char buf[32];
            std::snprintf(buf, sizeof buf, "GL error 0x%04X", error);
            return buf;
        }
    }
}

bool check_gl(const char* where) {
#ifdef NDEBUG
    (void)where;
    return true;
#else
    bool clean = true;
    // A bounded loop: glGetError without a current context can keep returning an error forever.
    for (int i = 0; i < 16; ++i) {
        GLenum e = glGetError();
        if (e == GL_NO_ERROR) break;
        std::fprintf(stderr, "gpulab: %s after %s\n", gl_error_name(e).c_str(), where ? where : "(unknown)");
        clean = false;
    }
    return clean;
#endif
}

Framebuffer::~Framebuffer() {
    if (fbo_ != 0) {
        glDeleteFramebuffers(1, &fbo_);
        note_gl_objects(GlKind::Framebuffer, -1);
    }
    if (texture_ != 0) {
        glDeleteTextures(1, &texture_);
        note_gl_objects(GlKind::Texture, -1);
    }
}

bool Framebuffer::resize(int width, int height) {
    if (width <= 0 || height <= 0) return false;
    if (fbo_ != 0 && width == width_ && height == height_) return true;
    if (texture_ == 0) {
        glGenTextures(1, &texture_);
        note_gl_objects(GlKind::Texture, 1);
    }
    if (fbo_ == 0) {
        glGenFramebuffers(1, &fbo_);
        note_gl_objects(GlKind::Framebuffer, 1);
    }

    GLint prev_tex = 0, prev_fbo = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &prev_tex);
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &prev_fbo);

    glBindTexture(GL_TEXTURE_2D, texture_);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture_, 0);
    const bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;

    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(prev_fbo));
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(prev_tex));
    width_ = complete ? width : 0;
    height_ = complete ? height : 0;
    return complete;
}

void Framebuffer::bind() const {
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glViewport(0, 0, width_, height_);
}

std::vector<uint8_t> Framebuffer::read_rgba(bool as_stored) const {
    if (fbo_ == 0 || width_ <= 0 || height_ <= 0) return {};
    GLint prev_read = 0;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &prev_read);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
    std::vector<uint8_t> pixels = read_pixels_rgba(0, 0, width_, height_);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(prev_read));
    // read_pixels_rgba flipped to top-first; flipping back gives the stored order.
    if (as_stored) flip_rows(pixels, width_, height_);
    return pixels;
}

std::vector<uint8_t> read_pixels_rgba(int x, int y, int width, int height) {
    if (width <= 0 || height <= 0) return {};
    std::vector<uint8_t> pixels(static_cast<size_t>(width) * static_cast<size_t>(height) * 4);
    GLint prev_pack_buffer = 0, prev_alignment = 4;
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &prev_pack_buffer);
    glGetIntegerv(GL_PACK_ALIGNMENT, &prev_alignment);
    // A bound pack buffer would turn the pointer into an offset into that buffer.
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(x, y, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    glPixelStorei(GL_PACK_ALIGNMENT, prev_alignment);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(prev_pack_buffer));
    flip_rows(pixels, width, height);
    return pixels;
}

}  // namespace gpulab::app
