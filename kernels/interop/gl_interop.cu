// CUDA-OpenGL interop: show a tensor that lives on the GPU in a GL texture without a trip through
// host memory. Implements kernels/interop/gl_interop.h.
//
// The steps, in order (as cuda-samples' simpleGL and postProcessGL do them):
//   1. A GL context is current on this thread (the app made it; GL calls stay on the main thread).
//   2. check_gl_interop(): cudaGLGetDevices(..., cudaGLDeviceListAll) lists the CUDA devices that
//      run this context. If ours is not among them (Mesa llvmpipe, another vendor's GPU, a second
//      NVIDIA card) interop is impossible and the app uses its host-upload path with our reason.
//   3. register_gl_texture(): cudaGraphicsGLRegisterImage(GL_TEXTURE_2D, WriteDiscard), once per
//      texture. WriteDiscard tells the driver we overwrite the whole texture, so it need not keep
//      the old contents; hence copies must cover the full registered size.
//   4. copy_from_device(), per frame: cudaGraphicsMapResources -> cudaGraphicsSubResourceGetMappedArray
//      -> cudaMemcpy2DToArrayAsync (device to device) -> cudaGraphicsUnmapResources, on one stream,
//      timed with events from before the map to after the unmap.
//   5. The destructor unregisters (cudaGraphicsUnregisterResource); the GL context must still be
//      current then, since the texture belongs to it.
// No kernels here, so no thread mapping.
//
// Glad's <glad/gl.h> comes BEFORE <cuda_gl_interop.h>: the CUDA header would otherwise include the
// system <GL/gl.h>, whose declarations clash with glad's loader.
//
// Verified by tests/test_gpu_backends.cpp: on a machine without a CUDA device the check returns
// "host upload: no CUDA device (...)"; the round trip through a real texture needs a GL context on
// an NVIDIA GPU and is exercised by the app's interop test (owned by the app).
#include <glad/gl.h>
// glad first, see above.
#include <cuda_gl_interop.h>

#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include "cuda/cuda_check.cuh"
#include "cuda/device_buffer.cuh"
#include "gl_interop.h"
#include "gpu_backends.h"

namespace gpulab::gpu {

namespace {

constexpr unsigned kMaxGlDevices = 8;

// The renderer string of the current context, or empty when there is none. glad's function
// pointers are null until the app has loaded GL, and glGetString returns null without a context.
std::string current_renderer() {
    if (glad_glGetString == nullptr) return {};
    const GLubyte* r = glGetString(GL_RENDERER);
    return r != nullptr ? std::string(reinterpret_cast<const char*>(r)) : std::string();
}

InteropCheck check_uncached(const std::string& renderer) {
    const GpuProbe& p = probe();
    if (!p.device_ok) return {false, "host upload: no CUDA device (" + p.reason + ")"};
    if (renderer.empty()) return {false, "host upload: no current OpenGL context to share with CUDA"};
    try {
        int ours = 0;
        GPULAB_CUDA_CHECK(cudaGetDevice(&ours));
        unsigned found = 0;
        int devices[kMaxGlDevices] = {};
        const cudaError_t e = cudaGLGetDevices(&found, devices, kMaxGlDevices, cudaGLDeviceListAll);
        if (e != cudaSuccess || found == 0) {
            // Mesa, Intel, AMD: the driver answers with an error or an empty list; either way no
            // CUDA device draws this context.
            cudaGetLastError();
            return {false, "host upload: GL context runs on a non-CUDA device (" + renderer + ")"};
        }
        for (unsigned i = 0; i < found && i < kMaxGlDevices; ++i) {
            if (devices[i] == ours) {
                return {true, "CUDA-GL interop: " + renderer + " is CUDA device " + std::to_string(ours)};
            }
        }
        return {false, "host upload: GL context runs on CUDA device " + std::to_string(devices[0]) + " (" +
                           renderer + ") but gpulab computes on device " + std::to_string(ours)};
    } catch (const std::exception& ex) {
        return {false, std::string("host upload: ") + ex.what()};
    }
}

class RegisteredTexture final : public GlTextureInterop {
public:
    RegisteredTexture(cudaGraphicsResource_t res, int width, int height)
        : res_(res), width_(width), height_(height) {}
    RegisteredTexture(const RegisteredTexture&) = delete;
    RegisteredTexture& operator=(const RegisteredTexture&) = delete;
    ~RegisteredTexture() override {
        cudaGraphicsUnregisterResource(res_);
        cudaGetLastError();
    }

    int64_t copy_from_device(const void* d_src, int width, int height) override {
        error_.clear();
        if (d_src == nullptr) return fail("interop copy: no device tensor to show");
        if (width != width_ || height != height_) {
            return fail("interop copy: tensor is " + std::to_string(width) + "x" + std::to_string(height) +
                        " but the registered texture is " + std::to_string(width_) + "x" + std::to_string(height_));
        }
        bool mapped = false;
        try {
            if (!stream_) stream_ = std::make_unique<cuda::Stream>();
            if (!start_) start_ = std::make_unique<cuda::Event>();
            if (!stop_) stop_ = std::make_unique<cuda::Event>();
            const cudaStream_t s = stream_->get();
            const std::size_t row_bytes = static_cast<std::size_t>(width) * sizeof(float);
            start_->record(s);
            GPULAB_CUDA_CHECK(cudaGraphicsMapResources(1, &res_, s));
            mapped = true;
            cudaArray_t array = nullptr;
            GPULAB_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, res_, 0, 0));
            GPULAB_CUDA_CHECK(cudaMemcpy2DToArrayAsync(array, 0, 0, d_src, row_bytes, row_bytes,
                                                       static_cast<std::size_t>(height), cudaMemcpyDeviceToDevice, s));
            GPULAB_CUDA_CHECK(cudaGraphicsUnmapResources(1, &res_, s));
            mapped = false;
            stop_->record(s);
            stop_->synchronize();
            return cuda::elapsed_ns(*start_, *stop_);
        } catch (const std::exception& ex) {
            if (mapped) {
                // Give the texture back to GL even after a failed copy, or GL could not draw it.
                cudaGraphicsUnmapResources(1, &res_, stream_ ? stream_->get() : nullptr);
                cudaGetLastError();
            }
            return fail(ex.what());
        }
    }

    const std::string& error() const override { return error_; }

private:
    int64_t fail(std::string why) {
        error_ = std::move(why);
        return -1;
    }

    cudaGraphicsResource_t res_ = nullptr;
    int width_ = 0, height_ = 0;
    std::unique_ptr<cuda::Stream> stream_;
    std::unique_ptr<cuda::Event> start_, stop_;
    std::string error_;
};

}  // namespace

InteropCheck check_gl_interop() {
    // Cached per renderer: the answer depends only on which device runs the context, and asking
    // the driver every frame would cost more than the copy it guards.
    static std::mutex m;
    static std::string cached_renderer;
    static InteropCheck cached;
    static bool have_cached = false;
    // A frame asks this: until probe() has finished (the warm-up thread runs it) the answer is "not
    // yet", uncached, rather than waiting for the cold start.
    if (!probe_ready()) return {false, std::string("host upload: ") + kProbing};
    try {
        const std::string renderer = current_renderer();
        std::lock_guard<std::mutex> lock(m);
        if (have_cached && renderer == cached_renderer) return cached;
        cached = check_uncached(renderer);
        cached_renderer = renderer;
        have_cached = true;
        return cached;
    } catch (const std::exception& ex) {
        return {false, std::string("host upload: ") + ex.what()};
    }
}

std::unique_ptr<GlTextureInterop> register_gl_texture(unsigned gl_texture, int width, int height, std::string& why) {
    if (gl_texture == 0 || width <= 0 || height <= 0) {
        why = "interop: texture name must be non-zero and its size positive (got texture " +
              std::to_string(gl_texture) + ", " + std::to_string(width) + "x" + std::to_string(height) + ")";
        return nullptr;
    }
    const InteropCheck check = check_gl_interop();
    if (!check.ok) {
        why = check.reason;
        return nullptr;
    }
    try {
        cudaGraphicsResource_t res = nullptr;
        GPULAB_CUDA_CHECK(
            cudaGraphicsGLRegisterImage(&res, gl_texture, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsWriteDiscard));
        why.clear();
        return std::make_unique<RegisteredTexture>(res, width, height);
    } catch (const std::exception& ex) {
        why = ex.what();
        return nullptr;
    }
}

}  // namespace gpulab::gpu
