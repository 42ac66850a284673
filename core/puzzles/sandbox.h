// Confines the programs that touch a student's kernel (the compiler, the linker, nm, addr2line,
// gpulab-kernel-runner, the GPU harness) in new user, PID, network, IPC, UTS and mount namespaces
// with Debian's bubblewrap (bwrap, the sandbox Flatpak uses) rather than a namespace setup of our
// own: inside, the system's /usr is read-only, /tmp is private and empty, there is no $HOME, no
// network and no other process, and only the check's scratch folder is writable. The child dies
// with gpulab. Where bubblewrap is missing or the machine forbids unprivileged namespaces the
// children run as before (seccomp and resource limits only) and sandbox_status() says so in one
// sentence. What is promised against a hostile submission is in docs/architecture.md ("Checking a
// student's kernel"). POSIX; plain C++. Verified by tests/test_puzzle_sandbox.cpp.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace gpulab::puzzles {

struct SandboxStatus {
    bool confined = false;        // bubblewrap works here
    std::filesystem::path bwrap;  // its path, when found
    std::string sentence;         // when not confined: why, and what to install
};

// Probed once per process (a bwrap run of /usr/bin/true). $GPULAB_BWRAP names another bwrap, or
// "off" to run unconfined (the tests of the fallback use it).
const SandboxStatus& sandbox_status();

struct SandboxSpec {
    std::vector<std::filesystem::path> writable;  // bound read-write at the same path (the scratch folder)
    std::vector<std::filesystem::path> readable;  // bound read-only at the same path (outside /usr)
    bool gpu = false;                             // the GPU's device nodes and /sys, for the GPU harness
};

// `argv` as it should be started: behind bwrap with `spec` when confined (the working folder
// `cwd` must be inside a writable or readable path), else unchanged.
std::vector<std::string> sandboxed_argv(const SandboxSpec& spec, const std::filesystem::path& cwd,
                                        const std::vector<std::string>& argv);

}  // namespace gpulab::puzzles
