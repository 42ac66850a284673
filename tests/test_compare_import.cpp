// Reading another machine's activation summary (core/compare_import.h): a file written by hand in
// the shape app/export.cpp writes, then each bad case the app must answer with a one-line message
// naming the file: missing, not a gpulab summary, another lesson or file, no rows, a broken number.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "compare_import.h"
#include "image_io.h"

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

    TEST_CASE("a file that is not a gpulab summary is refused") {
        CHECK(message_of("").find("laptop.csv: not a gpulab summary CSV") == 0);
        CHECK(message_of("a,b,c\n1,2,3\n").find("laptop.csv: not a gpulab summary CSV") == 0);
        CHECK(message_of("# gpulab 0.1.0 only\n").find("laptop.csv: not a gpulab summary CSV") == 0);
    }

    TEST_CASE("another lesson or the samples file is the wrong lesson") {
        const std::string conv = "# gpulab 0.1.0  |  Convolution as a sliding window  |  2026-03-04 10:20:30 UTC\n"
                                 "# CPU: X (2 threads)\n"
                                 "backend,layer,median_ns\ncpu-scalar,1,5\n";
        const std::string m = message_of(conv);
        CHECK(m.find("laptop.csv: wrong lesson or file") == 0);
        CHECK(m.find("Convolution as a sliding window") != std::string::npos);
        std::string samples = kGoodSummary;
        samples.replace(samples.find("backend,available"), 7, "backend,sample,total_ns");
        CHECK(message_of(samples).find("laptop.csv: wrong lesson or file") == 0);
    }

    TEST_CASE("a summary with no backend rows is refused") {
        std::string text = kGoodSummary;
        text.erase(text.find("cpu-scalar,1,1"));
        CHECK(message_of(text) == "laptop.csv: no backend rows under the column header: nothing to compare with");
    }

    TEST_CASE("a broken number names its line and column") {
        std::string text = kGoodSummary;
        text.replace(text.find(",900000,850000"), 7, ",fast");
        CHECK(message_of(text) == "laptop.csv: line 7: median_ns is \"fast\", not a whole number >= 0");
    }
}
