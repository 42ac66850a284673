// Reading another machine's export of each lesson (core/compare/compare_import.h): one file written by hand
// per lesson in the shape its view writes (activation summary, latency sweep, SIMD-vs-MIMD tables,
// convolution), then each bad case the app must answer with a one-line message naming the file:
// missing, not a gpulab export, another lesson's export, the samples file, no rows, a broken number.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "compare/compare_import.h"
#include "io/image_io.h"

namespace {

const char* kGoodSummary =
    "# gpulab 0.1.0  |  Elementwise activations  |  2026-03-04 10:20:30 UTC\n"
    "# CPU: Intel(R) Core(TM) i7-1165G7 @ 2.80GHz (8 threads), Ubuntu 24.04\n"
    "# GPU: NVIDIA GeForce RTX 3050 Laptop GPU (CC 8.6, 16 SMs, 4.0 GiB)\n"
    "# CUDA runtime 13.0, cuDNN 9.1\n"
    "# Op: ReLU on 2^20 elements [1024, 1024], 4.0 MiB in + 4.0 MiB out, input: generated feature map\n"
    "backend,available,ran,samples,median_ns,min_ns,max_ns,p25_ns,p75_ns,upload_median_ns,compute_median_ns,"
    "download_median_ns,gbps,gbps_with_transfers,limit_name,limit_gbps,fraction_of_limit,speedup_vs_cpu_scalar,"
    "verdict\n"
    "cpu-scalar,1,1,20,900000,850000,1200000,880000,950000,0,900000,0,9.3,9.3,memcpy,20,0.46,1,reference\n"
    "cuda-kernel,1,1,40,60000,55000,90000,58000,62000,0,60000,0,139.8,5.1,device copy,180,0.77,15,"
    "\"match (max abs 0, \"\"exact\"\")\"\n"
    "cudnn,0,0,0,0,0,0,0,0,0,0,0,0,0,,0,0,0,not run: not compiled\n";

std::string message_of(const std::string& text) {
    try {
        gpulab::core::parse_compare_summary(text, "laptop.csv");
    } catch (const gpulab::core::InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_SUITE("compare") {
    TEST_CASE("a hand written summary gives machine and date and op and medians") {
        const auto run = gpulab::core::parse_compare_summary(kGoodSummary, "laptop.csv");
        CHECK(run.lesson_title == "Elementwise activations");
        CHECK(run.version == "0.1.0");
        CHECK(run.date == "2026-03-04 10:20:30 UTC");
        CHECK(run.cpu == "Intel(R) Core(TM) i7-1165G7 @ 2.80GHz");
        CHECK(run.gpu == "NVIDIA GeForce RTX 3050 Laptop GPU");
        CHECK(run.machine_label == "Intel(R) Core(TM) i7-1165G7 @ 2.80GHz, NVIDIA GeForce RTX 3050 Laptop GPU");
        CHECK(run.op == "ReLU");
        CHECK(run.elements == "2^20");
        REQUIRE(run.backends.size() == 3);
        const auto* k = run.find("cuda-kernel");
        REQUIRE(k != nullptr);
        CHECK(k->ran);
        CHECK(k->samples == 40);
        CHECK(k->median_ns == 60000);
        CHECK(k->min_ns == 55000);
        CHECK(k->max_ns == 90000);
        CHECK(k->gbps == doctest::Approx(139.8));
        CHECK_FALSE(run.find("cudnn")->ran);
        CHECK(run.find("cpu-onednn") == nullptr);
    }

    TEST_CASE("a summary saved again by a spreadsheet (byte-order mark, CRLF) still loads (issue 31)") {
        std::string text = "\xEF\xBB\xBF";
        for (char c : std::string(kGoodSummary)) text += c == '\n' ? std::string("\r\n") : std::string(1, c);
        const auto run = gpulab::core::parse_compare_summary(text, "laptop.csv");
        CHECK(run.version == "0.1.0");
        CHECK(run.machine_label == "Intel(R) Core(TM) i7-1165G7 @ 2.80GHz, NVIDIA GeForce RTX 3050 Laptop GPU");
        REQUIRE(run.find("cuda-kernel") != nullptr);
        CHECK(run.find("cuda-kernel")->median_ns == 60000);
    }

    TEST_CASE("a rate that is nan, inf or absurd is refused with its line, not shown (issue 31, item 3)") {
        for (const char* bad : {"nan", "inf", "1e300", "0x10"}) {
            std::string text(kGoodSummary);
            const std::size_t at = text.find("139.8");
            REQUIRE(at != std::string::npos);
            text.replace(at, 5, bad);
            const std::string said = "gbps is \"" + std::string(bad) + "\", not a number gpulab writes";
            CHECK_THROWS_WITH_AS(gpulab::core::parse_compare_summary(text, "laptop.csv"), doctest::Contains(said.c_str()),
                                 gpulab::core::InputError);
        }
    }

    TEST_CASE("a 200 KB number field is refused in one short sentence, read without recursion (issue 43)") {
        std::string text(kGoodSummary);
        text.replace(text.find("139.8"), 5, std::string(200000, '7'));
        CHECK_THROWS_WITH_AS(gpulab::core::parse_compare_summary(text, "laptop.csv"),
                             doctest::Contains("gbps is \"7777777777777777777777777777777777777777... (200000 characters)\""),
                             gpulab::core::InputError);
        CHECK(message_of(text).size() < 400);
    }

    TEST_CASE("a file of 100,000 rows is refused at its row cap, not read for minutes (issue 43)") {
        std::string text(kGoodSummary);
        const std::string row = "cpu-onednn,1,1,20,900000,850000,1200000,880000,950000,0,900000,0,9.3,9.3,memcpy,20,0.46,1,x\n";
        text.reserve(text.size() + 100000 * row.size());
        for (int i = 0; i < 100000; ++i) text += row;
        CHECK_THROWS_WITH_AS(gpulab::core::parse_compare_summary(text, "huge.csv"),
                             doctest::Contains("more than 5,000 rows"), gpulab::core::InputError);
    }

    TEST_CASE("a machine without a GPU is labelled no GPU") {
        std::string text = kGoodSummary;
        const auto at = text.find("# GPU:");
        text.replace(at, text.find('\n', at) - at, "# no GPU: CUDA driver missing");
        const auto run = gpulab::core::parse_compare_summary(text, "lab.csv");
        CHECK(run.gpu == "no GPU");
        CHECK(run.machine_label == "Intel(R) Core(TM) i7-1165G7 @ 2.80GHz, no GPU");
        CHECK(gpulab::core::machine_label("AMD EPYC", "") == "AMD EPYC, no GPU");
    }

    TEST_CASE("a missing file names the file") {
        try {
            gpulab::core::load_compare_summary("/nonexistent/gpulab/summary.csv");
            FAIL("no error for a missing file");
        } catch (const gpulab::core::InputError& e) {
            CHECK(std::string(e.what()).find("/nonexistent/gpulab/summary.csv: cannot open") == 0);
        }
    }

    TEST_CASE("a file written to disk loads like the text") {
        const auto path = std::filesystem::temp_directory_path() / "gpulab-test-compare-summary.csv";
        {
            std::ofstream out(path, std::ios::binary);
            out << kGoodSummary;
        }
        const auto run = gpulab::core::load_compare_summary(path.string());
        CHECK(run.path == path.string());
        CHECK(run.backends.size() == 3);
        std::filesystem::remove(path);
    }

    TEST_CASE("a first line with no version is refused - not an out_of_range (found by fuzz_compare)") {
        const std::string text = std::string("# gpulab  |  Elementwise activations  |  2026-03-04\n") +
                                 (kGoodSummary + std::string(kGoodSummary).find('\n') + 1);
        CHECK_NOTHROW(gpulab::core::parse_compare_file(text, "laptop.csv"));
        CHECK(message_of("# gpulab  |  x  |  y\n").find("laptop.csv: ") == 0);
    }

    TEST_CASE("a file that is not a gpulab export is refused") {
        CHECK(message_of("").find("laptop.csv: not a gpulab export CSV") == 0);
        CHECK(message_of("a,b,c\n1,2,3\n").find("laptop.csv: not a gpulab export CSV") == 0);
        CHECK(message_of("# gpulab 0.1.0 only\n").find("laptop.csv: not a gpulab export CSV") == 0);
        const std::string unknown = "# gpulab 0.1.0  |  Something  |  2026-03-04 10:20:30 UTC\n# CPU: X (2 threads)\n"
                                    "a,b\n1,2\n";
        CHECK(message_of(unknown).find("laptop.csv: not a gpulab lesson export this version can read") == 0);
    }

    TEST_CASE("another lesson's export names that lesson") {
        const std::string conv = "# gpulab 0.1.0  |  Convolution as a sliding window  |  2026-03-04 10:20:30 UTC\n"
                                 "# CPU: X (2 threads)\n"
                                 "backend,median_ns,min_ns,max_ns,samples,gflops,implementation,verdict\n"
                                 "cpu-scalar,5,4,6,10,1.5,loops,match\n";
        CHECK(message_of(conv) == "laptop.csv is an export of lesson 'Convolution as a sliding window'; open that "
                                  "lesson to compare with it");
        const auto file = gpulab::core::parse_compare_file(kGoodSummary, "laptop.csv");
        CHECK(file.workload == "activation");
        try {
            gpulab::core::require_workload(file, "latency");
            FAIL("an activation summary was accepted by the latency lesson");
        } catch (const gpulab::core::InputError& e) {
            CHECK(std::string(e.what()) ==
                  "laptop.csv is an export of lesson 'Elementwise activations'; open that lesson to compare with it");
        }
    }

    TEST_CASE("the activation samples file is the wrong file") {
        std::string samples = kGoodSummary;
        samples.replace(samples.find("backend,available"), 7, "backend,sample,total_ns");
        CHECK(message_of(samples).find("laptop.csv: wrong lesson or file: the per-sample table") == 0);
    }

    TEST_CASE("a table header without rows is refused") {
        const std::string empty = "# gpulab 0.1.0  |  SIMD vs MIMD  |  2026-03-04 10:20:30 UTC\n# CPU: X (2 threads)\n"
                                  "kind,name,value,detail\n";
        CHECK(message_of(empty) == "laptop.csv: no rows under the column header: nothing to compare with");
        const std::string captions_only = "# gpulab 0.1.0  |  SIMD vs MIMD  |  2026-03-04 10:20:30 UTC\n# CPU: X\n";
        CHECK(message_of(captions_only) == "laptop.csv: no table under the caption lines: nothing to compare with");
    }

    TEST_CASE("an old latency sweep without a GPU line asks for a new export") {
        const std::string old = "# gpulab 0.1.0 latency sweep, relu, 2026-03-04 10:20:30 UTC\n# cpu: X (2 threads)\n"
                                "elements,backend,ran,samples,median_ns\n16,cpu-scalar,1,10,30\n";
        CHECK(message_of(old).find("laptop.csv: a latency sweep CSV from an older gpulab") == 0);
    }

    TEST_CASE("a hand written latency sweep gives one series per backend") {
        const char* text =
            "# gpulab 0.1.0  |  Latency vs throughput  |  2026-03-04 10:20:30 UTC\n"
            "# CPU: Intel(R) Core(TM) i7-1165G7 @ 2.80GHz (8 threads), Ubuntu 24.04\n"
            "# GPU: NVIDIA GeForce RTX 3050 Laptop GPU (CC 8.6, 16 SMs, 4.0 GiB)\n"
            "# Op: GELU over 2^4 .. 2^5 float32 elements; each point the median of >= 10 timed calls\n"
            "elements,backend,ran,samples,median_ns,p25_ns,p75_ns,min_ns,max_ns,upload_median_ns,compute_median_ns,"
            "download_median_ns,matches_reference,note\n"
            "16,cpu-scalar,1,10,30,30,30,20,100,0,30,0,1,\"\"\n"
            "16,cuda-kernel,1,10,9000,8000,9500,7000,12000,3000,2000,4000,1,\"\"\n"
            "16,cudnn,0,0,0,0,0,0,0,0,0,0,0,\"not compiled\"\n"
            "32,cpu-scalar,1,10,55,50,60,40,90,0,55,0,1,\"\"\n"
            "32,cuda-kernel,1,10,9100,8000,9500,7000,12000,3000,2100,4000,1,\"\"\n";
        const auto file = gpulab::core::parse_compare_file(text, "sweep.csv");
        CHECK(file.workload == "latency");
        CHECK(file.lesson_title == "Latency vs throughput");
        CHECK(file.machine_label == "Intel(R) Core(TM) i7-1165G7 @ 2.80GHz, NVIDIA GeForce RTX 3050 Laptop GPU");
        const auto sweep = gpulab::core::sweep_comparison(file);
        CHECK(sweep.op == "GELU");
        CHECK(sweep.date == "2026-03-04 10:20:30 UTC");
        REQUIRE(sweep.series.size() == 2);
        const auto* k = sweep.find("cuda-kernel");
        REQUIRE(k != nullptr);
        CHECK(k->elements == std::vector<int64_t>{16, 32});
        CHECK(k->median_ns == std::vector<int64_t>{9000, 9100});
        CHECK(sweep.find("cudnn") == nullptr);
    }

    TEST_CASE("a hand written SIMD and MIMD export gives the table rows") {
        const char* text =
            "# gpulab 0.1.0  |  SIMD vs MIMD  |  2026-03-04 10:20:30 UTC\n"
            "# CPU: Apple M2 (8 threads)\n"
            "# no GPU: CUDA driver missing\n"
            "kind,name,value,detail\n"
            "simd,isa,NEON,4 floats per instruction\n"
            "simd,activation,sigmoid,\n"
            "simd,elements,262144,\n"
            "simd,scalar_median_ns,900000,10 samples\n"
            "simd,simd_median_ns,250000,10 samples\n"
            "simd,speedup,3.600,scalar median / simd median\n"
            "mimd,threads,4,\n"
            "mimd,wall_ns,30000000,all threads at once\n"
            "mimd,sequential_ns,100000000,the same tasks one after another\n"
            "\n"
            "kind,thread,cpu,task,start_ns,end_ns\n"
            "span,0,0,\"sigmoid, 64 Ki floats\",0,100\n"
            "\n"
            "kind,pattern,theoretical_factor,measured_factor,kernel_median_ns,note\n"
            "pattern,uniform,1.000,not measured,,\"not measured: no GPU\"\n"
            "pattern,4-way,4.000,3.800,4000,measured\n";
        const auto file = gpulab::core::parse_compare_file(text, "simd.csv");
        CHECK(file.workload == "simd-mimd");
        CHECK(file.tables.size() == 3);
        CHECK(file.machine_label == "Apple M2, no GPU");
        const auto simd = gpulab::core::simd_comparison(file);
        CHECK(simd.simd_ok);
        CHECK(simd.isa == "NEON");
        CHECK(simd.lanes == 4);
        CHECK(simd.activation == "sigmoid");
        CHECK(simd.elements == 262144);
        CHECK(simd.scalar_ns == 900000);
        CHECK(simd.simd_ns == 250000);
        CHECK(simd.speedup == doctest::Approx(3.6));
        CHECK(simd.mimd_ok);
        CHECK(simd.threads == 4);
        CHECK(simd.wall_ns == 30000000);
        CHECK(simd.sequential_ns == 100000000);
        REQUIRE(simd.patterns.size() == 2);
        CHECK_FALSE(simd.find("uniform")->measured);
        CHECK(simd.find("4-way")->measured);
        CHECK(simd.find("4-way")->measured_factor == doctest::Approx(3.8));
        CHECK(simd.find("4-way")->theoretical == doctest::Approx(4.0));
    }

    TEST_CASE("a hand written training export gives each engine's race totals") {
        const char* text =
            "# gpulab 0.1.0  |  Train a small CNN on real images  |  2026-03-04 10:20 UTC\n"
            "# CPU: AMD Ryzen 7 7840U (16 threads), Fedora 40\n"
            "# GPU: NVIDIA GeForce RTX 4060 Laptop GPU (CC 8.9, 24 SMs)\n"
            "section,engine,batch,epoch_or_layer,seconds,images,loss,train_accuracy,test_accuracy,images_per_s,"
            "forward_ns_per_image,backward_ns_per_image,ns_per_image,note\n"
            "train,cpu-parallel,64,1,2.5,12000,0.6,0.77,0.78,4800.0,,,,\"\"\n"
            "race,cpu-parallel,64,1,5.0,10000,0.9,0.7,0.72,2000.0,,,,\"\"\n"
            "race,cpu-parallel,64,2,10.0,21000,0.6,0.8,0.81,2100.0,,,,\"time budget of 10 s reached\"\n"
            "race,cudnn,64,1,0.2,60000,0.5,0.82,0.84,300000.0,,,,\"\"\n"
            "race,cuda-kernel,64,,,,,,,,,,,\"no NVIDIA GPU driver\"\n"
            "layers,cpu-parallel,64,conv1,,21000,,,,,100.0,200.0,,\n";
        const auto file = gpulab::core::parse_compare_file(text, "train.csv");
        CHECK(file.workload == "train");
        const auto train = gpulab::core::train_comparison(file);
        CHECK(train.machine_label.find("RTX 4060") != std::string::npos);
        REQUIRE(train.race.size() == 3);
        const auto* cpu = train.find("cpu-parallel");
        REQUIRE(cpu != nullptr);
        CHECK(cpu->ran);
        CHECK(cpu->images == 21000);  // the last epoch's totals
        CHECK(cpu->images_per_second == doctest::Approx(2100.0));
        CHECK(cpu->test_accuracy == doctest::Approx(0.81));
        CHECK(cpu->note == "time budget of 10 s reached");
        CHECK(train.find("cudnn")->images_per_second == doctest::Approx(300000.0));
        CHECK_FALSE(train.find("cuda-kernel")->ran);
        CHECK(train.find("cuda-kernel")->note == "no NVIDIA GPU driver");
        CHECK(train.find("cpu-onednn") == nullptr);
    }

    TEST_CASE("a hand written convolution export gives the shape and each backend") {
        const char* text =
            "# gpulab 0.1.0  |  Convolution as a sliding window  |  2026-03-04 10:20:30 UTC\n"
            "# CPU: AMD Ryzen 7 7840U (16 threads), Fedora 40\n"
            "# GPU: NVIDIA GeForce RTX 4060 Laptop GPU (CC 8.9, 24 SMs)\n"
            "# Convolution (cross-correlation, no kernel flip): filter sobel-x on the built-in test image\n"
            "# N=1 C=1 H=512 W=512 K=1 R=S=3 pad=zero stride=1 -> P=512 Q=512, 4.72 MFLOP per run\n"
            "backend,median_ns,min_ns,max_ns,samples,gflops,implementation,verdict\n"
            "cpu-scalar,1590000,1550000,5620000,10,2.960,\"direct loops, one core\",match\n"
            "cudnn,40000,39000,45000,20,118.000,IMPLICIT_GEMM,\"match (max abs 1e-06)\"\n"
            "cuda-naive,,,,0,,,\"not run: no device\"\n";
        const auto file = gpulab::core::parse_compare_file(text, "conv.csv");
        CHECK(file.workload == "conv2d");
        const auto conv = gpulab::core::conv_comparison(file);
        CHECK(conv.gpu == "NVIDIA GeForce RTX 4060 Laptop GPU");
        CHECK(conv.shape == "N=1 C=1 H=512 W=512 K=1 R=S=3 pad=zero stride=1 -> P=512 Q=512");
        REQUIRE(conv.backends.size() == 3);
        const auto* d = conv.find("cudnn");
        REQUIRE(d != nullptr);
        CHECK(d->ran);
        CHECK(d->median_ns == 40000);
        CHECK(d->samples == 20);
        CHECK(d->gflops == doctest::Approx(118.0));
        CHECK(d->note == "IMPLICIT_GEMM");
        CHECK(conv.find("cpu-scalar")->note == "direct loops, one core");
        CHECK_FALSE(conv.find("cuda-naive")->ran);
        CHECK(conv.find("cuda-naive")->note == "not run: no device");
    }

    TEST_CASE("a summary with no backend rows is refused") {
        std::string text = kGoodSummary;
        text.erase(text.find("cpu-scalar,1,1"));
        CHECK(message_of(text) == "laptop.csv: no rows under the column header: nothing to compare with");
    }

    TEST_CASE("a broken number names its line and column") {
        std::string text = kGoodSummary;
        text.replace(text.find(",900000,850000"), 7, ",fast");
        CHECK(message_of(text) == "laptop.csv: line 7: median_ns is \"fast\", not a whole number >= 0");
    }
}
