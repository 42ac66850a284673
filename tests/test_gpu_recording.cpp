// A recorded GPU run shipped with gpulab (core/recording/gpu_recording.h, issue 39): the provenance
// file read strictly, the fixture recording's CSVs indexed by lesson, the labels that say what a
// recording is, only GPU backends brought beside this computer's rows, and the export's source
// column: rows not measured here are never read back as this machine's.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "compare/compare_import.h"
#include "io/image_io.h"
#include "recording/gpu_recording.h"

using namespace gpulab::core;

namespace {
const std::string kFixture = std::string(GPULAB_SOURCE_DIR) + "/tests/data/recording-fixture";
}

TEST_CASE("recording: the provenance file names the GPU and the date or is refused") {
    const RecordingProvenance p =
        parse_provenance("# made by make gpu-record\ngpu: NVIDIA H200\ndate: 2026-11-28 20:41:07 UTC\n"
                         "driver: 580.1\nsome_newer_key: kept out\n",
                         "provenance.txt");
    CHECK(p.gpu == "NVIDIA H200");
    CHECK(p.driver == "580.1");
    CHECK(p.not_a_gpu.empty());
    CHECK_THROWS_WITH_AS(parse_provenance("date: 2026-11-28\n", "p.txt"),
                         doctest::Contains("no \"gpu:\" line"), InputError);
    CHECK_THROWS_WITH_AS(parse_provenance("gpu: NVIDIA H200\n", "p.txt"), doctest::Contains("no \"date:\" line"),
                         InputError);
    CHECK_THROWS_WITH_AS(parse_provenance("gpu NVIDIA H200\n", "p.txt"), doctest::Contains("line 1 is not"),
                         InputError);
    CHECK_THROWS_WITH_AS(parse_provenance("gpu: NVIDIA\x1b[2J H200\ndate: x\n", "p.txt"),
                         doctest::Contains("control characters"), InputError);
}

TEST_CASE("recording: the fixture loads by lesson and says it is not a GPU's") {
    const GpuRecording rec = load_recording(kFixture);
    CHECK(rec.skipped.empty());
    CHECK(rec.of_workload("activation").size() == 1);
    CHECK(rec.of_workload("conv2d").size() == 1);
    CHECK(rec.of_workload("latency").size() == 1);
    CHECK(rec.source() == "test fixture, not a GPU: recorded on NVIDIA H200, 2026-11-28");
    ImportedRun run = activation_comparison(*rec.of_workload("activation").front());
    mark_as_recorded(run, rec);
    CHECK(run.recorded_source == rec.source());
    CHECK(run.elements == "2^20");
    REQUIRE(run.find("cuda-kernel"));
    CHECK(run.find("cuda-kernel")->median_ns == 700000);
}

TEST_CASE("recording: only GPU backends are brought beside this computer's rows") {
    CHECK(recorded_gpu_backend("cuda-kernel"));
    CHECK(recorded_gpu_backend("cudnn"));
    CHECK(recorded_gpu_backend("cublas"));
    CHECK_FALSE(recorded_gpu_backend("cpu-parallel"));
    CHECK_FALSE(recorded_gpu_backend("cpu-onednn"));
    CHECK_FALSE(recorded_gpu_backend("cuda-sim"));  // simulated time is never a GPU speed
    CHECK_FALSE(recorded_gpu_backend(""));
}

TEST_CASE("recording: a folder without provenance, a link or a broken CSV is refused or passed over") {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gpulab-test-recording";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    CHECK_THROWS_AS(load_recording(dir), InputError);  // no provenance.txt
    std::ofstream(dir / "provenance.txt") << "gpu: NVIDIA H200\ndate: 2026-11-28 10:00:00 UTC\n";
    std::ofstream(dir / "broken.csv") << "not an export\n";
    std::filesystem::copy_file(kFixture + "/elementwise-activations-step-01.csv", dir / "a.csv");
    std::filesystem::create_symlink("/etc/passwd", dir / "linked.csv");
    const GpuRecording rec = load_recording(dir);
    CHECK(rec.files.size() == 1);
    REQUIRE(rec.skipped.size() == 2);  // broken.csv and the link, each with its reason
    CHECK(rec.source() == "recorded on NVIDIA H200, 2026-11-28");
    std::filesystem::remove_all(dir);
}

TEST_CASE("recording: rows an export marks as recorded are not read back as that machine's") {
    const std::string text =
        "# gpulab 0.1.0  |  Elementwise activations  |  2026-11-28 12:00 UTC\n"
        "# CPU: Intel(R) Xeon(R) Processor (2 threads)\n"
        "# no GPU: no NVIDIA GPU driver on this computer\n"
        "# Op: ReLU on 2^20 elements (1024, 1024)\n"
        "backend,available,ran,samples,median_ns,min_ns,max_ns,gbps,verdict,source\n"
        "cpu-scalar,1,1,10,1000,900,1100,8,match,measured here\n"
        "cuda-kernel,0,0,0,0,0,0,0,not run: no GPU,measured here\n"
        "cuda-kernel,1,1,20,700,690,720,840,,\"recorded on NVIDIA H200, 2026-11-28\"\n";
    const ImportedRun run = parse_compare_summary(text, "step.csv");
    REQUIRE(run.find("cuda-kernel"));
    CHECK_FALSE(run.find("cuda-kernel")->ran);  // this machine's row, not the recording's
    CHECK(run.backends.size() == 2);
}

TEST_CASE("recording: the tensor-core lesson's speed rows read back by backend, format and size") {
    const GpuRecording rec = load_recording(kFixture);
    REQUIRE(rec.of_workload("tensor").size() == 1);
    const ImportedTensorSpeed t = tensor_speed_comparison(*rec.of_workload("tensor").front());
    REQUIRE(t.find("gpu-cublas", "TF32", 512));
    CHECK(t.find("gpu-cublas", "TF32", 512)->gflops == doctest::Approx(60000.0));
    CHECK(t.find("cuda-kernel", "BF16", 512)->ran);
    CHECK_FALSE(t.find("gpu-cublas", "TF32", 1024));  // another size is not this row
    CHECK_FALSE(t.find("gpu-cublas", "FP8", 512));
}
