// An OpenGL 3.3 core context with no window, made with EGL. Platforms are tried in this order:
//   1. EGL device platform, NVIDIA devices only (EGL_NV_device_cuda): a GPU server with no X,
//      and the context sits on a CUDA device, which CUDA-GL interop needs;
//   2. Mesa's surfaceless platform (llvmpipe or a Mesa GPU driver, no display server);
//   3. EGL device platform, any other device;
//   4. the default display (whatever EGL_PLATFORM / DISPLAY give).
// GPULAB_EGL_PLATFORM=device|surfaceless|default forces one of them, to test a path by hand.
// Every failure is a step name plus the EGL error name, joined into one readable line.
//
// libEGL is opened with dlopen and its entry points given to glad, so the same binary starts on
// a machine without libEGL and just reports that.
// Verified by tests/test_gl_render.cpp with DISPLAY unset (Mesa surfaceless, llvmpipe).
#include "offscreen_context.h"

#include <dlfcn.h>
#include <glad/egl.h>
#include <glad/gl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace gpulab::app {

namespace {

using RealGetProcAddress = void (*(*)(const char*))();

// The real libEGL, opened once and kept for the life of the process: contexts may outlive any
// one OffscreenContext object (glad's pointers are global).
struct EglLibrary {
    void* handle = nullptr;
    RealGetProcAddress get_proc = nullptr;
};

EglLibrary& egl_library() {
    static EglLibrary lib = [] {
        EglLibrary l;
        l.handle = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
        if (l.handle == nullptr) l.handle = dlopen("libEGL.so", RTLD_NOW | RTLD_LOCAL);
        if (l.handle != nullptr)
            l.get_proc = reinterpret_cast<RealGetProcAddress>(dlsym(l.handle, "eglGetProcAddress"));
        return l;
    }();
    return lib;
}

// Core entry points are exported by libEGL; extension ones only come from eglGetProcAddress.
GLADapiproc load_egl_symbol(const char* name) {
    EglLibrary& lib = egl_library();
    if (void* sym = dlsym(lib.handle, name)) return reinterpret_cast<GLADapiproc>(sym);
    return lib.get_proc != nullptr ? reinterpret_cast<GLADapiproc>(lib.get_proc(name)) : nullptr;
}

GLADapiproc load_gl_symbol(const char* name) { return reinterpret_cast<GLADapiproc>(eglGetProcAddress(name)); }

std::string egl_error_name(EGLint error) {
    switch (error) {
        case EGL_SUCCESS: return "EGL_SUCCESS";
        case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
        case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
        case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
        case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
        case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
        case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
        case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
        case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
        case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
        case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
        case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
        case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
        case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
        case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
        default: return "EGL error " + std::to_string(error);
    }
}

std::string last_egl_error() { return eglGetError != nullptr ? egl_error_name(eglGetError()) : "EGL not loaded"; }

bool has_word(const char* list, const char* word) {
    if (list == nullptr) return false;
    const size_t n = std::strlen(word);
    for (const char* p = std::strstr(list, word); p != nullptr; p = std::strstr(p + 1, word)) {
        const bool starts = p == list || p[-1] == ' ';
        const bool ends = p[n] == '\0' || p[n] == ' ';
        if (starts && ends) return true;
    }
    return false;
}

// What the client (no-display) extension string offered, captured before any per-display glad
// load overwrites glad's extension flags.
struct ClientCaps {
    bool platform_base = false;
    bool device = false;       // enumeration + platform_device + device_query
    bool surfaceless = false;  // EGL_MESA_platform_surfaceless
};

class EglContext final : public OffscreenContext {
public:
    EglContext(EGLDisplay display, EGLContext context, EGLSurface pbuffer, std::string platform)
        : display_(display), context_(context), pbuffer_(pbuffer), platform_(std::move(platform)) {
        const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
        const char* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
        description_ = platform_ + " (" + (renderer ? renderer : "unknown renderer") + ", OpenGL " +
                       (version ? version : "unknown version") + ")";
    }
    ~EglContext() override {
        if (eglGetCurrentContext() == context_)
            eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (pbuffer_ != EGL_NO_SURFACE) eglDestroySurface(display_, pbuffer_);
        eglDestroyContext(display_, context_);
        // The display is not terminated: EGL displays are shared per process, and terminating one
        // would pull it from under any other context (a second OffscreenContext, CUDA interop).
    }
    void make_current() override { eglMakeCurrent(display_, pbuffer_, pbuffer_, context_); }
    std::string description() const override { return description_; }

private:
    EGLDisplay display_;
    EGLContext context_;
    EGLSurface pbuffer_;
    std::string platform_;
    std::string description_;
};

// Initializes `display`, creates a 3.3 core context and makes it current. nullptr with `why` set
// ("eglInitialize: EGL_NOT_INITIALIZED") otherwise.
std::unique_ptr<OffscreenContext> make_context(EGLDisplay display, const std::string& platform, std::string& why) {
    if (display == EGL_NO_DISPLAY) {
        why = "no display (" + last_egl_error() + ")";
        return nullptr;
    }
    EGLint major = 0, minor = 0;
    if (eglInitialize(display, &major, &minor) != EGL_TRUE) {
        why = "eglInitialize: " + last_egl_error();
        return nullptr;
    }
    // Second glad load, against the display: its EGL version (eglBindAPI is 1.2) and extensions.
    if (gladLoadEGL(display, load_egl_symbol) == 0) {
        why = "loading EGL " + std::to_string(major) + "." + std::to_string(minor) + " entry points failed";
        return nullptr;
    }
    if (eglBindAPI(EGL_OPENGL_API) != EGL_TRUE) {
        why = "eglBindAPI(EGL_OPENGL_API): " + last_egl_error() + " (this EGL offers no desktop OpenGL)";
        return nullptr;
    }
    const bool surfaceless = GLAD_EGL_KHR_surfaceless_context != 0;
    // EGL_SURFACE_TYPE defaults to EGL_WINDOW_BIT, which no headless config has: ask for what
    // we will use (nothing, or a 1x1 pbuffer when surfaceless contexts are not offered).
    const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                     EGL_SURFACE_TYPE,    surfaceless ? 0 : EGL_PBUFFER_BIT,
                                     EGL_RED_SIZE,        8,
                                     EGL_GREEN_SIZE,      8,
                                     EGL_BLUE_SIZE,       8,
                                     EGL_ALPHA_SIZE,      8,
                                     EGL_NONE};
    EGLConfig config = nullptr;
    EGLint count = 0;
    if (eglChooseConfig(display, config_attribs, &config, 1, &count) != EGL_TRUE || count < 1) {
        why = "eglChooseConfig: no RGBA8 OpenGL config (" + last_egl_error() + ")";
        return nullptr;
    }
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
    if (context == EGL_NO_CONTEXT) {
        why = "eglCreateContext(OpenGL 3.3 core): " + last_egl_error();
        return nullptr;
    }
    EGLSurface pbuffer = EGL_NO_SURFACE;
    if (!surfaceless) {
        const EGLint pbuffer_attribs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
        pbuffer = eglCreatePbufferSurface(display, config, pbuffer_attribs);
        if (pbuffer == EGL_NO_SURFACE) {
            why = "no EGL_KHR_surfaceless_context and eglCreatePbufferSurface: " + last_egl_error();
            eglDestroyContext(display, context);
            return nullptr;
        }
    }
    if (eglMakeCurrent(display, pbuffer, pbuffer, context) != EGL_TRUE) {
        why = "eglMakeCurrent: " + last_egl_error();
        if (pbuffer != EGL_NO_SURFACE) eglDestroySurface(display, pbuffer);
        eglDestroyContext(display, context);
        return nullptr;
    }
    const int gl_version = gladLoadGL(load_gl_symbol);
    if (gl_version == 0 || GLAD_VERSION_MAJOR(gl_version) * 10 + GLAD_VERSION_MINOR(gl_version) < 33) {
        why = gl_version == 0 ? std::string("gladLoadGL failed")
                              : "OpenGL " + std::to_string(GLAD_VERSION_MAJOR(gl_version)) + "." +
                                    std::to_string(GLAD_VERSION_MINOR(gl_version)) + " is older than 3.3";
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (pbuffer != EGL_NO_SURFACE) eglDestroySurface(display, pbuffer);
        eglDestroyContext(display, context);
        return nullptr;
    }
    return std::make_unique<EglContext>(display, context, pbuffer, platform);
}

struct DeviceCandidate {
    EGLDeviceEXT device;
    int cuda_index;  // -1 when not a CUDA device
};

std::vector<DeviceCandidate> list_devices(std::string& why) {
    std::vector<DeviceCandidate> out;
    EGLint count = 0;
    if (eglQueryDevicesEXT(0, nullptr, &count) != EGL_TRUE || count <= 0) {
        why = "eglQueryDevicesEXT found no devices";
        return out;
    }
    std::vector<EGLDeviceEXT> devices(static_cast<size_t>(count));
    eglQueryDevicesEXT(count, devices.data(), &count);
    for (EGLint i = 0; i < count; ++i) {
        DeviceCandidate c{devices[static_cast<size_t>(i)], -1};
        const char* ext = eglQueryDeviceStringEXT(c.device, EGL_EXTENSIONS);
        EGLAttrib cuda = -1;
        if (has_word(ext, "EGL_NV_device_cuda") && eglQueryDeviceAttribEXT != nullptr &&
            eglQueryDeviceAttribEXT(c.device, EGL_CUDA_DEVICE_NV, &cuda) == EGL_TRUE)
            c.cuda_index = static_cast<int>(cuda);
        out.push_back(c);
    }
    // CUDA devices first, lowest index first: CUDA's default device 0 is where our tensors live.
    std::stable_sort(out.begin(), out.end(), [](const DeviceCandidate& a, const DeviceCandidate& b) {
        const int ka = a.cuda_index < 0 ? 1 << 30 : a.cuda_index;
        const int kb = b.cuda_index < 0 ? 1 << 30 : b.cuda_index;
        return ka < kb;
    });
    return out;
}

std::unique_ptr<OffscreenContext> try_devices(bool cuda_only, std::string& why) {
    std::vector<DeviceCandidate> devices = list_devices(why);
    if (devices.empty()) return nullptr;
    std::string errors;
    int tried = 0;
    for (const DeviceCandidate& d : devices) {
        if ((d.cuda_index >= 0) != cuda_only) continue;
        ++tried;
        EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, d.device, nullptr);
        const std::string platform = d.cuda_index >= 0 ? "EGL device, CUDA device " + std::to_string(d.cuda_index)
                                                       : std::string("EGL device");
        std::string step;
        if (auto ctx = make_context(display, platform, step)) return ctx;
        errors += (errors.empty() ? "" : ", ") + platform + ": " + step;
    }
    if (tried == 0)
        why = cuda_only ? "no NVIDIA (CUDA) device among " + std::to_string(devices.size()) + " EGL devices"
                        : "no non-CUDA EGL device";
    else
        why = errors;
    return nullptr;
}

}  // namespace

std::unique_ptr<OffscreenContext> OffscreenContext::create(std::string& why) {
    why.clear();
    EglLibrary& lib = egl_library();
    if (lib.handle == nullptr) {
        why = "no EGL: libEGL.so.1 could not be opened (install libegl1 and a GL driver such as Mesa)";
        return nullptr;
    }
    // First glad load, with no display: the client extensions that say which platforms exist.
    if (gladLoadEGL(EGL_NO_DISPLAY, load_egl_symbol) == 0) {
        why = "no EGL: loading the EGL entry points failed";
        return nullptr;
    }
    ClientCaps caps;
    caps.platform_base = GLAD_EGL_EXT_platform_base != 0 && eglGetPlatformDisplayEXT != nullptr;
    caps.device = caps.platform_base && GLAD_EGL_EXT_platform_device && GLAD_EGL_EXT_device_enumeration &&
                  eglQueryDevicesEXT != nullptr && eglQueryDeviceStringEXT != nullptr;
    caps.surfaceless = caps.platform_base && GLAD_EGL_MESA_platform_surfaceless;

    const char* forced_env = std::getenv("GPULAB_EGL_PLATFORM");
    const std::string forced = forced_env ? forced_env : "";
    if (!forced.empty() && forced != "device" && forced != "surfaceless" && forced != "default") {
        why = "GPULAB_EGL_PLATFORM=" + forced + " is not one of device, surfaceless, default";
        return nullptr;
    }
    auto wanted = [&](const char* name) { return forced.empty() || forced == name; };

    std::vector<std::string> failures;
    std::string step;
    if (wanted("device")) {
        if (!caps.device) {
            failures.push_back("device platform: EGL_EXT_platform_device not offered");
        } else {
            if (auto ctx = try_devices(true, step)) return ctx;
            failures.push_back("device platform: " + step);
        }
    }
    if (wanted("surfaceless")) {
        if (!caps.surfaceless) {
            failures.push_back("surfaceless: EGL_MESA_platform_surfaceless not offered");
        } else {
            EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
            if (auto ctx = make_context(display, "EGL surfaceless", step)) return ctx;
            failures.push_back("surfaceless: " + step);
        }
    }
    if (wanted("device") && caps.device) {
        if (auto ctx = try_devices(false, step)) return ctx;
        failures.push_back("other devices: " + step);
    }
    if (wanted("default")) {
        if (auto ctx = make_context(eglGetDisplay(EGL_DEFAULT_DISPLAY), "EGL default display", step)) return ctx;
        failures.push_back("default display: " + step);
    }
    why = "no OpenGL 3.3 context: ";
    for (size_t i = 0; i < failures.size(); ++i) why += (i ? "; " : "") + failures[i];
    return nullptr;
}

}  // namespace gpulab::app
