// Small OpenGL helpers: shader programs loaded at run time from shaders/, error checks, and an
// offscreen framebuffer that can be read back into RGBA pixels (for export and screenshots).
#pragma once

#include <glad/gl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gpulab::app {

// Compiles and links shaders/<vert> + shaders/<frag>, found with find_resource(). 0 with `log` set
// on failure (the compile log is always kept: a broken shader file must say which line is wrong).
GLuint load_program(const std::string& vert_file, const std::string& frag_file, std::string& log);

// The same with explicit file paths; every message names the file it is about.
GLuint load_program_files(const std::string& vert_path, const std::string& frag_path, std::string& log);

// In debug builds drains glGetError(), logging each error with `where` to stderr, and returns false
// if one was pending. Release builds return true without asking: glGetError can stall a threaded
// driver, and this is meant to be sprinkled through per-frame code.
bool check_gl(const char* where);

// "GL_INVALID_OPERATION" etc., or the number in hex for codes this does not know.
std::string gl_error_name(GLenum error);

// An RGBA8 colour attachment to render into and read back.
class Framebuffer {
public:
    Framebuffer() = default;
    ~Framebuffer();
    Framebuffer(const Framebuffer&) = delete;
    Framebuffer& operator=(const Framebuffer&) = delete;
    bool resize(int width, int height);  // (re)creates; false when incomplete
    void bind() const;                   // binds and sets the viewport
    GLuint texture() const { return texture_; }
    int width() const { return width_; }
    int height() const { return height_; }
    // Top row first (flipped from GL's bottom-up order), 4 bytes per pixel. Use this for rendered
    // frames; as_stored = true gives texture row 0 first (what TensorTexture wants).
    std::vector<uint8_t> read_rgba(bool as_stored = false) const;

private:
    GLuint fbo_ = 0, texture_ = 0;
    int width_ = 0, height_ = 0;
};

// Reads the currently bound read framebuffer region, top row first. Empty for a non-positive size.
std::vector<uint8_t> read_pixels_rgba(int x, int y, int width, int height);

}  // namespace gpulab::app
