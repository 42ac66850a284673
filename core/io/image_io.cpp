// .npy reading/writing (format v1.0-3.0 header: magic, version, header length, a Python dict
// literal with descr / fortran_order / shape) and image decoding through stb_image.
// The .npy parser is hand-written because Debian has no maintained C++ .npy library; it accepts
// only what gpulab needs (little-endian numeric dtypes, C order) and refuses the rest by name.
#include "image_io.h"

#include <stb/stb_image.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include "measure/format.h"
#include "file_io.h"
#include "runtime/memory.h"

namespace gpulab::core {

namespace {

constexpr uint32_t kMaxNpyHeaderBytes = 64 * 1024;

std::string lowercase_extension(const std::string& path) {
    auto dot = path.find_last_of('.');
    if (dot == std::string::npos) return "";
    std::string ext = path.substr(dot + 1);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

// Value of `key` in the header dict, e.g. 'descr': '<f4'  ->  <f4, 'shape': (2, 3)  ->  2, 3.
// A plain scan rather than std::regex: libstdc++'s regex recurses once per character matched and
// overflows the stack on a long header (found by fuzzing).
std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
    const auto missing = [&] { return InputError(path + ": not a valid .npy file (header has no '" + key + "')"); };
    std::size_t at = std::string::npos;
    for (const char* quote : {"'", "\""}) {
        at = header.find(quote + key + quote);
        if (at != std::string::npos) break;
    }
    if (at == std::string::npos) throw missing();
    std::size_t i = at + key.size() + 2;
    const auto skip_space = [&] {
        while (i < header.size() && (header[i] == ' ' || header[i] == '\t')) ++i;
    };
    skip_space();
    if (i >= header.size() || header[i] != ':') throw missing();
    ++i;
    skip_space();
    if (i >= header.size()) throw missing();
    const char open = header[i];
    if (open == '\'' || open == '"' || open == '(') {
        const char close = open == '(' ? ')' : open;
        const std::size_t end = header.find(close, i + 1);
        if (end == std::string::npos) throw missing();
        return header.substr(i + 1, end - i - 1);
    }
    for (const char* word : {"True", "False"}) {
        if (header.compare(i, std::strlen(word), word) == 0) return word;
    }
    throw missing();
}

// The dimensions of a shape tuple's text ("2, 3" or "5," or ""), each checked to fit int64_t.
std::vector<int64_t> parse_shape(const std::string& text, const std::string& path) {
    std::vector<int64_t> shape;
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == ' ' || c == ',' || c == 'L') {  // 'L': Python 2 longs, "(3L, 4L)"
            ++i;
            continue;
        }
        if (c < '0' || c > '9') throw InputError(path + ": shape (" + text + ") is not a tuple of whole numbers >= 0");
        int64_t d = 0;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
            if (d > (std::numeric_limits<int64_t>::max() - (text[i] - '0')) / 10) {
                throw InputError(path + ": shape (" + text + ") has a dimension too large to address");
            }
            d = d * 10 + (text[i] - '0');
        }
        shape.push_back(d);
    }
    return shape;
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
    InputFile f(path, kMaxNpyFileBytes, ".npy file");
    char magic[8] = {};
    if (f.read(magic, 8) != 8 || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
        throw InputError(path + ": not a .npy file (missing the \\x93NUMPY magic)");
    }
    const int major = static_cast<unsigned char>(magic[6]);
    uint32_t header_len = 0;
    unsigned char b[4] = {};
    if (major == 1) {
        if (f.read(b, 2) != 2) throw InputError(path + ": truncated .npy header");
        header_len = b[0] | (b[1] << 8);
    } else if (major == 2 || major == 3) {
        if (f.read(b, 4) != 4) throw InputError(path + ": truncated .npy header");
        header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
    } else {
        throw InputError(path + ": unsupported .npy version " + std::to_string(major));
    }
    // NumPy itself refuses headers over 10,000 bytes unless told otherwise.
    if (header_len > kMaxNpyHeaderBytes) {
        throw InputError(path + ": corrupt .npy header (claims " + std::to_string(header_len) + " bytes, at most " +
                         std::to_string(kMaxNpyHeaderBytes) + ")");
    }
    if (header_len > f.remaining()) throw InputError(path + ": truncated .npy header");
    std::string header(header_len, '\0');
    if (f.read(header.data(), header_len) != header_len) throw InputError(path + ": truncated .npy header");

    const std::string descr = dict_value(header, "descr", path);
    const std::string fortran = dict_value(header, "fortran_order", path);
    const std::string shape_text = dict_value(header, "shape", path);
    if (fortran != "False") throw InputError(path + ": Fortran-order arrays are not supported (save with C order)");
    const std::vector<int64_t> shape = parse_shape(shape_text, path);

    std::size_t elem = 0;
    if (descr == "<f4" || descr == "<i4" || descr == "<u4") elem = 4;
    else if (descr == "<f8" || descr == "<i8") elem = 8;
    else if (descr == "|u1" || descr == "|i1" || descr == "<u1") elem = 1;
    else throw InputError(path + ": unsupported dtype '" + descr + "' (use float32; float64, int32, int64 and uint8 are converted)");

    // Every size is checked against the bytes the file really has before anything is allocated,
    // so a 400-byte file that claims 2^31 elements is refused at once.
    int64_t count = 1;
    for (int64_t d : shape) {
        if (d != 0 && count > std::numeric_limits<int64_t>::max() / d) {
            throw InputError(path + ": shape (" + shape_text + ") is too large to address");
        }
        count *= d;
    }
    if (count == 0) throw InputError(path + ": the array is empty (shape (" + shape_text + ")): nothing to work on");
    if (count > f.remaining() / static_cast<int64_t>(elem)) {
        throw InputError(path + ": file is truncated: shape (" + shape_text + ") of " + descr + " needs " +
                         format_count(count) + " x " + std::to_string(elem) + " data bytes, the file has " +
                         format_count(f.remaining()));
    }
    const std::size_t bytes = static_cast<std::size_t>(count) * elem;
    Availability fits = check_host_allocation(bytes + static_cast<std::size_t>(count) * sizeof(float));
    if (!fits.ok) throw InputError(path + ": " + fits.reason);

    std::vector<char> raw(bytes);
    if (f.read(raw.data(), bytes) != bytes) {
        throw InputError(path + ": file is truncated: shape (" + shape_text + ") needs " + std::to_string(bytes) +
                         " data bytes, found fewer (the file shrank while it was read)");
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
    const uint16_t len = static_cast<uint16_t>(header.size());
    const char preamble_bytes[10] = {'\x93', 'N', 'U', 'M', 'P', 'Y', '\x01', '\x00', static_cast<char>(len & 0xff),
                                     static_cast<char>(len >> 8)};
    // Every write and the close are checked: a small array used to sit in an ofstream's buffer past
    // the check and be lost at close on a full disk, reported as written (issue 16).
    const std::string error = write_output_file(
        path, {std::string_view(preamble_bytes, sizeof preamble_bytes), header,
               std::string_view(reinterpret_cast<const char*>(t.ptr()), static_cast<std::size_t>(t.bytes()))});
    // The writer replaces the file whole or not at all: what was at `path` before is still there.
    if (!error.empty()) throw InputError(error + "; " + path + " was left as it was");
}

namespace {

// Decodes a picture file's bytes with stb_image as `components` interleaved 8-bit channels per
// pixel, after checking that the decoded bytes plus `floats_per_pixel` floats per pixel fit
// memory. The file is read through InputFile (regular files only, size capped) and decoded from
// memory, so a FIFO or device is refused instead of handed to stb's fopen.
// The caller frees the pixels with stbi_image_free.
unsigned char* decode_image(const std::string& bytes, const std::string& path, int components, int floats_per_pixel,
                            int& w, int& h) {
    int channels = 0;
    const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
    const int len = static_cast<int>(bytes.size());
    if (!stbi_info_from_memory(data, len, &w, &h, &channels)) {
        throw InputError(path + ": cannot decode image (" + std::string(stbi_failure_reason()) +
                         "); PNG, JPG, BMP, TGA, GIF, PSD, HDR and PNM are supported");
    }
    // No format gpulab reads packs more than ~2,700 pixels into a byte (GIF's LZW at its best), so a
    // header claiming more than 4,096 per byte is a lie: refuse it before stb allocates for it (a
    // 36-byte PGM claiming 20x9,999,998 made it allocate 200 MB first; found by fuzz_image).
    if (static_cast<double>(w) * h > 4096.0 * static_cast<double>(bytes.size())) {
        throw InputError(path + ": a " + std::to_string(w) + "x" + std::to_string(h) + " picture cannot fit in " +
                         std::to_string(bytes.size()) + " bytes: the file is truncated or corrupt");
    }
    const std::size_t per_pixel = 4 + static_cast<std::size_t>(floats_per_pixel) * sizeof(float);
    Availability fits = check_host_allocation(static_cast<std::size_t>(w) * h * per_pixel);
    if (!fits.ok) throw InputError(path + ": image is " + std::to_string(w) + "x" + std::to_string(h) + ": " + fits.reason);
    unsigned char* pixels = stbi_load_from_memory(data, len, &w, &h, &channels, components);
    if (!pixels) throw InputError(path + ": cannot decode image (" + std::string(stbi_failure_reason()) + ")");
    return pixels;
}

unsigned char* decode_image(const std::string& path, int components, int floats_per_pixel, int& w, int& h) {
    return decode_image(read_input_file(path, kMaxImageFileBytes, "picture"), path, components, floats_per_pixel, w, h);
}

}  // namespace

Tensor decode_image_gray(const std::string& bytes, const std::string& name) {
    int w = 0, h = 0;
    unsigned char* pixels = decode_image(bytes, name, 1, 1, w, h);
    Tensor t = Tensor::zeros({h, w});
    for (int64_t i = 0; i < t.size(); ++i) t.data[static_cast<std::size_t>(i)] = pixels[i] / 255.0f;
    stbi_image_free(pixels);
    return t;
}

Tensor load_image_gray(const std::string& path) {
    return decode_image_gray(read_input_file(path, kMaxImageFileBytes, "picture"), path);
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
