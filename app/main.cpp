// gpulab's entry point: parses the command line (CLI11) and hands over to the GUI, headless
// export or one of the terminal subcommands. Every bad argument ends here with one line on
// stderr and exit code 2.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "app_entry.h"
#include "io/number_text.h"
#include "cli/cli.h"
#include "cli/strict_number.h"
#include "backends/simd/simd_math.h"
#include "io/image_io.h"  // core::InputError
#include "train/compute_precision.h"
#include "train/loss_scaling.h"
#include "train/learning_knobs.h"

using namespace gpulab::app;

namespace {

// oneDNN runs on libgomp, whose threads spin-wait between parallel regions by default: each
// spinning thread steals a core from our own pool and from the next measurement (seen as ~8 ms
// per call on a 2-core box). libgomp reads OMP_WAIT_POLICY once, when it is loaded, before
// main() runs, so the only way to set it for ourselves is to set it and exec again.
void ensure_passive_openmp(char** argv) {
    if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);  // returns only on failure: then carry on with spinning threads
}

// "WxH", digits only and nothing after: sscanf's %d wrapped 4294968896 to 1600 and took
// "1600x900junk" (issue 16); from_chars reports overflow and where it stopped.
bool parse_size(const std::string& text, int& w, int& h) {
    const char* end = text.data() + text.size();
    int pw = 0, ph = 0;
    auto [x, ew] = std::from_chars(text.data(), end, pw);
    if (ew != std::errc() || x == text.data() || x == end || *x != 'x') return false;
    auto [y, eh] = std::from_chars(x + 1, end, ph);
    if (eh != std::errc() || y == x + 1 || y != end) return false;
    if (pw < 320 || ph < 240 || pw > 8192 || ph > 8192) return false;
    w = pw;
    h = ph;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    ensure_passive_openmp(argv);
    // Past a file-size limit (ulimit -f) a write then fails with EFBIG and is said like a full
    // disk, instead of the default SIGXFSZ ending gpulab half-way through its files.
    std::signal(SIGXFSZ, SIG_IGN);
    CLI::App cli{"gpulab: why deep learning runs on GPUs, measured live on this machine's CPU and GPU.\n"
                 "Without a subcommand it opens the lesson window."};
    cli.set_version_flag("--version", std::string("gpulab ") + GPULAB_VERSION);
    cli.require_subcommand(0, 1);

    GuiOptions gui;
    std::vector<std::string> lesson_dirs;
    cli.add_option("--lesson", gui.lesson_id, "Lesson to open first (see `gpulab lessons`)");
    cli.add_option("--lesson-dir", lesson_dirs, "Extra folder of lesson .toml files (repeatable)");
    cli.add_flag("--fullscreen", gui.fullscreen, "Start fullscreen (F11 toggles)");
    cli.add_option("--frames", gui.max_frames, "Render this many frames, then exit (smoke tests)")
        ->check(strict_integer())
        ->check(CLI::Range(1, 1000000));
    cli.add_option("--screenshot", gui.screenshot_path, "With --frames: save the last frame as this PNG");
    cli.add_flag("--present", gui.present,
                 "Start in presenter mode: fullscreen, large high-contrast text, only canvas, step text and "
                 "plots (F5 toggles, ? shows the keys)");
    cli.add_option("--monitor", gui.monitor, "Monitor for presenter mode and --fullscreen, 1 = primary")
        ->check(strict_integer())
        ->check(CLI::Range(1, 64));
    cli.add_option("--compare", gui.compare_path,
                   "Another machine's export of the lesson's CSV (<id>-summary.csv, -sweep.csv, -simd.csv or "
                   "-conv.csv) to show beside this machine's numbers");
    cli.add_option("--presenter-view", gui.presenter_view,
                   "While presenting, the instructor's view (notes, next step, timer) in a second window: auto (when "
                   "a second monitor is connected), on, off (default auto)")
        ->check(CLI::IsMember({"auto", "on", "off"}));
    cli.add_option("--present-scale", gui.present_scale, "Presenter text size: 1, 1.5, 2 or 3 (default 1.5)")
        ->check(strict_decimal())
        ->check(CLI::IsMember({1.0f, 1.5f, 2.0f, 3.0f}));
    // For tests only, so it stays out of --help: keys injected into the real key queue.
    cli.add_option("--script-keys", gui.script_keys,
                   "Test option: press these keys, e.g. Right,Right,B,B,Escape (the soak also uses Live, Wait and "
                   "Compare=PATH)")
        ->group("");

    auto* lessons = cli.add_subcommand("lessons", "List the lessons, or validate lesson files with --check");
    std::vector<std::string> check_files;
    lessons->add_option("--check", check_files,
                        "Validate these lesson files, or kernel puzzles (a puzzle's folder or its puzzle.toml: parsed, "
                        "then its solution, skeleton and wrong solutions run); print file:line for each problem");
    // `gpulab lessons --lesson-dir DIR` is how an instructor writes it: the subcommand passes the
    // main options it does not know (--lesson-dir) up to the main command instead of refusing them.
    lessons->fallthrough();

    auto* prerun = cli.add_subcommand(
        "prerun", "Before class: measure every step of the lessons headless and keep the results, so the window "
                  "shows each step at once (also --out to copy them, --import to load another computer's)");
    PrerunOptions prerun_options;
    prerun->add_option("--lesson", prerun_options.lesson_ids, "Only this lesson (repeatable; default: every lesson "
                                                              "whose steps measure)");
    prerun->add_flag("--fresh", prerun_options.fresh, "Measure every step again, even settings already kept");
    prerun->add_option("--out", prerun_options.out_dir,
                       "Also copy this computer's kept results to this folder, for another computer's --import");
    prerun->add_option("--import", prerun_options.import_dir,
                       "Only load the results another computer's `prerun --out` wrote to this folder; the window "
                       "shows them as measured on that computer");
    prerun->fallthrough();

    auto* info = cli.add_subcommand("info", "Show CPU, GPU, driver, CUDA, cuDNN, interop and every backend's status");

    auto* exp = cli.add_subcommand("export", "Run a lesson's measurement headless and write PNG plots and CSV");
    ExportOptions export_options;
    std::string size_text;
    exp->add_option("--lesson", export_options.lesson_id, "Lesson id")->capture_default_str();
    exp->add_option("--out", export_options.out_dir, "Output folder (created if missing)")->required();
    exp->add_option("--size", size_text, "Whole-window picture size, WxH (default 1600x900)");
    exp->add_flag("--quick", export_options.quick, "Fewer samples (for tests)");
    exp->add_flag("--all-steps", export_options.all_steps,
                  "One PNG and one CSV per lesson step (<id>-step-01.png, <id>-step-01.csv, ...) with its params "
                  "and action applied, plus <id>.json with the configuration and hardware");
    exp->add_option("--compare", export_options.compare_path,
                    "Another machine's export of the same lesson's CSV (<id>-summary.csv, -sweep.csv, -simd.csv "
                    "or -conv.csv): its numbers beside this machine's in the lesson's PNG");
    exp->fallthrough();  // `export --lesson-dir DIR`, as for `lessons`
    exp->add_flag("--check-layout", export_options.check_layout,
                  "With --all-steps: name every panel whose content is wider than the panel (cut text) or taller "
                  "(it scrolls), and every table cell whose text is wider than the cell, per step; exit 1 when any "
                  "is wider");
    exp->add_option("--theme", export_options.theme, "Look of the pictures: normal or presenter")
        ->check(CLI::IsMember({"normal", "presenter"}))
        ->capture_default_str();
    exp->add_option("--palette", export_options.palette,
                    "Colours of the pictures: normal or colour-blind (the View menu's colour-blind-safe palette: "
                    "Okabe-Ito backend colours, sky-blue / vermillion / yellow status colours, a one-hue confusion matrix)")
        ->check(CLI::IsMember({"normal", "colour-blind"}))
        ->capture_default_str();
    exp->add_option("--present-scale", export_options.present_scale,
                    "With --theme presenter: its text size, 1, 1.5, 2 or 3 (default: 1 up to 999 px high, 1.5 up to "
                    "1,399, 2 above)")
        ->check(strict_decimal())
        ->check(CLI::IsMember({1.0f, 1.5f, 2.0f, 3.0f}));

    auto* bench = cli.add_subcommand("bench", "Benchmark every op on every available backend (about 2 minutes)");
    BenchOptions bench_options;
    bench->add_flag("--json", bench_options.json, "Print one JSON array of records instead of tables");
    bench->add_flag("--quick", bench_options.quick, "One small size and few samples");
    bench->add_option("--op", bench_options.ops, "Only these ops: relu, leaky-relu, sigmoid, tanh, gelu");
    bench->add_option("--backend", bench_options.backends, "Only these backends, e.g. cpu-parallel");
    bench->add_option("--suite", bench_options.suite, "activation, latency (size sweep, GPU fixed costs), simd (SIMD, MIMD, divergence), conv (convolution), train (training steps), "
                      "tensor (CPU matrix products, FP32 vs BF16: our AMX and VDPBF16PS kernels and oneDNN, the native or emulated path named), "
                      "all, sim (the kernel simulator's own speed; not in all) puzzles (a kernel puzzle checked: compile and run times, simulated threads per CPU-second; not in all) "
                      "or stop (how soon a run stops when its step is left; not in all)")
        ->capture_default_str();
    bench->add_option("--size", bench_options.sizes, "Element counts (default 1048576 67108864)")
        ->check(strict_integer())
        ->check(CLI::Range(1LL, 1LL << 34));
    // The recording call (scripts/gpu-record.sh) times the GPU's matrix products at 4096^3, where a
    // GPU is far past its launch cost; the default sizes keep a CPU-only run short.
    bench->add_option("--gemm-size", bench_options.gemm_sizes,
                      "Matrix sizes n of the tensor suite's n x n x n products (default 256 512 1024, and 2048 for FP32 "
                      "only; --quick 128), "
                      "e.g. 4096 on a GPU")
        ->check(strict_integer())
        ->check(CLI::Range(16LL, 8192LL));
    bench->add_flag("--gemm-large", bench_options.gemm_large,
                    "The tensor suite also times the FP32 products at 4096^3 (ours and oneDNN's; about half a "
                    "second a product on 2 cores)");
    bench->add_flag("--gemm-fp32-only", bench_options.gemm_fp32_only,
                    "The tensor suite times only the FP32 products, ours and oneDNN's (no BF16, GPU or ladder rows)");
    std::string bench_isa;
    bench->add_option("--isa", bench_isa,
                      "Force the CPU instruction set: avx512, avx2 or baseline (the same as GPULAB_ISA; oneDNN is "
                      "capped to match)");

    auto* apply = cli.add_subcommand("apply", "Apply one op to a .npy or image file and write a .npy (conv2d: cross-correlation, kernel not flipped; matmul: two .npy matrices in reduced precision)");
    ApplyOptions apply_options;
    apply->add_option("op", apply_options.op, "relu | leaky-relu | sigmoid | tanh | gelu | conv2d | matmul")->required();
    apply->add_option("--filter", apply_options.filter,
                      "conv2d: identity | box | gaussian | sharpen | sobel-x | sobel-y | laplacian | emboss. "
                      "Cross-correlation as CNNs compute it: the kernel is NOT flipped");
    apply->add_option("--kernel", apply_options.kernel_path,
                      "conv2d: custom filter .npy, (R, S) or (K, C, R, S), odd square (not flipped)");
    apply->add_option("--filter-size", apply_options.filter_size, "conv2d: box / gaussian size (odd, 1..7)")
        ->check(strict_integer())
        ->capture_default_str();
    apply->add_option("--pad", apply_options.pad, "conv2d: zero (same size) or none (valid only)")
        ->capture_default_str();
    apply->add_option("--stride", apply_options.stride, "conv2d: step between filter positions")
        ->check(strict_integer())
        ->capture_default_str();
    apply->add_flag("--per-channel", apply_options.per_channel,
                      "conv2d: filter each plane on its own with the same filter (a picture: R, G, B; a .npy "
                      "(C, H, W): its C planes, N=C, C=1). Without it a .npy (C, H, W) is one C-channel input "
                      "that a (K, C, R, S) kernel sums over, as a CNN layer does");
    apply->add_option("--input", apply_options.input,
                      "float32 .npy (C order), or an image (read as grayscale mapped to [-1, 1]; "
                      "conv2d: grayscale [0, 1] or with --per-channel R, G, B in [0, 1], or .npy (H, W) or "
                      "(C, H, W)); not for matmul");
    apply->add_option("--output", apply_options.output,
                      "Output .npy (float32); conv2d: (K, P, Q), or (P, Q) for one filter; with --per-channel "
                      "(planes, P, Q) for one filter, else (planes, K, P, Q)")->required();
    auto* apply_backend = apply->add_option("--backend", apply_options.backend,
                                            "cpu-scalar | cpu-parallel | cuda-kernel | cudnn; matmul: cpu-scalar "
                                            "(default, every precision) | cpu-parallel | cpu-onednn (fp32 or bf16 "
                                            "inputs, fp32 accumulation) | cuda-sim | cuda-kernel (the tensor-core "
                                            "kernel: fp16 or bf16 inputs, fp32 accumulation)")
                              ->capture_default_str();
    apply->add_option("--a", apply_options.a_path, "matmul: A, a 2-D .npy (m x k), row-major");
    apply->add_option("--b", apply_options.b_path, "matmul: B, a 2-D .npy (k x n)");
    apply->add_option("--precision", apply_options.precision,
                      "matmul: fp32 | tf32 | bf16 | fp16, what A and B are rounded to (nearest, ties to even)")
        ->capture_default_str();
    apply->add_option("--accumulate", apply_options.accumulate,
                      "matmul: fp32 | tf32 | bf16 | fp16, what the running sum is kept in (each multiply-add rounded once)")
        ->capture_default_str();
    apply->add_option("--alpha", apply_options.alpha, "Slope for leaky-relu")->check(strict_decimal())->capture_default_str();

    auto* train = cli.add_subcommand("train", "Train the small CNN of the training lesson on Fashion-MNIST, headless");
    TrainOptions train_options;
    train->add_option("--backend", train_options.backend, "cpu-parallel | cpu-onednn | cpu-scalar (the reference loop: slow) | cuda-kernel | cuda-sim (our GPU kernels simulated on the CPU: slow, its time is not a GPU's)")
        ->capture_default_str();
    train->add_option("--epochs", train_options.epochs, "Passes over the training images")
        ->check(strict_integer())
        ->check(CLI::Range(1, 1000))->capture_default_str();
    train->add_option("--batch", train_options.batch, "Images per step")->check(strict_integer())->check(CLI::Range(1, 4096))->capture_default_str();
    train->add_option("--seed", train_options.seed, "Initial weights and batch order")->check(strict_unsigned())->capture_default_str();
    train->add_option("--limit", train_options.limit, "Use only the first N training and test images")
        ->check(strict_integer())
        ->check(CLI::Range(1LL, 1LL << 31));
    train->add_option("--data", train_options.data,
                      "Folder of MNIST-layout IDX files (default /usr/share/datasets/fashion-mnist)");
    train->add_option("--model", train_options.model, "Layers, e.g. conv32,pool,conv64,pool,conv64,dense64,dense10");
    // The same range as the training lesson's slider (core/train/learning_knobs.h).
    train->add_option("--lr", train_options.learning_rate, "SGD learning rate")
        ->check(strict_decimal())
        ->check(CLI::Range(gpulab::train::kMinLearningRate, gpulab::train::kMaxLearningRate))->capture_default_str();
    train->add_option("--momentum", train_options.momentum, "SGD momentum")
        ->check(strict_decimal())
        ->check(CLI::Range(0.0, 0.999))->capture_default_str();
    train->add_flag("--json", train_options.json, "Print one JSON array of per-epoch records");
    train->add_flag("--layers", train_options.layers, "Also print where the time goes: each layer's forward and backward");
    // Checked here, so a misspelt precision is refused like any bad option (exit 2) with the list.
    train->add_option("--precision", train_options.precision,
                      "fp32 | tf32 (TF32 products: real on cudnn with a GPU of compute capability 8.0+, modelled by "
                      "rounding on cpu-scalar and cpu-parallel) | bf16-mixed | bf16-pure (cpu-scalar and cpu-parallel) | "
                      "fp16-mixed (FP16 products with loss scaling: real on cudnn with a GPU of compute capability "
                      "7.0+, modelled on cpu-scalar and cpu-parallel)")
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                try {
                    gpulab::train::parse_compute_precision(s);
                    return "";
                } catch (const gpulab::core::InputError& e) {
                    return e.what();
                }
            },
            "PRECISION", "compute precision"))
        ->capture_default_str();

    train->add_option("--loss-scale", train_options.loss_scale,
                      "With --precision fp16-mixed: 0 (default) scales the loss dynamically (start 2^16, halve on "
                      "overflow, double after 200 good steps); a power of two from 1 to 2^24 keeps that scale (1: none)")
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                // A whole number, read as one before any float: "0x10", "08", "16.0000001" and
                // 16777217 (a float rounds the last two to a power of two) are refused (issue 43).
                const std::string rule = "the loss scale must be 0 (dynamic) or a power of two from 1 to 16,777,216 (2^24)";
                if (!gpulab::core::is_integer_text(s, false))
                    return rule + ", written as a whole number in base 10";
                const long long v = std::stoll(s);
                if (v != 0 && (v > (1LL << 24) || (v & (v - 1)) != 0)) return rule + ", got " + s;
                return "";
            },
            "SCALE", "loss scale"))
        ->capture_default_str();

    // Data-parallel training over MPI (app/cli/cli_train_launch.cpp, docs/distributed.md).
    train->add_option("--workers", train_options.workers,
                      "Train data-parallel in N worker processes started with mpirun (Open MPI): each takes its "
                      "slice of every batch, the gradients are summed with MPI_Allreduce every step")
        ->check(strict_integer())
        ->check(CLI::Range(1, 64));
    train->add_option("--hostfile", train_options.hostfile,
                      "With --workers: mpirun's host file, one host a line with its worker slots (localhost slots=2)");
    train->add_option("--straggler-ms", train_options.straggler_ms,
                      "With --workers: the last worker sleeps this many milliseconds every step, to see the others wait")
        ->check(strict_decimal())
        ->check(CLI::Range(0.0, 10000.0));
    // Hidden (no group): what the launcher gives each worker, and the parameters for comparing runs.
    train->add_flag("--rank-worker", train_options.rank_worker)->group("");
    train->add_option("--worker-threads", train_options.worker_threads)->check(CLI::Range(1, 4096))->group("");
    train->add_option("--save-params", train_options.save_params)->group("");

    auto* puzzle = cli.add_subcommand("puzzle", "Kernel puzzles: list them, or grade submissions (.cu files)");
    puzzle->require_subcommand(1, 1);
    std::string puzzle_dir;
    bool puzzle_json = false;
    auto* puzzle_list = puzzle->add_subcommand("list", "List the puzzles with their kernels' signatures");
    puzzle_list->add_option("--puzzle-dir", puzzle_dir, "A folder of puzzle folders instead of the built-in ones");
    puzzle_list->add_flag("--json", puzzle_json, "One JSON array");
    auto* puzzle_check = puzzle->add_subcommand(
        "check", "Grade submissions of a puzzle: each hidden case, each defect with its line; exit 0 only if all pass");
    PuzzleCheckOptions puzzle_options;
    puzzle_check->add_option("id", puzzle_options.id, "The puzzle (see gpulab puzzle list)")->required();
    puzzle_check->add_option("files", puzzle_options.files, "Submissions: .cu files, or folders of them")->required();
    puzzle_check->add_option("--puzzle-dir", puzzle_options.puzzle_dir, "A folder of puzzle folders instead of the built-in ones");
    puzzle_check->add_flag("--json", puzzle_options.json, "One JSON array, one record per submission");
    puzzle_check->add_option("--jobs", puzzle_options.jobs, "Submissions graded at once (default: one per core)")
        ->check(strict_integer())
        ->check(CLI::Range(1, 256));
    puzzle_check->add_option("--time-limit", puzzle_options.time_limit_s, "Seconds each submission may run (default 5)")
        ->check(strict_integer())
        ->check(CLI::Range(1, 600));
    puzzle_check->add_flag("--gpu", puzzle_options.gpu,
                           "Also compile each submission that passes with nvcc and run it on this machine's GPU: "
                           "outputs compared, kernel time measured");

    auto* puzzle_grade = puzzle->add_subcommand(
        "grade", "Grade a class: a folder with one .cu per student (or one folder per student), each confined alone; "
                 "a table, and --out results.json or .csv");
    PuzzleGradeOptions grade_options;
    puzzle_grade->add_option("folder", grade_options.folder, "The class's folder of submissions")->required();
    puzzle_grade->add_option("--puzzle", grade_options.id,
                             "Every submission is this puzzle (default: the file's name, map.cu, or the kernel it defines)");
    puzzle_grade->add_option("--out", grade_options.out, "Write the results: .json (every case and defect) or .csv");
    puzzle_grade->add_flag("--gradescope", grade_options.gradescope,
                           "--out is Gradescope's autograder results.json (the folder holds one submission)");
    puzzle_grade->add_option("--puzzle-dir", grade_options.puzzle_dir, "A folder of puzzle folders instead of the built-in ones");
    puzzle_grade->add_option("--jobs", grade_options.jobs, "Submissions graded at once (default: one per core)")
        ->check(strict_integer())
        ->check(CLI::Range(1, 256));
    puzzle_grade->add_option("--time-limit", grade_options.time_limit_s, "Seconds each submission may run (default 5)")
        ->check(strict_integer())
        ->check(CLI::Range(1, 600));

    auto* puzzle_record = puzzle->add_subcommand(
        "record", "Record each reference solution's run on its example (reference-run.txt in the puzzle's folder), "
                  "shown where no compiler is installed");
    std::vector<std::string> record_ids;
    puzzle_record->add_option("ids", record_ids, "Only these puzzles (default: all)");
    puzzle_record->add_option("--puzzle-dir", puzzle_dir, "A folder of puzzle folders instead of the built-in ones");

    try {
        cli.parse(argc, argv);
        if (!size_text.empty() && !parse_size(size_text, export_options.width, export_options.height)) {
            throw CLI::ValidationError("--size", "'" + size_text + "' is not WxH between 320x240 and 8192x8192");
        }
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return cli.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "gpulab: %s (see gpulab --help)\n", e.what());
        return kExitUsage;
    }

    // GPULAB_ISA (or bench --isa) is read once, by the first CPU kernel: set and checked before any.
    if (!bench_isa.empty()) setenv("GPULAB_ISA", bench_isa.c_str(), 1);
    if (const std::string& refused = gpulab::cpu::isa_choice().error; !refused.empty()) {
        std::fprintf(stderr, "gpulab: %s.\n", refused.c_str());
        return kExitUsage;
    }

    export_options.lesson_dirs = lesson_dirs;
    gui.lesson_dirs = lesson_dirs;
    if (*lessons) return cmd_lessons(check_files, lesson_dirs);
    if (*info) return cmd_info();
    if (*exp) return run_export(export_options);
    if (*prerun) {
        if (!prerun_options.import_dir.empty() && (!prerun_options.lesson_ids.empty() || prerun_options.fresh ||
                                                   !prerun_options.out_dir.empty())) {
            std::fprintf(stderr, "gpulab: prerun --import only loads results: give it alone (see gpulab prerun --help)\n");
            return kExitUsage;
        }
        prerun_options.lesson_dirs = lesson_dirs;
        return run_prerun(prerun_options);
    }
    if (*bench) return cmd_bench(bench_options);
    apply_options.backend_given = apply_backend->count() > 0;
    if (*apply) return cmd_apply(apply_options);
    if (*train) {
        // `--data ""` would silently mean the default data set: say so instead (issue 31, item 6).
        if (train->count("--data") > 0 && train_options.data.empty()) {
            std::fprintf(stderr, "gpulab: --data is empty: name a folder of IDX files, or leave --data out for Debian's "
                                 "Fashion-MNIST (see gpulab train --help)\n");
            return kExitUsage;
        }
        if ((!train_options.hostfile.empty() || train_options.straggler_ms > 0) && train_options.workers == 0 &&
            !train_options.rank_worker) {
            std::fprintf(stderr, "gpulab: --hostfile and --straggler-ms belong to --workers N (data-parallel "
                                 "training; see gpulab train --help)\n");
            return kExitUsage;
        }
        return cmd_train(train_options);
    }
    if (*puzzle_list) return cmd_puzzle_list(puzzle_dir, puzzle_json);
    if (*puzzle_check) return cmd_puzzle_check(puzzle_options);
    if (*puzzle_grade) return cmd_puzzle_grade(grade_options);
    if (*puzzle_record) return cmd_puzzle_record(puzzle_dir, record_ids);
    if (!gui.screenshot_path.empty() && gui.max_frames == 0) {
        std::fprintf(stderr, "gpulab: --screenshot needs --frames N (see gpulab --help)\n");
        return kExitUsage;
    }
    return run_gui(gui);
}
