// Regular-file-only input with a size cap: see file_io.h. O_NONBLOCK on open is what keeps a
// FIFO with no writer from blocking the open itself; fstat on the open descriptor then refuses it
// (and devices, folders, sockets) before a single byte is read.
#include "file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <mutex>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "measure/format.h"
#include "image_io.h"

namespace gpulab::core {

namespace {

std::string file_type_reason(mode_t mode) {
    if (S_ISREG(mode)) return "";
    if (S_ISDIR(mode)) return "is a folder, not a file";
    if (S_ISFIFO(mode)) return "is a FIFO (named pipe), not a regular file";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device, not a regular file";
    if (S_ISSOCK(mode)) return "is a socket, not a regular file";
    return "is not a regular file";
}

}  // namespace

InputFile::InputFile(const std::string& path, std::int64_t max_bytes, std::string_view kind) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) throw InputError(path + ": cannot open file (" + std::strerror(errno) + ")");
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        const int why = errno;
        ::close(fd_);
        throw InputError(path + ": cannot read file information (" + std::strerror(why) + ")");
    }
    if (std::string why = file_type_reason(st.st_mode); !why.empty()) {
        ::close(fd_);
        throw InputError(path + ": " + why + "; gpulab reads only regular files as input");
    }
    if (st.st_size > max_bytes) {
        ::close(fd_);
        throw InputError(path + ": is " + format_bytes(static_cast<double>(st.st_size)) + ", larger than any " +
                         std::string(kind) + " gpulab reads (at most " + format_bytes(static_cast<double>(max_bytes)) +
                         ")");
    }
    size_ = st.st_size;
}

InputFile::~InputFile() {
    if (fd_ >= 0) ::close(fd_);
}

std::size_t InputFile::read(void* buffer, std::size_t n) {
    std::size_t done = 0;
    char* out = static_cast<char*>(buffer);
    while (done < n) {
        const ssize_t got = ::read(fd_, out + done, n - done);
        if (got == 0) break;
        if (got < 0) {
            if (errno == EINTR) continue;
            throw InputError(path_ + ": read failed (" + std::strerror(errno) + ")");
        }
        done += static_cast<std::size_t>(got);
    }
    offset_ += static_cast<std::int64_t>(done);
    return done;
}

std::string InputFile::read_rest() {
    // The size is the fstat one, already capped; a file that grows while it is read is cut there.
    std::string text(static_cast<std::size_t>(remaining() > 0 ? remaining() : 0), '\0');
    text.resize(read(text.data(), text.size()));
    return text;
}

std::string read_input_file(const std::string& path, std::int64_t max_bytes, std::string_view kind) {
    InputFile f(path, max_bytes, kind);
    return f.read_rest();
}

std::string special_file_reason(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return "";  // missing or unreadable: opening it says why
    return file_type_reason(st.st_mode);
}

namespace {

// [SECTION] temporary files a signal must not leave behind

// The temporary files being written right now, so that SIGINT, SIGTERM or SIGHUP removes them
// before the process ends (a SIGKILL cannot be caught: its temporary stays, under a dot name,
// never under the final one). Fixed slots, because the handler may only call async-signal-safe
// functions: it reads the flags and paths and calls unlink().
constexpr int kTempSlots = 32;
struct TempSlot {
    std::atomic<bool> used{false};
    char path[4096] = {};
};
TempSlot g_temp_slots[kTempSlots];

extern "C" void remove_temp_files_and_reraise(int sig) {
    for (TempSlot& slot : g_temp_slots)
        if (slot.used.load(std::memory_order_acquire)) ::unlink(slot.path);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

// Installed once, and only over the default action: a program with its own handler (the window
// stops cleanly on SIGTERM and finishes its files) keeps it.
void install_temp_cleanup() {
    static std::once_flag once;
    std::call_once(once, [] {
        for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
            struct sigaction old {};
            if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
            struct sigaction act {};
            act.sa_handler = remove_temp_files_and_reraise;
            sigemptyset(&act.sa_mask);
            ::sigaction(sig, &act, nullptr);
        }
    });
}

// A slot holding `path`, or -1 when all are taken (the file is still written; only a signal's
// clean-up would miss it).
int remember_temp(const std::string& path) {
    install_temp_cleanup();
    if (path.size() >= sizeof(TempSlot::path)) return -1;
    static std::mutex claim;  // between writers; the handler only reads
    std::lock_guard<std::mutex> lock(claim);
    for (int i = 0; i < kTempSlots; ++i) {
        if (g_temp_slots[i].used.load(std::memory_order_relaxed)) continue;
        std::memcpy(g_temp_slots[i].path, path.c_str(), path.size() + 1);
        g_temp_slots[i].used.store(true, std::memory_order_release);  // only once the path is in place
        return i;
    }
    return -1;
}

void forget_temp(int slot) {
    if (slot >= 0) g_temp_slots[slot].used.store(false, std::memory_order_release);
}

// Writes every piece to `path`, opened exclusively (a new temporary name), checking each write and
// the close; "" or the sentence.
std::string write_pieces(int folder_fd, const std::string& path, const std::string& shown_path,
                         std::initializer_list<std::string_view> pieces) {
    const int fd = ::openat(folder_fd, path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return "cannot write " + shown_path + ": " + std::strerror(errno);
    std::size_t total = 0, done = 0;
    for (std::string_view piece : pieces) total += piece.size();
    for (std::string_view piece : pieces) {
        std::size_t at = 0;
        while (at < piece.size()) {
            const ssize_t put = ::write(fd, piece.data() + at, piece.size() - at);
            if (put < 0 && errno == EINTR) continue;
            if (put <= 0) {
                const int why = put < 0 ? errno : ENOSPC;
                ::close(fd);
                return "cannot write " + shown_path + ": " + std::strerror(why) + " after " +
                       format_bytes(static_cast<double>(done)) + " of " + format_bytes(static_cast<double>(total));
            }
            at += static_cast<std::size_t>(put);
            done += static_cast<std::size_t>(put);
        }
    }
    // Flushed to the disk before the rename: after a power cut the final name points at the whole
    // new file or at the old one.
    if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
        const int why = errno;
        ::close(fd);
        return "cannot write " + shown_path + ": " + std::strerror(why);
    }
    // close() is where some file systems (NFS, a full quota) report a failed write.
    if (::close(fd) != 0) return "cannot write " + shown_path + ": " + std::strerror(errno);
    return "";
}

}  // namespace

std::string write_output_file(const std::string& path, std::initializer_list<std::string_view> pieces) {
    // The name the file will have: through a symbolic link to where it points (the link stays), and
    // never over something that is not a regular file (a FIFO would block, a device would be written).
    std::string target = path;
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        if (char* real = ::realpath(path.c_str(), nullptr)) {
            target = real;
            std::free(real);
        }
    }
    if (::stat(target.c_str(), &st) == 0)
        if (std::string why = file_type_reason(st.st_mode); !why.empty())
            return "cannot write " + path + ": it " + why + "; gpulab writes only regular files";
    static std::atomic<unsigned> counter{0};
    const std::filesystem::path final_path(target);
    // A dot name in the same folder (so the rename is atomic and a listing passes over it); the
    // process id and a counter keep two writers, two threads or two windows, apart.
    const std::string temp = (final_path.parent_path() /
                              ("." + final_path.filename().string() + "." + std::to_string(::getpid()) + "." +
                               std::to_string(counter.fetch_add(1)) + ".tmp"))
                                 .string();
    const int slot = remember_temp(temp);
    std::string why = write_pieces(AT_FDCWD, temp, path, pieces);
    if (why.empty() && ::rename(temp.c_str(), target.c_str()) != 0) why = "cannot write " + path + ": " + std::strerror(errno);
    if (!why.empty()) ::unlink(temp.c_str());
    forget_temp(slot);
    return why;
}

std::string write_output_file(const std::string& path, std::string_view bytes) {
    return write_output_file(path, {bytes});
}

bool is_plain_file_name(std::string_view name) {
    if (name.empty() || name.size() > 200 || name.front() == '.') return false;
    for (const char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                        c == '_' || c == '-';
        if (!ok) return false;
    }
    return true;
}

namespace {

// The folder opened for openat: itself not through a link, and only a folder.
int open_folder(const std::string& folder) {
    return ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

struct FolderFd {
    int fd;
    ~FolderFd() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

std::string write_file_in_folder(const std::string& folder, std::string_view name,
                                 std::initializer_list<std::string_view> pieces) {
    const std::string shown = (std::filesystem::path(folder) / std::string(name)).string();
    if (!is_plain_file_name(name)) return "cannot write " + shown + ": not a plain file name";
    const FolderFd dir{open_folder(folder)};
    if (dir.fd < 0)
        return "cannot write " + shown + ": " +
               (errno == ELOOP || errno == ENOTDIR ? std::string("the folder is a link or not a folder")
                                                   : std::string(std::strerror(errno)));
    static std::atomic<unsigned> counter{0};
    const std::string temp = "." + std::string(name) + "." + std::to_string(::getpid()) + "." +
                             std::to_string(counter.fetch_add(1)) + ".tmp";
    const int slot = remember_temp((std::filesystem::path(folder) / temp).string());
    std::string why = write_pieces(dir.fd, temp, shown, pieces);
    // renameat replaces the name itself: a link planted there goes, what it pointed to is untouched.
    if (why.empty() && ::renameat(dir.fd, temp.c_str(), dir.fd, std::string(name).c_str()) != 0)
        why = "cannot write " + shown + ": " + std::strerror(errno);
    if (!why.empty()) ::unlinkat(dir.fd, temp.c_str(), 0);
    forget_temp(slot);
    return why;
}

std::string read_file_in_folder(const std::string& folder, std::string_view name, std::int64_t max_bytes,
                                std::string_view kind) {
    const std::string shown = (std::filesystem::path(folder) / std::string(name)).string();
    if (!is_plain_file_name(name)) throw InputError(shown + ": not a plain file name");
    const FolderFd dir{open_folder(folder)};
    if (dir.fd < 0) throw InputError(shown + ": cannot open its folder (" + std::strerror(errno) + ")");
    const FolderFd file{::openat(dir.fd, std::string(name).c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)};
    if (file.fd < 0) {
        if (errno == ELOOP) throw InputError(shown + ": is a symbolic link; gpulab reads only regular files here");
        throw InputError(shown + ": cannot open file (" + std::strerror(errno) + ")");
    }
    struct stat st {};
    if (::fstat(file.fd, &st) != 0) throw InputError(shown + ": cannot read file information (" + std::strerror(errno) + ")");
    if (std::string why = file_type_reason(st.st_mode); !why.empty())
        throw InputError(shown + ": " + why + "; gpulab reads only regular files as input");
    if (st.st_size > max_bytes)
        throw InputError(shown + ": is " + format_bytes(static_cast<double>(st.st_size)) + ", larger than any " +
                         std::string(kind) + " gpulab reads (at most " + format_bytes(static_cast<double>(max_bytes)) + ")");
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t got = ::read(file.fd, text.data() + done, text.size() - done);
        if (got == 0) break;
        if (got < 0) {
            if (errno == EINTR) continue;
            throw InputError(shown + ": read failed (" + std::strerror(errno) + ")");
        }
        done += static_cast<std::size_t>(got);
    }
    text.resize(done);
    return text;
}

std::string user_cache_folder() {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/') return (std::filesystem::path(xdg) / "gpulab").string();
    const char* home = std::getenv("HOME");
    if (home && home[0] != '\0') return (std::filesystem::path(home) / ".cache" / "gpulab").string();
    return "";
}

std::string partial_write_message(const std::string& error, const std::string& dir, std::size_t files_written) {
    const std::string files = files_written == 1 ? "the file" : "the " + std::to_string(files_written) + " files";
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return error + "; the folder " + dir + " is gone" +
               (files_written ? ", and " + files + " written before went with it" : "");
    if (files_written == 0) return error + "; nothing was written";
    return error + "; " + files + " written before it " + (files_written == 1 ? "is" : "are") + " kept in " + dir;
}

}  // namespace gpulab::core
