// .npy reading/writing (format v1.0-3.0 header: magic, version, header length, a Python dict
// literal with descr / fortran_order / shape) and image decoding through stb_image.
// The .npy parser is hand-written because Debian has no maintained C++ .npy library; it accepts
// only what gpulab needs (little-endian numeric dtypes, C order) and refuses the rest by name.
#include "image_io.h"

#include <stb/stb_image.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <regex>

#include "format.h"
#include "memory.h"

namespace gpulab::core {

namespace {

std::string lowercase_extension(const std::string& path) {
    auto dot = path.find_last_of('.');
    if (dot == std::string::npos) return "";
    std::string ext = path.substr(dot + 1);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

// Value of `key` in the header dict, e.g. 'descr': '<f4'  ->  <f4
std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
    std::regex re("['\"]" + key + "['\"]\\s*:\\s*('([^']*)'|\"([^\"]*)\"|(True|False)|\\(([^)]*)\\))");
    std::smatch m;
    if (!std::regex_search(header, m, re)) throw InputError(path + ": not a valid .npy file (header has no '" + key + "')");
    for (int g : {2, 3, 4, 5}) {
        if (m[g].matched) return m[g].str();
    }
    return "";
}

template <class T>
void convert(const std::vector<char>& raw, FloatBuffer& out) {
    const std::size_t n = raw.size() / sizeof(T);
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        T v;
        std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
        out[i] = static_cast<float>(v);
    }
}

}  // namespace

Tensor read_npy(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw InputError(path + ": cannot open file (" + std::strerror(errno) + ")");
    char magic[8] = {};
    f.read(magic, 8);
    if (f.gcount() != 8 || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
        throw InputError(path + ": not a .npy file (missing the \\x93NUMPY magic)");
    }
    const int major = static_cast<unsigned char>(magic[6]);
    uint32_t header_len = 0;
    if (major == 1) {
        unsigned char b[2];
        f.read(reinterpret_cast<char*>(b), 2);
        header_len = b[0] | (b[1] << 8);
    } else if (major == 2 || major == 3) {
        unsigned char b[4];
        f.read(reinterpret_cast<char*>(b), 4);
        header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
    } else {
        throw InputError(path + ": unsupported .npy version " + std::to_string(major));
    }
    if (!f || header_len > (1u << 20)) throw InputError(path + ": truncated or corrupt .npy header");
    std::string header(header_len, '\0');
    f.read(header.data(), header_len);
    if (static_cast<uint32_t>(f.gcount()) != header_len) throw InputError(path + ": truncated .npy header");

    const std::string descr = dict_value(header, "descr", path);
    const std::string fortran = dict_value(header, "fortran_order", path);
    const std::string shape_text = dict_value(header, "shape", path);
    if (fortran != "False") throw InputError(path + ": Fortran-order arrays are not supported (save with C order)");

    std::vector<int64_t> shape;
    std::regex num("\\d+");
    for (auto it = std::sregex_iterator(shape_text.begin(), shape_text.end(), num); it != std::sregex_iterator(); ++it) {
        int64_t d = std::stoll(it->str());
        if (d < 0) throw InputError(path + ": negative dimension in shape");
        shape.push_back(d);
    }
    std::size_t elem = 0;
    if (descr == "<f4" || descr == "<i4" || descr == "<u4") elem = 4;
    else if (descr == "<f8" || descr == "<i8") elem = 8;
    else if (descr == "|u1" || descr == "|i1" || descr == "<u1") elem = 1;
    else throw InputError(path + ": unsupported dtype '" + descr + "' (use float32; float64, int32, int64 and uint8 are converted)");

    int64_t count = 1;
    for (int64_t d : shape) {
        if (d != 0 && count > std::numeric_limits<int64_t>::max() / d) throw InputError(path + ": shape too large");
        count *= d;
    }
    const std::size_t bytes = static_cast<std::size_t>(count) * elem;
    Availability fits = check_host_allocation(bytes + static_cast<std::size_t>(count) * sizeof(float));
    if (!fits.ok) throw InputError(path + ": " + fits.reason);

    std::vector<char> raw(bytes);
    f.read(raw.data(), static_cast<std::streamsize>(bytes));
    if (static_cast<std::size_t>(f.gcount()) != bytes) {
        throw InputError(path + ": file is truncated: shape " + shape_text + " needs " + std::to_string(bytes) +
                         " data bytes, found " + std::to_string(f.gcount()));
    }
    Tensor t;
    t.shape = shape;
    if (descr == "<f4") {
        t.data.resize(static_cast<std::size_t>(count));
        std::memcpy(t.data.data(), raw.data(), bytes);
    } else if (descr == "<f8") convert<double>(raw, t.data);
    else if (descr == "<i4") convert<int32_t>(raw, t.data);
    else if (descr == "<u4") convert<uint32_t>(raw, t.data);
    else if (descr == "<i8") convert<int64_t>(raw, t.data);
    else if (descr == "|i1") convert<int8_t>(raw, t.data);
    else convert<uint8_t>(raw, t.data);
    return t;
}

void write_npy(const std::string& path, const Tensor& t) {
    std::string shape = "(";
    for (std::size_t i = 0; i < t.shape.size(); ++i) shape += std::to_string(t.shape[i]) + (t.shape.size() == 1 ? "," : i + 1 < t.shape.size() ? ", " : "");
    shape += ")";
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
    // Pad with spaces so magic + version + length + header + '\n' is a multiple of 64 (the spec asks for 64).
    const std::size_t preamble = 10;
    std::size_t total = preamble + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw InputError(path + ": cannot write (" + std::strerror(errno) + ")");
    f.write("\x93NUMPY\x01\x00", 8);
    const uint16_t len = static_cast<uint16_t>(header.size());
    const char lb[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
    f.write(lb, 2);
    f.write(header.data(), static_cast<std::streamsize>(header.size()));
    f.write(reinterpret_cast<const char*>(t.ptr()), static_cast<std::streamsize>(t.bytes()));
    if (!f) throw InputError(path + ": write failed (disk full?)");
}

namespace {

// Decodes `path` with stb_image as `components` interleaved 8-bit channels per pixel, after
// checking that the decoded bytes plus `floats_per_pixel` floats per pixel fit memory.
// The caller frees the pixels with stbi_image_free.
unsigned char* decode_image(const std::string& path, int components, int floats_per_pixel, int& w, int& h) {
    int channels = 0;
    if (!stbi_info(path.c_str(), &w, &h, &channels)) {
        std::ifstream probe(path);
        if (!probe) throw InputError(path + ": cannot open file (" + std::strerror(errno) + ")");
        throw InputError(path + ": cannot decode image (" + std::string(stbi_failure_reason()) +
                         "); PNG, JPG, BMP, TGA, GIF, PSD, HDR and PNM are supported");
    }
    const std::size_t per_pixel = 4 + static_cast<std::size_t>(floats_per_pixel) * sizeof(float);
    Availability fits = check_host_allocation(static_cast<std::size_t>(w) * h * per_pixel);
    if (!fits.ok) throw InputError(path + ": image is " + std::to_string(w) + "x" + std::to_string(h) + ": " + fits.reason);
    unsigned char* pixels = stbi_load(path.c_str(), &w, &h, &channels, components);
    if (!pixels) throw InputError(path + ": cannot decode image (" + std::string(stbi_failure_reason()) + ")");
    return pixels;
}

}  // namespace

Tensor load_image_gray(const std::string& path) {
    int w = 0, h = 0;
    unsigned char* pixels = decode_image(path, 1, 1, w, h);
    Tensor t = Tensor::zeros({h, w});
    for (int64_t i = 0; i < t.size(); ++i) t.data[static_cast<std::size_t>(i)] = pixels[i] / 255.0f;
    stbi_image_free(pixels);
    return t;
}

Tensor load_image_rgb(const std::string& path) {
    int w = 0, h = 0;
    // stb_image gives interleaved R,G,B per pixel (and expands gray to three equal values);
    // the convolution wants planes, so each channel is gathered into its own (H, W) slice.
    unsigned char* pixels = decode_image(path, 3, 3, w, h);
    Tensor t = Tensor::zeros({3, h, w});
    const int64_t plane = static_cast<int64_t>(w) * h;
    for (int64_t i = 0; i < plane; ++i) {
        for (int64_t c = 0; c < 3; ++c) t.data[static_cast<std::size_t>(c * plane + i)] = pixels[i * 3 + c] / 255.0f;
    }
    stbi_image_free(pixels);
    return t;
}

Tensor load_image_as_feature_map(const std::string& path) {
    Tensor t = load_image_gray(path);
    for (float& v : t.data) v = 2.0f * v - 1.0f;
    return t;
}

Tensor read_tensor_file(const std::string& path) {
    return lowercase_extension(path) == "npy" ? read_npy(path) : load_image_gray(path);
}

}  // namespace gpulab::core
