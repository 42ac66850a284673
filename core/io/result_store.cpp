// The results store on disk: see result_store.h.
#include "result_store.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "file_io.h"
#include "measure/format.h"

namespace gpulab::core {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMagic = "gpulab results 1";
constexpr std::int64_t kMaxHeaderBytes = 64 << 10;

// A stable name for a key across builds and machines (std::hash may differ between them).
std::uint64_t fnv1a(std::string_view text) {
    std::uint64_t h = 1469598103934665603ull;
    for (const char c : text) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

std::string checksum(std::string_view payload) {
    char hex[20];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(payload)));
    return hex;
}

bool one_line(std::string_view s) { return s.find('\n') == std::string_view::npos; }

// A view's name as gpulab's own views spell them ("activation", "conv2d", "simd-mimd"): the start
// of an entry's file name, so an imported header's view ("../../.bashrc", "/etc/x") can never
// become a path (issue 43).
bool plain_view(std::string_view view) {
    if (view.empty() || view.size() > 40) return false;
    for (const char c : view)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) return false;
    return true;
}

// Text from another computer's file as it may be shown in a terminal: control characters (an
// escape sequence would clear the screen or set the title) become '?', and it is cut at 200 bytes.
std::string printable(std::string_view text) {
    std::string out;
    for (const char c : text.substr(0, 200)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    if (text.size() > 200) out += "...";
    return out;
}

// The file name of an entry: the view, then a hash of view and key.
std::string entry_name(std::string_view view, const std::string& key) {
    char hash[32];
    std::snprintf(hash, sizeof hash, "-%016llx.result", static_cast<unsigned long long>(fnv1a(std::string(view) + "\n" + key)));
    return std::string(view) + hash;
}

struct Entry {
    std::map<std::string, std::string> fields;  // view, format, key, version, build, machine, label, measured
    std::string payload;
    std::string whole;  // the file as read: what export_to and import_from copy
};

// The entry in `text`, or a sentence saying why it is not one.
std::optional<Entry> parse_entry(std::string_view text, std::string& why) {
    const std::size_t end = text.find("\n\n");
    if (text.substr(0, kMagic.size()) != kMagic || end == std::string_view::npos ||
        end > static_cast<std::size_t>(kMaxHeaderBytes)) {
        why = "not a gpulab results file";
        return std::nullopt;
    }
    Entry e;
    std::size_t at = kMagic.size() + 1;
    while (at < end) {
        const std::size_t nl = std::min(text.find('\n', at), end);
        const std::string_view line = text.substr(at, nl - at);
        const std::size_t colon = line.find(": ");
        if (colon == std::string_view::npos) {
            why = "a header line without \"name: value\"";
            return std::nullopt;
        }
        e.fields[std::string(line.substr(0, colon))] = std::string(line.substr(colon + 2));
        at = nl + 1;
    }
    for (const char* name : {"view", "format", "key", "version", "build", "machine", "label", "measured", "bytes", "sum"})
        if (!e.fields.count(name)) {
            why = std::string("the header has no ") + name;
            return std::nullopt;
        }
    const std::string_view payload = text.substr(end + 2);
    if (e.fields["bytes"] != std::to_string(payload.size())) {
        why = "cut short (" + std::to_string(payload.size()) + " bytes of " + e.fields["bytes"] + ")";
        return std::nullopt;
    }
    if (e.fields["sum"] != checksum(payload)) {
        why = "damaged (its checksum does not match)";
        return std::nullopt;
    }
    e.payload = std::string(payload);
    return e;
}

// `name` inside `folder`, never through a link (io/file_io.h read_file_in_folder).
std::optional<Entry> read_entry(const fs::path& folder, const std::string& name, std::string& why) {
    try {
        std::string text = read_file_in_folder(folder.string(), name, ResultStore::kMaxEntryBytes + kMaxHeaderBytes,
                                               "results file");
        std::optional<Entry> e = parse_entry(text, why);
        if (e) e->whole = std::move(text);
        return e;
    } catch (const std::exception& e) {
        why = e.what();
        return std::nullopt;
    }
}

// The regular files (not links) of `folder` whose names end in ".result", sorted.
std::vector<std::string> entry_files(const fs::path& folder, std::error_code& ec) {
    std::vector<std::string> names;
    for (const fs::directory_entry& d : fs::directory_iterator(folder, ec)) {
        std::error_code type_ec;
        if (d.path().extension() == ".result" && d.symlink_status(type_ec).type() == fs::file_type::regular)
            names.push_back(d.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::int64_t to_int(const std::string& s) {
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    return end && *end == '\0' ? v : -1;
}

}  // namespace

ResultStore::ResultStore(fs::path folder, StoreIdentity me, std::int64_t max_bytes)
    : folder_(std::move(folder)), me_(std::move(me)), max_bytes_(max_bytes) {}

ResultStore::~ResultStore() {
    {
        std::unique_lock lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (writer_.joinable()) writer_.join();
}

fs::path ResultStore::entry_path(std::string_view view, const std::string& key, bool imported) const {
    return (imported ? folder_ / "imported" : folder_) / entry_name(view, key);
}

std::string ResultStore::save(std::string_view view, int format, const std::string& key, std::string_view payload,
                              std::int64_t measured_unix_s) {
    if (!enabled()) return "";
    if (!one_line(key)) return "a results key must be one line";
    if (!plain_view(view)) return "a results view must be a plain name (letters, digits, '-')";
    if (static_cast<std::int64_t>(payload.size()) > kMaxEntryBytes)
        return "not kept on disk: " + format_bytes(static_cast<double>(payload.size())) + " is more than the " +
               format_bytes(static_cast<double>(kMaxEntryBytes)) + " an entry may take";
    std::error_code ec;
    fs::create_directories(folder_, ec);
    if (ec) return "cannot create " + folder_.string() + ": " + ec.message();
    std::string label = me_.machine_label ? me_.machine_label() : std::string();
    if (!one_line(label)) label = "another computer";
    const std::string header = std::string(kMagic) + "\nview: " + std::string(view) +
                               "\nformat: " + std::to_string(format) + "\nkey: " + key + "\nversion: " + me_.version +
                               "\nbuild: " + me_.build + "\nmachine: " + me_.machine + "\nlabel: " + label +
                               "\nmeasured: " + std::to_string(measured_unix_s) +
                               "\nbytes: " + std::to_string(payload.size()) + "\nsum: " + checksum(payload) + "\n\n";
    const std::string why = write_file_in_folder(folder_.string(), entry_name(view, key), {header, payload});
    if (why.empty()) trim_to_budget();
    return why;
}

void ResultStore::save_later(std::string view, int format, std::string key, std::function<std::string()> payload,
                             std::int64_t measured_unix_s) {
    if (!enabled()) return;
    {
        std::unique_lock lock(mutex_);
        queue_.push_back({std::move(view), std::move(key), format, std::move(payload), measured_unix_s});
        if (!writer_.joinable()) writer_ = std::thread([this] { writer_loop(); });
    }
    wake_.notify_all();
}

void ResultStore::writer_loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and nothing left to write
        Job job = std::move(queue_.front());
        queue_.pop_front();
        writing_ = true;
        lock.unlock();
        std::string why;
        try {
            why = save(job.view, job.format, job.key, job.payload(), job.measured_unix_s);
        } catch (const std::exception& e) {
            why = std::string("could not write the result: ") + e.what();
        }
        lock.lock();
        writing_ = false;
        if (!why.empty()) last_error_ = why;
        if (queue_.empty()) idle_.notify_all();
    }
}

void ResultStore::flush() {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return queue_.empty() && !writing_; });
}

std::string ResultStore::last_write_error() const {
    std::unique_lock lock(mutex_);
    return last_error_;
}

std::optional<StoredResult> ResultStore::load(std::string_view view, int format, const std::string& key) const {
    if (!enabled() || !plain_view(view)) return std::nullopt;
    const std::string fmt = std::to_string(format);
    for (const bool imported : {false, true}) {
        std::string why;
        std::optional<Entry> e = read_entry(imported ? folder_ / "imported" : folder_, entry_name(view, key), why);
        if (!e) continue;
        auto& f = e->fields;
        // Two keys may share a file name only by a hash collision: the key itself decides.
        if (f["view"] != view || f["key"] != key || f["format"] != fmt) continue;
        if (!imported && (f["build"] != me_.build || f["machine"] != me_.machine)) continue;
        if (imported && f["version"] != me_.version) continue;
        StoredResult r;
        r.payload = std::move(e->payload);
        r.measured_unix_s = to_int(f["measured"]);
        r.machine_label = imported ? printable(f["label"]) : f["label"];  // another computer's words, shown as text
        r.this_machine = !imported;
        return r;
    }
    return std::nullopt;
}

TransferReport ResultStore::export_to(const fs::path& dir) const {
    TransferReport report;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        report.error = "cannot create " + dir.string() + ": " + ec.message();
        return report;
    }
    if (!enabled()) return report;
    for (const std::string& name : entry_files(folder_, ec)) {
        std::string why;
        std::optional<Entry> e = read_entry(folder_, name, why);
        if (!e || e->fields["build"] != me_.build || e->fields["machine"] != me_.machine) continue;
        if (std::string werr = write_output_file((dir / name).string(), {e->whole}); !werr.empty()) {
            report.error = werr;
            return report;
        }
        ++report.copied;
    }
    if (ec) report.error = "cannot read " + folder_.string() + ": " + ec.message();
    return report;
}

TransferReport ResultStore::import_from(const fs::path& dir) {
    TransferReport report;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        report.error = dir.string() + " is not a folder";
        return report;
    }
    if (!enabled()) {
        report.error = "there is no results folder to import into (no cache folder is known, or GPULAB_RESULTS_DIR is off)";
        return report;
    }
    fs::create_directories(folder_ / "imported", ec);
    if (ec) {
        report.error = "cannot create " + (folder_ / "imported").string() + ": " + ec.message();
        return report;
    }
    // Every name and field below comes from another computer: the file is read without following
    // a link, and stored under a name this store makes from a view it checks (issue 43).
    std::vector<std::string> names;
    for (const fs::directory_entry& d : fs::directory_iterator(dir, ec))
        if (d.path().extension() == ".result") names.push_back(d.path().filename().string());
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
        std::string why;
        std::optional<Entry> e = read_entry(dir, name, why);
        if (!e) {
            report.skipped.push_back(printable(name) + ": " + printable(why));
            continue;
        }
        auto& f = e->fields;
        if (!plain_view(f["view"])) {
            report.skipped.push_back(printable(name) + ": its view \"" + printable(f["view"]) +
                                     "\" is not one gpulab writes");
            continue;
        }
        if (f["machine"] == me_.machine) {
            report.skipped.push_back(printable(name) + ": measured on this computer, not another one");
            continue;
        }
        if (f["version"] != me_.version) {
            report.skipped.push_back(printable(name) + ": written by gpulab " + printable(f["version"]) + ", this is " +
                                     me_.version);
            continue;
        }
        // Stored under the name this store would look for, whatever the file was called.
        if (std::string werr = write_file_in_folder((folder_ / "imported").string(), entry_name(f["view"], f["key"]),
                                                    {e->whole});
            !werr.empty()) {
            report.error = werr;
            return report;
        }
        ++report.copied;
    }
    if (ec) report.error = "cannot read " + dir.string() + ": " + ec.message();
    trim_to_budget();
    return report;
}

void ResultStore::trim_to_budget() {
    struct File {
        fs::path path;
        fs::file_time_type time;
        std::int64_t bytes;
    };
    std::vector<File> files;
    std::int64_t total = 0;
    std::error_code ec;
    const fs::file_time_type now = fs::file_time_type::clock::now();
    for (const fs::path& dir : {folder_, folder_ / "imported"}) {
        for (const fs::directory_entry& d : fs::directory_iterator(dir, ec)) {
            std::error_code item_ec;
            if (d.symlink_status(item_ec).type() != fs::file_type::regular) continue;  // a link is not ours to count
            const std::string name = d.path().filename().string();
            const bool temporary = name.starts_with(".") && name.ends_with(".tmp");
            if (d.path().extension() != ".result" && !temporary) continue;
            const auto bytes = static_cast<std::int64_t>(d.file_size(item_ec));
            fs::file_time_type time = d.last_write_time(item_ec);
            // A writer killed with SIGKILL leaves its temporary (io/file_io.h): one untouched for ten
            // minutes belongs to no live writer, and goes; a live one counts in the budget (issue 43).
            if (temporary && time < now - std::chrono::minutes(10)) {
                fs::remove(d.path(), item_ec);
                continue;
            }
            // A file dated in the future was not written by this store as the clock stands (a copied
            // folder, a clock set back): it goes first, not last, or it would outlive every new
            // entry, which would be deleted as soon as written (issue 43).
            if (time > now + std::chrono::minutes(1)) time = fs::file_time_type::min();
            files.push_back({d.path(), time, bytes});
            total += bytes;
        }
    }
    if (total <= max_bytes_) return;
    std::sort(files.begin(), files.end(), [](const File& a, const File& b) { return a.time < b.time; });
    for (const File& f : files) {
        if (total <= max_bytes_) break;
        if (f.path.filename().string().starts_with(".")) continue;  // a live writer's temporary
        if (fs::remove(f.path, ec)) total -= f.bytes;
    }
}

fs::path shared_result_folder() {
    if (const char* dir = std::getenv("GPULAB_RESULTS_DIR")) {
        const std::string d = dir;
        return d.empty() || d == "off" ? fs::path() : fs::path(d);
    }
    const std::string cache = user_cache_folder();
    return cache.empty() ? fs::path() : fs::path(cache) / "results";
}

ResultStore& shared_result_store(const StoreIdentity& me) {
    static ResultStore store(shared_result_folder(), me);
    return store;
}

}  // namespace gpulab::core
