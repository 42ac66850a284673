// Shows a 2D float tensor as a colour-mapped picture: the floats go into a GL_R32F texture,
// either by host upload through a pixel buffer object or, when the GL context runs on the CUDA
// device, straight from device memory through CUDA-GL interop (kernels/interop/gl_interop.h). A render
// pass with shaders/colormap.frag turns it into an RGBA texture that ImGui::Image can draw, on the
// diverging ramp the caller names (diverging_ramp.h: blue-white-red, or blue-white-orange).
// Both paths are timed, and the path in use is reported with its reason.
//
// Orientation: texture row 0 is tensor row 0, so ImGui::Image(id, size) with the default uvs
// shows the tensor the right way up. Sampling of the RGBA texture is GL_NEAREST up to
// kNearestMaxSide (each element a crisp square when zoomed), GL_LINEAR above.
// All calls need the GL context current that was current at construction.
#pragma once

#include <glad/gl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "diverging_ramp.h"

namespace gpulab::app {

enum class DisplayPath { None, HostUpload, Interop };

struct DisplayStatus {
    DisplayPath path = DisplayPath::None;
    std::string reason;       // "interop: GL context on CUDA device 0" / "host upload: no CUDA device (...)"
    // GPU times arrive late: right after a set_* these hold the previous pass's time (-1 before
    // any), and poll_timing() replaces them once the GPU has finished the new pass.
    int64_t upload_ns = -1;    // last upload/copy into the float texture (GPU time)
    int64_t host_copy_ns = -1; // host path: CPU time writing the floats (downsampled) into the PBO
    int64_t colormap_ns = -1;  // last colormap pass
    bool interop_ok = false;  // could CUDA write into this context's textures at all
    std::string interop_reason;  // check_gl_interop's answer, shown when interop is impossible
    int source_width = 0, source_height = 0;  // the tensor as given
    int downsample = 1;       // host path: each pixel is the mean of a downsample x downsample block
};

struct ColorRange {
    float lo = -1.0f, hi = 1.0f;  // diverging map centred on 0: blue below, white at 0, red (or orange) above
    // Which version of the map: the views pass the View menu's palette's (widgets/diverging_map.h).
    DivergingRamp ramp = DivergingRamp::BlueRed;
};

class TensorTexture {
public:
    TensorTexture();
    ~TensorTexture();
    TensorTexture(const TensorTexture&) = delete;
    TensorTexture& operator=(const TensorTexture&) = delete;

    // Host path: width*height floats, row-major. Large tensors are shown downsampled to at most
    // kMaxDisplaySide on a side (the status says so). Returns false, keeping the previous picture,
    // for bad input (null data, a non-positive size) or a GL failure; status().reason says which.
    bool set_from_host(const float* data, int width, int height, ColorRange range);
    // Interop path: device pointer (from Backend::device_output()). Returns false, leaving the
    // previous picture and a reason in status(), when interop is impossible; the caller then
    // uses set_from_host. Shown at full size (up to GL_MAX_TEXTURE_SIZE): there is no
    // downsampling on the device.
    bool set_from_device(const void* d_data, int width, int height, ColorRange range);

    // GL timer results arrive a frame or more after the work: call once per frame to move the
    // finished ones into status() (never waits for the GPU).
    void poll_timing();

    GLuint rgba_texture() const;  // for ImGui::Image; 0 before the first set
    int width() const;            // of the displayed picture
    int height() const;
    const DisplayStatus& status() const;
    // The displayed RGBA8 picture, texture row 0 (tensor row 0) first; empty before the first set.
    // Blocks until the GPU is done: for tests and export, not per frame.
    std::vector<uint8_t> read_rgba() const;

    static constexpr int kMaxDisplaySide = 2048;
    static constexpr int kNearestMaxSide = 512;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gpulab::app
