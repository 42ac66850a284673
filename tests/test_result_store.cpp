// The results store on disk (core/io/result_store.h) and the archives of the measurement types
// (core/workloads/workload_archive.h): an entry comes back under its key for this build and
// machine and not for another; another computer's entries import and say where they were
// measured; damaged, cut-short, crafted and oversized files are passed over with a reason; writes
// replace whole files and stay within the byte budget; a measured run survives the round trip.
#include <doctest/doctest.h>

#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "io/file_io.h"
#include "io/result_store.h"
#include "measure/result_cache.h"
#include "workloads/workload_archive.h"

using namespace gpulab::core;
namespace fs = std::filesystem;

namespace {

fs::path fresh_folder(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("gpulab_test_store_" + name);
    fs::remove_all(dir);
    return dir;
}

StoreIdentity identity(const std::string& machine, const std::string& build = "build 1", const std::string& version = "0.1.0") {
    StoreIdentity id;
    id.version = version;
    id.build = build;
    id.machine = machine;
    id.machine_label = [machine] { return machine + " CPU, no GPU"; };
    return id;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void spit(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

MeasureConfig quick() {
    MeasureConfig c;
    c.warmup = 1;
    c.min_samples = 3;
    c.max_samples = 3;
    c.time_budget_ns = 0;
    return c;
}

}  // namespace

TEST_SUITE("measure") {
    TEST_CASE("the results store gives an entry back for its key - and only for this build and machine") {
        const fs::path dir = fresh_folder("own");
        ResultStore store(dir, identity("lab-1"));
        REQUIRE(store.enabled());
        CHECK_FALSE(store.load("conv2d", 1, "sobel-x 512"));
        CHECK(store.save("conv2d", 1, "sobel-x 512", "payload bytes", 1'700'000'000).empty());
        const auto back = store.load("conv2d", 1, "sobel-x 512");
        REQUIRE(back);
        CHECK(back->payload == "payload bytes");
        CHECK(back->measured_unix_s == 1'700'000'000);
        CHECK(back->this_machine);
        CHECK(back->machine_label == "lab-1 CPU, no GPU");
        CHECK_FALSE(store.load("conv2d", 1, "sobel-x 1024"));  // another key
        CHECK_FALSE(store.load("conv2d", 2, "sobel-x 512"));   // another payload format
        CHECK_FALSE(store.load("activation", 1, "sobel-x 512"));

        // A rebuilt binary, or the same home folder on another computer, measures afresh.
        CHECK_FALSE(ResultStore(dir, identity("lab-1", "build 2")).load("conv2d", 1, "sobel-x 512"));
        CHECK_FALSE(ResultStore(dir, identity("lab-2")).load("conv2d", 1, "sobel-x 512"));
        // A newer result replaces the file whole.
        CHECK(store.save("conv2d", 1, "sobel-x 512", "newer", 1'700'000'100).empty());
        CHECK(store.load("conv2d", 1, "sobel-x 512")->payload == "newer");
        for (const auto& e : fs::directory_iterator(dir))
            CHECK(e.path().extension() == ".result");  // no temporary file left behind
        fs::remove_all(dir);
    }

    TEST_CASE("the results store passes over damaged - cut short and foreign files and never needs the key's file name") {
        const fs::path dir = fresh_folder("damaged");
        ResultStore store(dir, identity("lab-1"));
        REQUIRE(store.save("tensor", 1, "k", std::string(1000, 'x'), 1).empty());
        const fs::path file = store.entry_path("tensor", "k", false);
        const std::string whole = slurp(file);

        std::string flipped = whole;
        flipped[flipped.size() - 10] ^= 0x20;  // one payload byte
        spit(file, flipped);
        CHECK_FALSE(store.load("tensor", 1, "k"));
        spit(file, whole.substr(0, whole.size() - 100));  // a copy cut short
        CHECK_FALSE(store.load("tensor", 1, "k"));
        spit(file, "PNG not a results file");
        CHECK_FALSE(store.load("tensor", 1, "k"));
        spit(file, whole);
        CHECK(store.load("tensor", 1, "k"));
        // Another key whose file name collided would carry its own key: not taken for this one.
        std::string other_key = whole;
        other_key.replace(other_key.find("key: k\n"), 7, "key: z\n");
        spit(file, other_key);
        CHECK_FALSE(store.load("tensor", 1, "k"));
        fs::remove_all(dir);
    }

    TEST_CASE("the results store refuses what it cannot keep with a sentence") {
        const fs::path dir = fresh_folder("refuse");
        ResultStore store(dir, identity("lab-1"));
        const std::string big(static_cast<std::size_t>(ResultStore::kMaxEntryBytes) + 1, 'x');
        CHECK(store.save("activation", 1, "huge", big, 1).find("not kept on disk") != std::string::npos);
        CHECK(store.save("activation", 1, "two\nlines", "x", 1) == "a results key must be one line");
        // A folder that cannot be made (a file is in its way): the reason, not a crash.
        const fs::path blocked = fresh_folder("blocked");
        spit(blocked, "a file where the folder would go");
        ResultStore nowhere(blocked / "results", identity("lab-1"));
        const std::string why = nowhere.save("activation", 1, "k", "x", 1);
        CHECK(why.find("cannot create") == 0);
        CHECK_FALSE(nowhere.load("activation", 1, "k"));
        // Switched off: keeps nothing, finds nothing, says nothing.
        ResultStore off({}, identity("lab-1"));
        CHECK_FALSE(off.enabled());
        CHECK(off.save("activation", 1, "k", "x", 1).empty());
        CHECK_FALSE(off.load("activation", 1, "k"));
        fs::remove(blocked);
        fs::remove_all(dir);
    }

    TEST_CASE("another computer's results import - say where they were measured - and this computer's own come first") {
        const fs::path gpu_box = fresh_folder("gpu_box"), laptop = fresh_folder("laptop"), carried = fresh_folder("carried");
        ResultStore box(gpu_box, identity("gpu-box"));
        REQUIRE(box.save("latency", 1, "relu 2^4..2^24", "measured on the GPU box", 1'700'000'000).empty());
        REQUIRE(box.save("conv2d", 1, "sobel-x 512", "conv on the GPU box", 1'700'000'001).empty());
        const TransferReport out = box.export_to(carried);
        CHECK(out.error.empty());
        CHECK(out.copied == 2);
        spit(carried / "notes.result", "not a results file");

        ResultStore mine(laptop, identity("laptop"));
        const TransferReport in = mine.import_from(carried);
        CHECK(in.error.empty());
        CHECK(in.copied == 2);
        REQUIRE(in.skipped.size() == 1);
        CHECK(in.skipped[0] == "notes.result: not a gpulab results file");
        const auto got = mine.load("latency", 1, "relu 2^4..2^24");
        REQUIRE(got);
        CHECK_FALSE(got->this_machine);
        CHECK(got->machine_label == "gpu-box CPU, no GPU");
        CHECK(got->payload == "measured on the GPU box");
        // Measured here later: this computer's own result is what shows.
        REQUIRE(mine.save("latency", 1, "relu 2^4..2^24", "measured here", 1'700'000'500).empty());
        CHECK(mine.load("latency", 1, "relu 2^4..2^24")->this_machine);

        // The GPU box's own folder cannot be imported into itself, nor another gpulab version's.
        const TransferReport self = box.import_from(carried);
        CHECK(self.copied == 0);
        CHECK(self.skipped.size() == 3);
        ResultStore newer(fresh_folder("newer"), identity("laptop-2", "build 9", "0.2.0"));
        const TransferReport other_version = newer.import_from(carried);
        CHECK(other_version.copied == 0);
        CHECK(other_version.skipped[0].find("written by gpulab 0.1.0, this is 0.2.0") != std::string::npos);
        CHECK(mine.import_from(fresh_folder("missing")).error.find("is not a folder") != std::string::npos);
        for (const fs::path& d : {gpu_box, laptop, carried, fresh_folder("newer")}) fs::remove_all(d);
    }

    TEST_CASE("the results store stays within its byte budget - oldest first - and writes later on its own thread") {
        const fs::path dir = fresh_folder("budget");
        {
            ResultStore store(dir, identity("lab-1"), 3000);
            for (int i = 0; i < 5; ++i) {
                const std::string key = "key " + std::to_string(i);
                store.save_later("simd-mimd", 1, key, [] { return std::string(900, 'p'); }, 100 + i);
                store.flush();
                // Distinct modification times, so "oldest" is well defined on coarse file systems.
                fs::last_write_time(store.entry_path("simd-mimd", key, false),
                                    fs::file_time_type::clock::now() - std::chrono::hours(10 - i));
            }
            CHECK(store.last_write_error().empty());
            CHECK_FALSE(store.load("simd-mimd", 1, "key 0"));
            CHECK(store.load("simd-mimd", 1, "key 4"));
            std::uintmax_t total = 0;
            for (const auto& e : fs::directory_iterator(dir)) total += e.file_size();
            CHECK(total <= 3000);
            store.save_later("simd-mimd", 1, "at exit", [] { return std::string("x"); }, 7);
        }  // the destructor waits for the queued write
        CHECK(ResultStore(dir, identity("lab-1")).load("simd-mimd", 1, "at exit"));
        fs::remove_all(dir);
    }

    TEST_CASE("write_output_file leaves the old file or the new one - never a mix - and says why it failed") {
        const fs::path dir = fresh_folder("replace");
        fs::create_directories(dir);
        const fs::path f = dir / "a.txt";
        CHECK(write_output_file(f.string(), {"first"}).empty());
        CHECK(write_output_file(f.string(), {"sec", "ond"}).empty());
        CHECK(slurp(f) == "second");
        CHECK(write_output_file((dir / "no-such-folder" / "b.txt").string(), {"x"}).find("cannot write") == 0);
        CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
        fs::remove_all(dir);
    }

    TEST_CASE("a measured activation run and conv2d run come back from bytes whole") {
        BackendList cpu = make_cpu_backends();
        std::vector<Backend*> raw;
        for (const auto& b : cpu) raw.push_back(b.get());
        ActivationParams p;
        p.elements = 4096;
        p.activation = Activation::Gelu;
        const ActivationRun run = run_activation(p, raw, quick());
        REQUIRE(run.ok);
        const std::string bytes = to_bytes(run);
        const std::shared_ptr<ActivationRun> back = from_bytes<ActivationRun>(bytes);
        REQUIRE(back);
        CHECK(to_bytes(*back) == bytes);
        CHECK(back->reference_output.data == run.reference_output.data);
        CHECK(back->reports.size() == run.reports.size());
        CHECK(back->reports[1].samples_ns == run.reports[1].samples_ns);
        CHECK(back->reports[1].check.verdict == run.reports[1].check.verdict);
        CHECK(activation_config_key(back->params) == activation_config_key(run.params));

        Conv2dParams cp;
        cp.height = cp.width = 64;
        const Conv2dRun conv = run_conv2d(cp, raw, quick());
        REQUIRE(conv.ok);
        const std::shared_ptr<Conv2dRun> conv_back = from_bytes<Conv2dRun>(to_bytes(conv));
        REQUIRE(conv_back);
        CHECK(to_bytes(*conv_back) == to_bytes(conv));
        CHECK(conv_back->desc.to_string() == conv.desc.to_string());
        CHECK(conv_back->reports[0].total.median_ns == conv.reports[0].total.median_ns);

        // Bytes of another layout, cut short, or with trailing bytes: nothing, not a wrong result.
        CHECK_FALSE(from_bytes<Conv2dRun>(bytes));
        CHECK_FALSE(from_bytes<ActivationRun>(bytes.substr(0, bytes.size() / 2)));
        CHECK_FALSE(from_bytes<ActivationRun>(bytes + "extra"));
    }

    TEST_CASE("the FP32 ladder comes back from bytes whole - the tensor lesson ladder step of issue 45") {
        GemmLadder l;
        l.size = 512;
        l.isa = "AVX-512";
        l.peak = {126.0, 240.0, 2};
        GemmRungRow r;
        r.rung = gpulab::cpu::GemmRung::PackedOneCore;
        r.speed.backend = "cpu-parallel";
        r.speed.ran = true;
        r.speed.gflops = 119.5;
        r.speed.check_pass = true;
        r.threads = 1;
        r.fraction_of_peak = 0.95;
        l.rows.push_back(r);
        const std::shared_ptr<GemmLadder> back = from_bytes<GemmLadder>(to_bytes(l));
        REQUIRE(back);
        CHECK(to_bytes(*back) == to_bytes(l));
        REQUIRE(back->rows.size() == 1);
        CHECK(back->rows[0].rung == gpulab::cpu::GemmRung::PackedOneCore);
        CHECK(back->rows[0].speed.gflops == 119.5);
        CHECK(back->peak.all_cores_gflops == 240.0);
    }

    TEST_CASE("a run too large for one entry is kept without its pictures and they are made again when read (issue 41)") {
        BackendList cpu = make_cpu_backends();
        std::vector<Backend*> raw;
        for (const auto& b : cpu) raw.push_back(b.get());
        ActivationParams p;
        p.elements = 8192;
        p.activation = Activation::Sigmoid;
        const ActivationRun run = run_activation(p, raw, quick());
        REQUIRE(run.ok);
        const std::shared_ptr<const ActivationRun> slim = activation_run_without_pictures(run);
        REQUIRE(slim);
        CHECK(slim->input.size() == 0);
        CHECK(slim->reports.size() == run.reports.size());
        const std::string bytes = to_bytes(*slim);
        CHECK(bytes.size() < 64 * 1024);  // the measurement, not three pictures
        std::shared_ptr<ActivationRun> back = from_bytes<ActivationRun>(bytes);
        REQUIRE(back);
        REQUIRE(remake_activation_pictures(*back));
        CHECK(back->input.data == run.input.data);  // the seed makes the same input
        CHECK(back->reference_output.data == run.reference_output.data);
        CHECK(back->simulated_output.size() == 0);  // never shown as the simulator's when it was not kept
        CHECK(back->reports[1].samples_ns == run.reports[1].samples_ns);
        CHECK(activation_config_key(back->params) == activation_config_key(run.params));
        // A whole run needs nothing made again.
        ActivationRun whole = run;
        CHECK(remake_activation_pictures(whole));
        // A picture file's run cannot be made again from a seed: not slimmed (not stored when too large).
        ActivationRun from_file = run;
        from_file.params.image_path = "/tmp/a-picture.png";
        CHECK_FALSE(activation_run_without_pictures(from_file));
        // A crafted slim entry asking for 2^40 elements is refused, not allocated.
        ActivationRun crafted = *slim;
        crafted.params.elements = int64_t{1} << 40;
        CHECK_FALSE(remake_activation_pictures(crafted));
    }

    TEST_CASE("a crafted tensor size is refused before anything is allocated") {
        Tensor t;
        t.shape = {2, 3};
        t.data.assign(6, 1.5f);
        std::string bytes = to_bytes(t);
        CHECK(from_bytes<Tensor>(bytes)->data == t.data);
        // The element count after the shape: claim 2^40 floats for the shape (2^20, 2^20).
        Tensor huge;
        huge.shape = {1 << 20, 1 << 20};
        std::string crafted = to_bytes(huge);
        CHECK_FALSE(from_bytes<Tensor>(crafted));
        Tensor liar;
        liar.shape = {2, 3};
        liar.data.assign(5, 0.0f);  // a count that does not match its shape
        CHECK_FALSE(from_bytes<Tensor>(to_bytes(liar)));
    }

    TEST_CASE("a length in the bytes larger than the bytes is refused before it is allocated") {
        // Found by CI's ASan run: cereal allocated whatever length the data claimed (the bytes of
        // one type read as another claimed 4 * 10^18 characters). Now each length is checked first.
        // The portable archive's layout: one byte for the writer's byte order, then the length (8
        // bytes, little-endian here), then the characters.
        std::string bytes = to_bytes(std::string("abc"));
        REQUIRE(bytes.size() == 1 + 8 + 3);
        CHECK(*from_bytes<std::string>(bytes) == "abc");
        const std::uint64_t two_gib = std::uint64_t{1} << 31;
        std::string crafted = bytes;
        for (int i = 0; i < 8; ++i) crafted[static_cast<std::size_t>(1 + i)] = static_cast<char>((two_gib >> (8 * i)) & 0xFF);
        rusage before{};
        getrusage(RUSAGE_SELF, &before);
        CHECK_FALSE(from_bytes<std::string>(crafted));
        std::vector<std::int64_t> longs = {1, 2, 3};
        std::string crafted_vector = to_bytes(longs);
        for (int i = 0; i < 8; ++i) crafted_vector[static_cast<std::size_t>(1 + i)] = static_cast<char>((two_gib >> (8 * i)) & 0xFF);
        CHECK_FALSE(from_bytes<std::vector<std::int64_t>>(crafted_vector));
        rusage after{};
        getrusage(RUSAGE_SELF, &after);
        CHECK(after.ru_maxrss - before.ru_maxrss < 256 * 1024);  // KiB: nothing near 2 GiB was touched
        // The bytes of one measurement type read as another: nothing, and no allocation of the claim.
        ActivationRun run;
        run.error = "x";
        CHECK_FALSE(from_bytes<Conv2dRun>(to_bytes(run)));
    }

    TEST_CASE("a cache backed by a store finds what an earlier run kept - and says from where") {
        const fs::path dir = fresh_folder("backed");
        ResultStore store(dir, identity("lab-1"));
        using Cache = ResultCache<const std::string>;
        auto connect = [&](Cache& cache) {
            Cache::Backing b;
            b.save = [&](const std::string& key, const std::shared_ptr<const std::string>& v, std::int64_t when) {
                store.save("text", 1, key, *v, when);
            };
            b.load = [&](const std::string& key) -> std::optional<std::pair<Cache::Hit, std::size_t>> {
                const auto s = store.load("text", 1, key);
                if (!s) return std::nullopt;
                Cache::Hit hit{std::make_shared<const std::string>(s->payload), s->measured_unix_s,
                               {CacheOrigin::Kind::EarlierRun, s->machine_label}};
                return std::make_pair(hit, s->payload.size());
            };
            cache.set_backing(b);
        };
        {
            Cache first_run(1 << 20);
            connect(first_run);
            first_run.put("relu 2^20", std::make_shared<const std::string>("measured"), 8, 1'700'000'000);
        }
        Cache second_run(1 << 20);
        connect(second_run);
        const auto hit = second_run.find("relu 2^20");
        REQUIRE(hit);
        CHECK(*hit->result == "measured");
        CHECK(hit->origin.kind == CacheOrigin::Kind::EarlierRun);
        CHECK(second_run.size() == 1);  // kept in memory from then on
        CHECK(cached_result_line(hit->measured_unix_s, hit->origin).find("by an earlier run of gpulab: R measures again") !=
              std::string::npos);
        CHECK(cached_result_line(1, {CacheOrigin::Kind::OtherMachine, "EPYC, H100"}).rfind("measured on EPYC, H100 on ", 0) == 0);
        fs::remove_all(dir);
    }

    TEST_CASE("an imported folder cannot write outside the store: crafted views, links and a linked folder (issue 43)") {
        const fs::path box = fresh_folder("escape_box"), carried = fresh_folder("escape_carried"),
                       laptop = fresh_folder("escape_laptop"), outside = fresh_folder("escape_outside");
        fs::create_directories(outside);
        spit(outside / "bashrc", "the student's own file");
        ResultStore gpu(box, identity("gpu-box"));
        REQUIRE(gpu.save("latency", 1, "relu", "measured on the GPU box", 1'700'000'000).empty());
        REQUIRE(gpu.export_to(carried).error.empty());
        const std::string good_name = gpu.entry_path("latency", "relu", false).filename().string();
        const std::string good = slurp(carried / good_name);
        // The same entry with its view rewritten: every way a header could name a path, or carry an
        // escape sequence to the terminal. Only the header changes (the payload's checksum still holds).
        const std::vector<std::string> views = {"../../escape_outside/bashrc", (outside / "bashrc").string(),
                                                "a/b", "..", std::string("latency\x1b]0;owned\x07")};
        for (std::size_t i = 0; i < views.size(); ++i) {
            std::string crafted = good;
            crafted.replace(crafted.find("view: latency"), 13, "view: " + views[i]);
            spit(carried / ("crafted-" + std::to_string(i) + ".result"), crafted);
        }
        // A link to the good entry kept elsewhere, and a name that is not plain.
        fs::create_symlink(carried / good_name, outside / "link.result");
        fs::create_symlink(outside / "link.result", carried / "linked.result");
        spit(carried / "we ird.result", good);

        ResultStore mine(laptop, identity("laptop"));
        const TransferReport in = mine.import_from(carried);
        CHECK(in.error.empty());
        CHECK(in.copied == 1);  // the honest entry only
        CHECK(in.skipped.size() == views.size() + 2);
        std::string all;
        for (const std::string& line : in.skipped) all += line + "\n";
        INFO(all);
        CHECK(all.find("is not one gpulab writes") != std::string::npos);
        CHECK(all.find("linked.result: ") != std::string::npos);
        CHECK(all.find("is a symbolic link") != std::string::npos);
        CHECK(all.find("not a plain file name") != std::string::npos);
        CHECK(all.find('\x1b') == std::string::npos);  // nothing reaches a terminal raw
        CHECK(slurp(outside / "bashrc") == "the student's own file");
        CHECK_FALSE(fs::exists(box.parent_path() / "escape"));
        std::size_t stored = 0;
        for (const auto& e : fs::directory_iterator(laptop / "imported")) stored += e.is_regular_file() ? 1 : 0;
        CHECK(stored == 1);
        CHECK(mine.load("latency", 1, "relu"));

        // The store's imported folder replaced by a link to somewhere else: refused, nothing written there.
        fs::remove_all(laptop / "imported");
        fs::create_directory_symlink(outside, laptop / "imported");
        const TransferReport linked = mine.import_from(carried);
        CHECK(linked.copied == 0);
        CHECK(linked.error.find("the folder is a link") != std::string::npos);
        CHECK_FALSE(fs::exists(outside / good_name));
        for (const fs::path& d : {box, carried, laptop, outside}) fs::remove_all(d);
    }

    TEST_CASE("a link planted in the store is replaced, never written through or read (issue 43)") {
        const fs::path dir = fresh_folder("planted"), outside = fresh_folder("planted_outside");
        fs::create_directories(dir);
        fs::create_directories(outside);
        spit(outside / "victim", "not the store's");
        ResultStore store(dir, identity("lab-1"));
        const fs::path entry = store.entry_path("conv2d", "sobel", false);
        fs::create_symlink(outside / "victim", entry);
        CHECK_FALSE(store.load("conv2d", 1, "sobel"));  // a link is not read
        REQUIRE(store.save("conv2d", 1, "sobel", "the result", 1'700'000'000).empty());
        CHECK(slurp(outside / "victim") == "not the store's");
        CHECK(fs::symlink_status(entry).type() == fs::file_type::regular);
        CHECK(store.load("conv2d", 1, "sobel")->payload == "the result");
        CHECK_FALSE(store.save("../conv2d", 1, "sobel", "x", 1).empty());  // a view is a plain name
        for (const fs::path& d : {dir, outside}) fs::remove_all(d);
    }

    TEST_CASE("the budget keeps the newest: future-dated files go first, dead writers' temporaries are swept (issue 43)") {
        const fs::path dir = fresh_folder("future");
        ResultStore store(dir, identity("lab-1"), 3000);
        for (int i = 0; i < 3; ++i) {
            const std::string key = "future " + std::to_string(i);
            REQUIRE(store.save("simd-mimd", 1, key, std::string(900, 'f'), 1).empty());
            fs::last_write_time(store.entry_path("simd-mimd", key, false),
                                fs::file_time_type::clock::now() + std::chrono::hours(24 * 365));
        }
        const fs::path stale = dir / ".simd-mimd-0.result.4242.0.tmp";
        spit(stale, std::string(500, 't'));
        fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(1));
        REQUIRE(store.save("simd-mimd", 1, "written now", std::string(900, 'n'), 2).empty());
        CHECK(store.load("simd-mimd", 1, "written now"));  // the new entry stays
        int futures_left = 0;
        for (int i = 0; i < 3; ++i) futures_left += store.load("simd-mimd", 1, "future " + std::to_string(i)) ? 1 : 0;
        CHECK(futures_left < 3);  // the budget took from them, not from what was written now
        CHECK_FALSE(fs::exists(stale));
        std::uintmax_t total = 0;
        for (const auto& e : fs::directory_iterator(dir)) total += e.file_size();
        CHECK(total <= 3000);
        fs::remove_all(dir);
    }
}
