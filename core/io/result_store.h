// Measured results kept on disk between runs of the app (issue 25): a step measured yesterday, or
// before class by `gpulab prerun`, shows its numbers at once, labelled with when (and, for another
// machine's, where) it was measured. The views' in-memory caches (measure/result_cache.h) sit in
// front of it; this file knows bytes, not result types (each view writes its own payload with
// cereal: views/<lesson>/*_archive.cpp).
//
// One file per view and settings key, `<folder>/<view>-<hash>.result`: a short text header (view,
// payload format, the key itself, build, machine, when) and the payload. An entry counts only for
// the same key, payload format, build and machine; anything else is passed over (a newer build
// overwrites it). Entries loaded from another machine (`import_from`, e.g. the instructor's GPU
// box) live in `<folder>/imported/` and count for the same key, payload format and gpulab
// version, whatever the build or machine: they are shown as "measured on <machine>". Files are
// replaced whole (io/file_io.h write_file_in_folder), so a killed writer leaves the old entry or the new.
// What another computer sends is data, never a path (issue 43): an entry's file name is the store's
// own (a view name it checks, then a hash), every file is opened through its folder without
// following a link, so a crafted header or a planted link cannot lead outside the folder, and header
// text that reaches a terminal loses its control characters. The folder is bounded by bytes, oldest
// files going first (a file dated in the future counts as oldest); temporaries of killed writers
// are swept after ten minutes. Verified by tests/test_result_store.cpp.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace gpulab::core {

// Who is writing: what an entry must match to count as this machine's own.
struct StoreIdentity {
    std::string version;        // gpulab's version: imported entries must match it
    std::string build;          // this binary (its size and time): own entries must match it
    std::string machine;        // host name and CPU: own entries must match it
    // "<cpu>, <gpu>": how another computer names this one. Asked at each write (on the writer
    // thread), since the GPU probe may still be running when the store is made.
    std::function<std::string()> machine_label;
};

struct StoredResult {
    std::string payload;
    std::int64_t measured_unix_s = 0;
    std::string machine_label;  // of the machine that measured it
    bool this_machine = true;   // false: imported from another machine
};

// What import_from and export_to did, in numbers and one sentence per file passed over.
struct TransferReport {
    int copied = 0;
    std::vector<std::string> skipped;  // "<file>: <why>"
    std::string error;                 // the whole transfer failed (folder missing, unwritable)
};

class ResultStore {
public:
    // An entry larger than this is not kept: a 2^24-element activation run holds 192 MiB of
    // pictures, measured again in seconds, and not worth a cache file of that size.
    static constexpr std::int64_t kMaxEntryBytes = std::int64_t{64} << 20;
    static constexpr std::int64_t kDefaultMaxBytes = std::int64_t{512} << 20;

    // An empty folder makes a store that keeps nothing and finds nothing (no cache folder known,
    // or switched off for tests).
    ResultStore(std::filesystem::path folder, StoreIdentity me, std::int64_t max_bytes = kDefaultMaxBytes);
    ~ResultStore();  // waits for the writes still queued
    ResultStore(const ResultStore&) = delete;
    ResultStore& operator=(const ResultStore&) = delete;

    bool enabled() const { return !folder_.empty(); }
    const std::filesystem::path& folder() const { return folder_; }
    const StoreIdentity& identity() const { return me_; }

    // Writes an entry now. Returns "" or a sentence (an unwritable folder, a full disk); a payload
    // over kMaxEntryBytes is left out and says so. A key must be one line.
    std::string save(std::string_view view, int format, const std::string& key, std::string_view payload,
                     std::int64_t measured_unix_s);
    // The same on the store's writer thread, so the window does not wait for the disk: `payload`
    // is called there (it serialises a result the caller no longer changes). Failures go to
    // last_write_error().
    void save_later(std::string view, int format, std::string key, std::function<std::string()> payload,
                    std::int64_t measured_unix_s);
    void flush();  // returns when every queued write is done
    std::string last_write_error() const;

    // This machine's own entry for the key, else an imported one; nullopt when neither counts.
    std::optional<StoredResult> load(std::string_view view, int format, const std::string& key) const;

    // `gpulab prerun --out DIR`: copies this build's and machine's entries into `dir` (created).
    TransferReport export_to(const std::filesystem::path& dir) const;
    // `gpulab prerun --import DIR`: copies every entry file of `dir` that reads whole into
    // imported/; files of this machine are refused (they would be shown as another machine's).
    TransferReport import_from(const std::filesystem::path& dir);

    // The file an entry lives in (tests, and the Devices view's folder line).
    std::filesystem::path entry_path(std::string_view view, const std::string& key, bool imported) const;

private:
    struct Job {
        std::string view, key;
        int format = 0;
        std::function<std::string()> payload;
        std::int64_t measured_unix_s = 0;
    };
    void writer_loop();
    void trim_to_budget();

    std::filesystem::path folder_;
    StoreIdentity me_;
    std::int64_t max_bytes_;

    mutable std::mutex mutex_;
    std::condition_variable wake_, idle_;
    std::deque<Job> queue_;
    bool writing_ = false, stopping_ = false;
    std::string last_error_;
    std::thread writer_;  // started by the first save_later
};

// The store the window and `gpulab prerun` share: under user_cache_folder()/results, or the folder
// GPULAB_RESULTS_DIR names ("off" keeps nothing: the tests that expect a step to measure set it).
// Created on first use with `me`; later calls return the same store.
ResultStore& shared_result_store(const StoreIdentity& me);
// The folder shared_result_store uses, or "" when switched off or no cache folder is known.
std::filesystem::path shared_result_folder();

}  // namespace gpulab::core
