// CUDA-OpenGL interop for showing a tensor that lives on the GPU, behind plain C++ types
// (GL names are unsigned ints; device pointers are void*). The app includes this, never CUDA.
//
// Steps (as cuda-samples simpleGL lists them): after the GL context is current, ask CUDA which
// devices run it (cudaGLGetDevices); if ours is among them, register the texture once
// (cudaGraphicsGLRegisterImage), and per frame map it, copy the device tensor into its array,
// unmap. When any step is impossible the app falls back to a host upload through a PBO and shows
// the reason returned here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace gpulab::gpu {

struct InteropCheck {
    bool ok = false;
    std::string reason;  // why interop is or is not possible, shown in the status bar
};

// Call with a current GL context. Cheap to call again (cached per context).
InteropCheck check_gl_interop();

class GlTextureInterop {
public:
    virtual ~GlTextureInterop() = default;
    // Copies width*height floats from device memory into the registered GL_R32F texture.
    // Returns the GPU time of map + copy + unmap in nanoseconds, or -1 with error() set.
    virtual int64_t copy_from_device(const void* d_src, int width, int height) = 0;
    virtual const std::string& error() const = 0;
};

// Registers an existing GL_R32F texture (size fixed). nullptr with `why` filled when impossible.
std::unique_ptr<GlTextureInterop> register_gl_texture(unsigned gl_texture, int width, int height, std::string& why);

}  // namespace gpulab::gpu
