// A full disk for the length of a scope, in a test: RLIMIT_FSIZE refuses every byte past `bytes`
// (EFBIG, as ENOSPC on a full disk), with SIGXFSZ ignored as gpulab's main() ignores it, so the
// write returns the error instead of ending the test process. Restored when the scope ends.
#pragma once

#include <sys/resource.h>

#include <csignal>

class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) : old_handler_(std::signal(SIGXFSZ, SIG_IGN)) {
        ok_ = getrlimit(RLIMIT_FSIZE, &old_) == 0;
        rlimit small = old_;
        small.rlim_cur = bytes;
        ok_ = ok_ && setrlimit(RLIMIT_FSIZE, &small) == 0;
    }
    ~FileSizeLimit() {
        setrlimit(RLIMIT_FSIZE, &old_);
        std::signal(SIGXFSZ, old_handler_);
    }
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;
    bool ok() const { return ok_; }

private:
    void (*old_handler_)(int);
    rlimit old_{};
    bool ok_ = false;
};
