// Files in and out, checked. In: opening files that come from outside (lesson files, .npy arrays, pictures, another machine's
// export CSV) so that a hostile or mistaken path cannot hang or exhaust the app: only a regular
// file is read (a FIFO would block forever, /dev/zero never ends, a folder is not a file), its
// size is checked against a cap for its kind before anything is allocated, and the size used is
// the one of the descriptor actually read (fstat after open, so no check-then-open race).
// Out: a whole file written and checked after it is flushed and closed, so a full disk or a
// vanished folder is an error with a sentence, never a silent success with half a file.
// Verified by tests/test_hostile_inputs.cpp (FIFO, /dev/zero symlink, folder, over-size), tests/test_partial_writes.cpp
// (a disk that fills up) and tests/kill_loop.py (killed at random while writing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace gpulab::core {

// Caps per kind of input, named in the messages. Generous for real files, small against abuse.
inline constexpr std::int64_t kMaxLessonFileBytes = 1 << 20;          // 1 MiB of TOML
inline constexpr std::int64_t kMaxCompareFileBytes = 16 << 20;        // 16 MiB of CSV
inline constexpr std::int64_t kMaxImageFileBytes = 256LL << 20;       // 256 MiB compressed picture
inline constexpr std::int64_t kMaxNpyFileBytes = 8LL << 30;           // 8 GiB array (memory is checked too)

// One open regular file. Throws InputError ("<path>: <sentence>") from the constructor when the
// path cannot be opened, is not a regular file, or is larger than `max_bytes`; `kind` names the
// file in that sentence ("lesson file", ".npy file").
class InputFile {
public:
    InputFile(const std::string& path, std::int64_t max_bytes, std::string_view kind);
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    const std::string& path() const { return path_; }
    std::int64_t size() const { return size_; }     // from fstat when opened
    std::int64_t offset() const { return offset_; }  // bytes read so far
    std::int64_t remaining() const { return size_ - offset_; }

    // Reads up to n bytes (fewer only at the end of the file); returns how many were read.
    // Throws InputError on a read error.
    std::size_t read(void* buffer, std::size_t n);
    // Everything from the current offset to the end.
    std::string read_rest();

private:
    std::string path_;
    int fd_ = -1;
    std::int64_t size_ = 0;
    std::int64_t offset_ = 0;
};

// The whole of a regular file no larger than `max_bytes`, or InputError as above.
std::string read_input_file(const std::string& path, std::int64_t max_bytes, std::string_view kind);

// Why `path` would be refused as input ("is a FIFO, not a regular file"), or "" when it is a
// regular file. Cheap (stat only): lets a folder listing skip special files with a warning.
std::string special_file_reason(const std::string& path);

// The one way gpulab writes a file (issue 31, item 1): `bytes` go to a temporary file in the same
// folder, every write and the close checked, flushed to the disk, then renamed over `path`. A
// reader, a second writer or a process killed half-way sees the old file or the new one, never a
// cut one under the final name; on failure the temporary is removed (on SIGINT, SIGTERM and SIGHUP
// too, unless the program handles those itself). A `path` that exists and is not a regular file
// (a FIFO, a device, a folder) is refused; through a symbolic link the file it points to is
// replaced. Returns "" on success, else "cannot write <path>: <reason> [after <n> of <total>]".
std::string write_output_file(const std::string& path, std::string_view bytes);
// The same for a file made of several pieces (a header and a large array), without joining them.
std::string write_output_file(const std::string& path, std::initializer_list<std::string_view> pieces);

// [SECTION] files inside one folder that another computer's data reaches (issue 43)
// The results store keeps files whose content comes from elsewhere (`gpulab prerun --import`). Their
// names are the store's own, and every open goes through the folder's descriptor without following
// a symbolic link (openat with O_NOFOLLOW; the folder itself opened so too), so neither a crafted
// name nor a link planted in the folder leads outside it.

// A name made only of letters, digits, '.', '_' and '-', not starting with '.', 1 to 200 bytes: no
// folder separator, no "..", no hidden or temporary name.
bool is_plain_file_name(std::string_view name);
// write_output_file for `name` inside `folder`: a temporary beside it, then renamed over it. A link
// planted under `name` is replaced, never written through; a name that is not plain, or a folder
// that is a link, is refused. "" or "cannot write <folder>/<name>: <reason>".
std::string write_file_in_folder(const std::string& folder, std::string_view name,
                                 std::initializer_list<std::string_view> pieces);
// read_input_file for `name` inside `folder`, refusing a link (and a name that is not plain) with
// InputError instead of reading what it points to.
std::string read_file_in_folder(const std::string& folder, std::string_view name, std::int64_t max_bytes,
                                std::string_view kind);

// gpulab's folder under the user's cache ($XDG_CACHE_HOME/gpulab when XDG_CACHE_HOME is absolute,
// else $HOME/.cache/gpulab), or "" when neither is set. Only named here, not created.
std::string user_cache_folder();

// The sentence for a set of files (an export) that stopped at a failed write: `error` from
// write_output_file, then what is left: "nothing was written", "the 2 files written before it are
// kept in DIR", or, when the folder itself disappeared, that the files went with it.
std::string partial_write_message(const std::string& error, const std::string& dir, std::size_t files_written);

}  // namespace gpulab::core
