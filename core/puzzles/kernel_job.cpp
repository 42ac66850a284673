#include "kernel_job.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gpulab::puzzles {

namespace fs = std::filesystem;

namespace {

std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

std::string unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) {
            out += s[i + 1] == 'n' ? '\n' : s[i + 1];
            ++i;
        } else {
            out += s[i];
        }
    }
    return out;
}

std::string rest_of(std::istringstream& in) {
    std::string rest;
    std::getline(in, rest);
    if (!rest.empty() && rest.front() == ' ') rest.erase(0, 1);
    return rest;
}

const char kHex[] = "0123456789abcdef";

std::string to_hex(const std::vector<std::byte>& bytes) {
    std::string s(bytes.size() * 2, '0');
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const auto b = static_cast<unsigned>(bytes[i]);
        s[2 * i] = kHex[b >> 4];
        s[2 * i + 1] = kHex[b & 15];
    }
    return s;
}

int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

bool from_hex(const std::string& s, std::vector<std::byte>& out) {
    if (s.size() % 2 != 0) return false;
    out.resize(s.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const int hi = nibble(s[2 * i]), lo = nibble(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        out[i] = static_cast<std::byte>(hi * 16 + lo);
    }
    return true;
}

}  // namespace

std::string write_job(const KernelJob& job, const fs::path& folder) {
    std::error_code ec;
    fs::create_directories(folder, ec);
    std::ofstream out(folder / "job.txt");
    if (!out) return "cannot write the kernel's job into " + folder.string();
    out << "gpulab-job 1\nlibrary " << job.library << "\nkernel " << job.kernel << "\ntime_ms " << job.time_limit_ms
        << "\ntrace " << (job.trace_first_case ? 1 : 0) << "\n";
    for (std::size_t c = 0; c < job.cases.size(); ++c) {
        const JobCase& k = job.cases[c];
        out << "case\ngrid " << k.grid[0] << " " << k.grid[1] << " " << k.grid[2] << "\nblock " << k.block[0] << " "
            << k.block[1] << " " << k.block[2] << "\n";
        for (std::size_t b = 0; b < k.buffers.size(); ++b) {
            const JobBuffer& buf = k.buffers[b];
            std::string file = "-";
            if (buf.filled) {
                file = "case" + std::to_string(c) + "_" + std::to_string(b) + ".bin";
                std::ofstream data(folder / file, std::ios::binary);
                data.write(reinterpret_cast<const char*>(buf.data.data()), static_cast<std::streamsize>(buf.data.size()));
                if (!data) return "cannot write the kernel's input data into " + folder.string();
            }
            out << "buffer " << buf.name << " " << (buf.elem == ElemType::F32 ? "f32" : "i32") << " " << buf.count << " "
                << (buf.filled ? 1 : 0) << " " << (buf.output ? 1 : 0) << " " << file << "\n";
        }
        for (const JobArg& a : k.args) {
            if (a.kind == JobArg::Kind::Buffer) out << "arg buffer " << a.buffer << "\n";
            else if (a.kind == JobArg::Kind::Int) out << "arg int " << a.i << "\n";
            else {
                char text[64];
                std::snprintf(text, sizeof text, "%a", a.f);
                out << "arg float " << text << "\n";
            }
        }
        out << "end\n";
    }
    out.flush();
    return out ? "" : "cannot write the kernel's job into " + folder.string();
}

std::string read_job(const fs::path& folder, KernelJob& job) {
    std::ifstream in(folder / "job.txt");
    if (!in) return "no job.txt in " + folder.string();
    std::string line;
    std::getline(in, line);
    if (line != "gpulab-job 1") return "job.txt is not a gpulab job (version 1)";
    JobCase* current = nullptr;
    while (std::getline(in, line)) {
        std::istringstream s(line);
        std::string key;
        s >> key;
        if (key == "library") job.library = rest_of(s);
        else if (key == "kernel") s >> job.kernel;
        else if (key == "time_ms") s >> job.time_limit_ms;
        else if (key == "trace") {
            int t = 0;
            s >> t;
            job.trace_first_case = t != 0;
        } else if (key == "case") {
            job.cases.emplace_back();
            current = &job.cases.back();
        } else if (key == "end") {
            current = nullptr;
        } else if (current == nullptr) {
            return "job.txt: '" + key + "' outside a case";
        } else if (key == "grid") {
            s >> current->grid[0] >> current->grid[1] >> current->grid[2];
        } else if (key == "block") {
            s >> current->block[0] >> current->block[1] >> current->block[2];
        } else if (key == "buffer") {
            JobBuffer b;
            std::string elem, file;
            int filled = 0, output = 0;
            s >> b.name >> elem >> b.count >> filled >> output >> file;
            if (!s || b.count < 1 || b.count > (int64_t{1} << 26)) return "job.txt: a broken buffer line";
            b.elem = elem == "i32" ? ElemType::I32 : ElemType::F32;
            b.filled = filled != 0;
            b.output = output != 0;
            if (b.filled) {
                std::ifstream data(folder / file, std::ios::binary);
                b.data.resize(static_cast<std::size_t>(b.count) * 4);
                data.read(reinterpret_cast<char*>(b.data.data()), static_cast<std::streamsize>(b.data.size()));
                if (!data) return "job.txt: buffer data " + file + " is missing or short";
            }
            current->buffers.push_back(std::move(b));
        } else if (key == "arg") {
            JobArg a;
            std::string kind, value;
            s >> kind >> value;
            if (kind == "buffer") {
                a.kind = JobArg::Kind::Buffer;
                a.buffer = std::stoi(value);
                if (a.buffer < 0 || a.buffer >= static_cast<int>(current->buffers.size())) return "job.txt: an argument names no buffer";
            } else if (kind == "int") {
                a.kind = JobArg::Kind::Int;
                a.i = std::stoll(value);
            } else {
                a.kind = JobArg::Kind::Float;
                a.f = std::strtod(value.c_str(), nullptr);
            }
            current->args.push_back(a);
        } else {
            return "job.txt: unknown line '" + key + "'";
        }
    }
    if (job.library.empty() || job.cases.empty()) return "job.txt names no library or no case";
    return "";
}

std::string report_line_base(std::uintptr_t base) {
    char text[64];
    std::snprintf(text, sizeof text, "base %" PRIxPTR "\n", base);
    return text;
}

std::string report_line_case(int index, const CaseReport& r) {
    std::ostringstream s;
    s << "case " << index << " " << r.finished << " " << r.clean << " " << static_cast<int>(r.kind) << " " << r.threads
      << " " << r.blocks << " " << r.barriers << " " << r.shared_requests << " " << r.shared_wavefronts << " "
      << r.global_requests << " " << r.global_sectors << " " << r.global_bytes << " " << r.warps << " "
      << r.divergent_warps << " " << r.wall_ns << "\n";
    if (!r.message.empty()) s << "message " << index << " " << escape(r.message) << "\n";
    for (std::size_t b = 0; b < r.outputs.size(); ++b) {
        if (!r.outputs[b].empty()) s << "output " << index << " " << b << " " << to_hex(r.outputs[b]) << "\n";
    }
    if (!r.trace.empty()) {
        s << "trace " << index << " " << r.trace_intervals << "\n";
        for (const TraceAccess& a : r.trace) {
            s << "t " << index << " " << a.thread << " " << a.interval << " " << a.shared << " " << a.store << " "
              << a.buffer << " " << a.element << "\n";
        }
    }
    return s.str();
}

std::string report_line_timeout(const std::string& where, std::uintptr_t site) {
    char text[64];
    std::snprintf(text, sizeof text, "%" PRIxPTR, site);
    return "timeout " + std::string(text) + " " + escape(where) + "\n";
}
std::string report_line_forbidden(const std::string& syscall) { return "forbidden " + syscall + "\n"; }
std::string report_line_crash(int signal, const std::string& where, std::uintptr_t site) {
    char text[64];
    std::snprintf(text, sizeof text, "%d %" PRIxPTR, signal, site);
    return "crash " + std::string(text) + " " + escape(where) + "\n";
}
std::string report_line_fatal(const std::string& sentence) { return "fatal " + escape(sentence) + "\n"; }
std::string report_line_done() { return "done\n"; }

KernelReport parse_report(const std::string& text) {
    KernelReport r;
    std::istringstream in(text);
    std::string line;
    const auto case_at = [&](int i) -> CaseReport* {
        if (i < 0 || i > 100000) return nullptr;
        if (static_cast<int>(r.cases.size()) <= i) r.cases.resize(static_cast<std::size_t>(i) + 1);
        return &r.cases[static_cast<std::size_t>(i)];
    };
    while (std::getline(in, line)) {
        std::istringstream s(line);
        std::string key;
        s >> key;
        if (key == "base") {
            s >> std::hex >> r.library_base;
        } else if (key == "case") {
            int i = -1, kind = 0;
            s >> i;
            CaseReport* c = case_at(i);
            if (c == nullptr) continue;
            s >> c->finished >> c->clean >> kind >> c->threads >> c->blocks >> c->barriers >> c->shared_requests >>
                c->shared_wavefronts >> c->global_requests >> c->global_sectors >> c->global_bytes >> c->warps >>
                c->divergent_warps >> c->wall_ns;
            c->kind = static_cast<DefectKind>(kind);
        } else if (key == "message") {
            int i = -1;
            s >> i;
            if (CaseReport* c = case_at(i)) {
                c->message = unescape(rest_of(s));
                c->sites = site_tokens(c->message);
            }
        } else if (key == "output") {
            int i = -1;
            std::size_t b = 0;
            std::string hex;
            s >> i >> b >> hex;
            CaseReport* c = case_at(i);
            if (c == nullptr || b > 64) continue;
            if (c->outputs.size() <= b) c->outputs.resize(b + 1);
            if (!from_hex(hex, c->outputs[b])) c->outputs[b].clear();
        } else if (key == "trace") {
            int i = -1;
            s >> i;
            if (CaseReport* c = case_at(i)) s >> c->trace_intervals;
        } else if (key == "t") {
            int i = -1;
            TraceAccess a;
            s >> i >> a.thread >> a.interval >> a.shared >> a.store >> a.buffer >> a.element;
            if (CaseReport* c = case_at(i); c != nullptr && s) c->trace.push_back(a);
        } else if (key == "timeout") {
            r.timed_out = true;
            s >> std::hex >> r.stopped_site >> std::dec;
            r.stopped_where = unescape(rest_of(s));
        } else if (key == "crash") {
            s >> r.crash_signal >> std::hex >> r.stopped_site >> std::dec;
            r.stopped_where = unescape(rest_of(s));
        } else if (key == "forbidden") {
            s >> r.forbidden;
        } else if (key == "gpu") {
            r.gpu = unescape(rest_of(s));
        } else if (key == "gputime") {
            int i = -1;
            s >> i;
            if (CaseReport* c = case_at(i)) s >> c->gpu_ns;
        } else if (key == "fatal") {
            r.fatal = unescape(rest_of(s));
        } else if (key == "done") {
            r.done = true;
        }
    }
    return r;
}

std::vector<std::uintptr_t> site_tokens(const std::string& message) {
    std::vector<std::uintptr_t> out;
    std::size_t pos = 0;
    while ((pos = message.find("{{site:", pos)) != std::string::npos) {
        pos += 7;
        out.push_back(static_cast<std::uintptr_t>(std::strtoull(message.c_str() + pos, nullptr, 16)));
    }
    return out;
}

}  // namespace gpulab::puzzles
