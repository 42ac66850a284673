// IDX reader: see idx.h. zlib does the inflating (Debian's zlib1g); this file only checks sizes.
#include "idx.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

#include "io/file_io.h"
#include "measure/format.h"
#include "io/image_io.h"

namespace gpulab::train {

namespace {

using core::InputError;

constexpr unsigned char kUbyte = 0x08;
// deflate cannot expand more than about 1032:1, so a gzip file of n bytes inflates to at most this.
constexpr std::int64_t kMaxDeflateRatio = 1032;
constexpr const char* kReplaceFix =
    "replace it with a complete copy (for Fashion-MNIST: apt-get install --reinstall dataset-fashion-mnist)";

bool is_gzip(std::string_view bytes) {
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
           static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::uint32_t big_endian_u32(const unsigned char* p) {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

// Inflates a gzip stream piece by piece: first only the header, so that its sizes can be checked
// before the buffer for the values is allocated.
class Inflater {
public:
    Inflater(std::string_view gz, const std::string& name) : name_(name) {
        if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) throw InputError(name + ": zlib could not start inflating");
        z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
        z_.avail_in = static_cast<uInt>(gz.size());  // gz.size() <= kMaxIdxBytes < 4 GiB
    }
    ~Inflater() { inflateEnd(&z_); }
    Inflater(const Inflater&) = delete;
    Inflater& operator=(const Inflater&) = delete;

    // Fills exactly n bytes; returns how many it could (fewer when the stream ends first).
    std::size_t read(unsigned char* out, std::size_t n) {
        std::size_t done = 0;
        while (done < n && !ended_) {
            const std::size_t want = std::min<std::size_t>(n - done, std::numeric_limits<uInt>::max());
            z_.next_out = out + done;
            z_.avail_out = static_cast<uInt>(want);
            const int rc = inflate(&z_, Z_NO_FLUSH);
            done += want - z_.avail_out;
            if (rc == Z_STREAM_END) {
                // Several gzip members one after another (`cat a.gz b.gz`) are one valid file, as
                // gzip and zcat read it: go on with the next member; anything else ends the data.
                if (z_.avail_in >= 2 && z_.next_in[0] == 0x1f && z_.next_in[1] == 0x8b && inflateReset(&z_) == Z_OK)
                    continue;
                ended_ = true;
            } else if (rc == Z_BUF_ERROR && z_.avail_in == 0) {
                ended_ = true;  // input exhausted mid-stream: a cut gzip file (the caller sees too few bytes)
            } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
                throw InputError(name_ + ": the gzip data is damaged (" + (z_.msg ? z_.msg : "zlib error") + "); " +
                                 kReplaceFix);
            }
        }
        return done;
    }
    // True when the compressed stream holds more bytes after what was read.
    bool more_data() {
        if (ended_) return false;
        unsigned char probe;
        return read(&probe, 1) == 1;
    }

private:
    z_stream z_{};
    std::string name_;
    bool ended_ = false;
};

// A view of an IDX file's header and values, raw or gzipped, that never allocates more than the
// file can hold.
struct IdxContent {
    std::vector<std::int64_t> dims;
    std::vector<std::uint8_t> values;
};

std::string describe_dims(const std::vector<std::int64_t>& dims) {
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? " x " : "") + std::to_string(dims[i]);
    return s;
}

IdxContent parse_idx(std::string_view bytes, const std::string& name, int want_dims, const char* what,
                     const char* example) {
    const bool gz = is_gzip(bytes);
    Inflater* inflater = nullptr;
    std::optional<Inflater> holder;
    if (gz) inflater = &holder.emplace(bytes, name);
    std::size_t raw_at = 0;
    auto take = [&](unsigned char* out, std::size_t n) -> std::size_t {
        if (inflater) return inflater->read(out, n);
        const std::size_t got = std::min(n, bytes.size() - raw_at);
        std::memcpy(out, bytes.data() + raw_at, got);
        raw_at += got;
        return got;
    };
    const std::string not_idx = name + ": is not an IDX " + what + " file";
    const std::string fix = std::string("; pass --data a folder holding MNIST-style files such as ") + example;

    unsigned char magic[4] = {};
    if (take(magic, 4) < 4) throw InputError(name + ": is empty or shorter than an IDX header; " + kReplaceFix);
    const unsigned expected_magic = 0x0800u | static_cast<unsigned>(want_dims);
    const unsigned got_magic = big_endian_u32(magic);
    if (got_magic != expected_magic) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%08X", got_magic);
        char want_hex[16];
        std::snprintf(want_hex, sizeof want_hex, "0x%08X", expected_magic);
        std::string why = magic[0] == 0 && magic[1] == 0 && magic[2] != kUbyte
                              ? " (its values are not unsigned bytes)"
                          : magic[0] == 0 && magic[1] == 0 && magic[2] == kUbyte
                              ? " (it has " + std::to_string(magic[3]) + " dimensions, not " +
                                    std::to_string(want_dims) + ")"
                              : "";
        throw InputError(not_idx + ": its magic number is " + hex + ", not " + want_hex + why + fix);
    }
    IdxContent c;
    std::int64_t total = 1;
    for (int i = 0; i < want_dims; ++i) {
        unsigned char d[4];
        if (take(d, 4) < 4) throw InputError(name + ": ends inside its IDX header; " + kReplaceFix);
        const std::int64_t n = big_endian_u32(d);
        if (n == 0) throw InputError(not_idx + ": dimension " + std::to_string(i + 1) + " is 0" + fix);
        c.dims.push_back(n);
        if (total > kMaxIdxBytes / n) total = kMaxIdxBytes + 1;  // saturate: refused just below
        else total *= n;
    }
    const std::int64_t header = 4 + 4 * static_cast<std::int64_t>(want_dims);
    const std::string announced = " (" + describe_dims(c.dims) + ")";
    if (total > kMaxIdxBytes - header)
        throw InputError(name + ": its header announces " + describe_dims(c.dims) + " values, more than the " +
                         core::format_bytes(static_cast<double>(kMaxIdxBytes)) + " gpulab reads; " + kReplaceFix);
    // The real file must be able to hold what the header announces before we allocate for it.
    const std::int64_t file_bytes = static_cast<std::int64_t>(bytes.size());
    if (!gz && file_bytes < header + total)
        throw InputError(name + ": is truncated: " + std::to_string(file_bytes - header) + " of the " +
                         std::to_string(total) + " values its header announces" + announced + " are there; " +
                         kReplaceFix);
    if (gz && total > kMaxDeflateRatio * file_bytes)
        throw InputError(name + ": is truncated: its " + std::to_string(file_bytes) +
                         " gzip bytes cannot hold the " + std::to_string(total) + " values its header announces" +
                         announced + "; " + kReplaceFix);
    c.values.resize(static_cast<std::size_t>(total));
    const std::size_t got = take(c.values.data(), c.values.size());
    if (got < c.values.size())
        throw InputError(name + ": is truncated: " + std::to_string(got) + " of the " + std::to_string(total) +
                         " values its header announces" + announced + " are there; " + kReplaceFix);
    const bool trailing = inflater ? inflater->more_data() : raw_at < bytes.size();
    if (trailing)
        throw InputError(name + ": has more data than its header announces" + announced +
                         ", so it is not a well-formed IDX file; " + kReplaceFix);
    return c;
}

}  // namespace

IdxImages parse_idx_images(std::string_view bytes, const std::string& name) {
    IdxContent c = parse_idx(bytes, name, 3, "image", "train-images-idx3-ubyte.gz");
    IdxImages out;
    out.count = c.dims[0];
    out.rows = c.dims[1];
    out.cols = c.dims[2];
    out.pixels = std::move(c.values);
    return out;
}

std::vector<std::uint8_t> parse_idx_labels(std::string_view bytes, const std::string& name) {
    return std::move(parse_idx(bytes, name, 1, "label", "train-labels-idx1-ubyte.gz").values);
}

IdxImages read_idx_images(const std::string& path) {
    return parse_idx_images(core::read_input_file(path, kMaxIdxBytes, "IDX file"), path);
}

std::vector<std::uint8_t> read_idx_labels(const std::string& path) {
    return parse_idx_labels(core::read_input_file(path, kMaxIdxBytes, "IDX file"), path);
}

}  // namespace gpulab::train
