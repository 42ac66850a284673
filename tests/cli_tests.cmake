# Command-line behaviour of the real gpulab binary: bad arguments give one line and exit 2,
# lessons --check reports file:line, apply writes a .npy, bench --quick --json prints records.
set(GPULAB_CHECK ${CMAKE_CURRENT_LIST_DIR}/run_and_check.cmake)
set(GPULAB_CLI_OUT ${CMAKE_CURRENT_BINARY_DIR}/cli-out)
file(MAKE_DIRECTORY ${GPULAB_CLI_OUT})

function(gpulab_cli_test name rc regex)
    add_test(NAME cli.${name}
             COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;${ARGN}" -DEXPECT_RC=${rc}
                     "-DEXPECT_REGEX=${regex}" ${GPULAB_CLI_EXTRA} -P ${GPULAB_CHECK})
    set_tests_properties(cli.${name} PROPERTIES LABELS cli ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}")
endfunction()

set(GPULAB_CLI_EXTRA -DEXPECT_LINES=1)
gpulab_cli_test(unknown_flag 2 "^gpulab: .*--bogus.*see gpulab --help" --bogus)
gpulab_cli_test(unknown_subcommand_arg 2 "^gpulab: " lessons extra-arg)
gpulab_cli_test(apply_missing_input 2 "--input is required" apply relu --output x.npy)
gpulab_cli_test(apply_unknown_op 2 "unknown op 'softmax'" apply softmax --input a.npy --output b.npy)
gpulab_cli_test(apply_output_not_npy 2 "must be a .npy" apply relu --input a.npy --output b.png)
gpulab_cli_test(export_bad_size 2 "is not WxH" export --out ${GPULAB_CLI_OUT} --size huge)
gpulab_cli_test(export_bad_palette 2 "--palette" export --out ${GPULAB_CLI_OUT} --palette rainbow)
gpulab_cli_test(frames_not_a_number 2 "^gpulab: " --frames many)
gpulab_cli_test(apply_unreadable_input 1 "cannot open file" apply relu --input /nonexistent.npy
                --output ${GPULAB_CLI_OUT}/x.npy)
gpulab_cli_test(train_empty_data 2 "^gpulab: --data" train --data=)
unset(GPULAB_CLI_EXTRA)
# An export folder longer than the field holds is refused, never cut into another folder.
string(REPEAT "d" 200 gpulab_long_part)
set(gpulab_long_out ${GPULAB_CLI_OUT})
foreach(i RANGE 21)
    string(APPEND gpulab_long_out "/${gpulab_long_part}")
endforeach()
gpulab_cli_test(export_out_too_long 1 "the --out path is [0-9]+ characters long; at most 4,095 are allowed"
                export --lesson elementwise-activations --quick --out ${gpulab_long_out})

gpulab_cli_test(version 0 "gpulab ${PROJECT_VERSION}" --version)
gpulab_cli_test(help 0 "Subcommands:.*lessons.*info.*export.*bench.*apply" --help)
gpulab_cli_test(lessons_list 0 "elementwise-activations +ready.*conv-sliding-window +ready.*simd-vs-mimd +ready" lessons)
gpulab_cli_test(lessons_check_ok 0 "ok \\(elementwise-activations" lessons --check
                ${PROJECT_SOURCE_DIR}/lessons/elementwise-activations.toml)
gpulab_cli_test(lessons_check_bad 1 "bad-param.toml:9: parameter 'elements'" lessons --check
                ${CMAKE_CURRENT_LIST_DIR}/data/lessons-bad/bad-param.toml)
gpulab_cli_test(info 0 "Backends.*cpu-scalar +available.*cuda-kernel" info)
# cuda-sim on every machine, CPU-only builds included: the CUDA kernel, simulated on the CPU.
gpulab_cli_test(info_lists_cuda_sim 0 "cuda-sim +available" info)
gpulab_cli_test(bench_simd_quick_json 0 "\"op\": \"cpu-simd\".*\"isa\".*\"speedup\"" bench --quick --json --suite simd)
gpulab_cli_test(bench_latency_quick_json 0 "\"op\": \"sweep-relu\".*\"op\": \"crossover\"" bench --quick --json --suite latency)
gpulab_cli_test(bench_sim_quick_json 0 "\"op\": \"sim\", \"backend\": \"cuda-sim\", \"simulated\": true.*\"crossings_per_cpu_s\""
                bench --quick --json --suite sim)
# `bench --suite stop` (issue 38) runs and stops; its delays are speeds, so only that it runs is tested.
gpulab_cli_test(bench_stop_quick 0 "stopped at 2 moments spread over the run.*2\\^16 elements, whole run" bench --quick --suite stop)
set(GPULAB_CLI_EXTRA -DEXPECT_LINES=1)
gpulab_cli_test(bench_unknown_suite 2 "^gpulab: unknown suite 'gpu'" bench --json --suite gpu)
unset(GPULAB_CLI_EXTRA)
gpulab_cli_test(bench_quick_json 0 "^\\[.*\"op\": \"relu\", \"backend\": \"cpu-scalar\".*\"fraction_of_limit\".*\\]"
                bench --quick --json --op relu --op gelu)

# apply: an image in, a .npy out
set(GPULAB_CLI_EXTRA -DEXPECT_FILE=${GPULAB_CLI_OUT}/gradient-relu.npy)
gpulab_cli_test(apply_image_to_npy 0 "ReLU of \\([0-9]+, [0-9]+\\)" apply relu
                --input ${PROJECT_SOURCE_DIR}/tests/data/gradient.png --output ${GPULAB_CLI_OUT}/gradient-relu.npy)
unset(GPULAB_CLI_EXTRA)

# apply conv2d: a named filter writes (P, Q) float32; bad kernels, filters and flags are one line
set(GPULAB_CLI_EXTRA -DEXPECT_FILE=${GPULAB_CLI_OUT}/gradient-sobel-x.npy)
gpulab_cli_test(apply_conv2d_named_filter 0 "conv2d \\(cross-correlation, sobel-x\\).*-> .*\\(32, 64\\)" apply conv2d
                --filter sobel-x --input ${PROJECT_SOURCE_DIR}/tests/data/gradient.png
                --output ${GPULAB_CLI_OUT}/gradient-sobel-x.npy)
# --per-channel: the picture as R, G, B planes, each filtered on its own: (3, P, Q)
set(GPULAB_CLI_EXTRA -DEXPECT_FILE=${GPULAB_CLI_OUT}/gradient-rgb-sobel-x.npy)
gpulab_cli_test(apply_conv2d_per_channel 0 "conv2d \\(cross-correlation, sobel-x\\).*N=3.*-> .*\\(3, 32, 64\\)" apply
                conv2d --filter sobel-x --per-channel --input ${PROJECT_SOURCE_DIR}/tests/data/gradient.png
                --output ${GPULAB_CLI_OUT}/gradient-rgb-sobel-x.npy)
set(GPULAB_CLI_EXTRA -DEXPECT_LINES=1)
gpulab_cli_test(apply_conv2d_even_kernel 1 "kernel_even_4x4.npy: the filter must have an odd size" apply conv2d
                --kernel ${PROJECT_SOURCE_DIR}/tests/data/kernel_even_4x4.npy
                --input ${PROJECT_SOURCE_DIR}/tests/data/gradient.png --output ${GPULAB_CLI_OUT}/even.npy)
gpulab_cli_test(apply_conv2d_unknown_filter 2 "unknown filter 'blur'" apply conv2d --filter blur
                --input ${PROJECT_SOURCE_DIR}/tests/data/gradient.png --output ${GPULAB_CLI_OUT}/blur.npy)
gpulab_cli_test(apply_conv2d_no_filter 2 "exactly one of --filter NAME or --kernel" apply conv2d
                --input ${PROJECT_SOURCE_DIR}/tests/data/gradient.png --output ${GPULAB_CLI_OUT}/none.npy)
gpulab_cli_test(apply_conv2d_bad_stride 2 "--stride must be between 1 and" apply conv2d --filter box --stride 0
                --input ${PROJECT_SOURCE_DIR}/tests/data/gradient.png --output ${GPULAB_CLI_OUT}/s0.npy)
unset(GPULAB_CLI_EXTRA)
gpulab_cli_test(bench_conv_quick_json 0 "\"op\": \"conv2d\".*\"gflops\".*\"implementation\"" bench --quick --json
                --suite conv)

# Lessons in the user's config folder load without flags.
add_test(NAME cli.lessons_from_config_dir
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;lessons" -DEXPECT_RC=0
                 "-DEXPECT_REGEX=instructor-relu +ready" -P ${GPULAB_CHECK})
set_tests_properties(cli.lessons_from_config_dir PROPERTIES LABELS cli ENVIRONMENT
                     "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};XDG_CONFIG_HOME=${CMAKE_CURRENT_LIST_DIR}/data/config-home")

# An instructor's checks: `lessons --lesson-dir DIR` is accepted after the subcommand, and a file
# whose id a built-in lesson already uses fails --check with the line of its id.
gpulab_cli_test(lessons_lesson_dir_after_subcommand 0 "elementwise-activations +ready.*lessons-clash.*already used by"
                lessons --lesson-dir ${CMAKE_CURRENT_LIST_DIR}/data/lessons-clash)
gpulab_cli_test(lessons_check_id_clash 1 "elementwise-activations.toml:2: lesson id 'elementwise-activations' is already used"
                lessons --check ${CMAKE_CURRENT_LIST_DIR}/data/lessons-clash/elementwise-activations.toml)

# Forced instruction set (issue 17): bench --isa / GPULAB_ISA. The baseline exists on every CPU, so
# this runs everywhere; a mismatch with cpu-scalar would make bench exit 1. Unknown names are refused.
gpulab_cli_test(bench_isa_baseline 0 "\"cpu_isa\": \"(SSE2|portable 4-wide)\", \"cpu_isa_forced\": true" bench --quick
                --json --suite activation --op sigmoid --op gelu --isa baseline)
set(GPULAB_CLI_EXTRA -DEXPECT_LINES=1)
gpulab_cli_test(bench_isa_unknown 2 "^gpulab: GPULAB_ISA=avx3 is not an instruction set gpulab knows: use avx512, avx2 or baseline"
                bench --quick --isa avx3)
unset(GPULAB_CLI_EXTRA)
add_test(NAME cli.isa_env_unknown
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;info" -DEXPECT_RC=2
                 "-DEXPECT_REGEX=^gpulab: GPULAB_ISA=sse9 is not an instruction set gpulab knows" -P ${GPULAB_CHECK})
set_tests_properties(cli.isa_env_unknown PROPERTIES LABELS cli ENVIRONMENT
                     "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};GPULAB_ISA=sse9")
gpulab_cli_test(info_names_isa 0 "SIMD +[A-Za-z0-9+ -]+ \\((forced by GPULAB_ISA|the best this CPU has)" info)

# The colour-blind palette in exported pictures: no pair of colours that carry meaning (backends,
# ok / error / warning, the confusion matrix's ends, layer kinds) closer than delta E76 20 under
# simulated deuteranopia, protanopia or tritanopia (scripts/cvd-check.py, docs/reliability.md).
find_program(GPULAB_PYTHON3 python3)
if(GPULAB_PYTHON3)
    add_test(NAME cli.export_colour_blind_cvd
             COMMAND sh -c "\"$1\" export --lesson latency-vs-throughput --quick --palette colour-blind --out \"$2\" && \"$3\" \"$4\" --quiet \"$2\""
                     sh $<TARGET_FILE:gpulab> ${GPULAB_CLI_OUT}/cvd ${GPULAB_PYTHON3} ${PROJECT_SOURCE_DIR}/scripts/cvd-check.py)
    set_tests_properties(cli.export_colour_blind_cvd PROPERTIES LABELS cli
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}"
                         PASS_REGULAR_EXPRESSION "pairs under the threshold: 0")
endif()

# Kernel puzzles (issue 28): list, grade a folder of submissions (exit 0 only when all pass), JSON
# for graders, an unknown puzzle, a puzzle validated by lessons --check, the bench's puzzle suite.
gpulab_cli_test(puzzle_list 0 "map +Map: one thread per element.*block-sum.*__global__ void block_sum\\(const float\\* a, float\\* out, int n\\)"
                puzzle list)
gpulab_cli_test(puzzle_check_reference 0 "solution.cu: PASS" puzzle check map ${PROJECT_SOURCE_DIR}/puzzles/map/solution.cu)
gpulab_cli_test(puzzle_check_folder 1 "no-guard.cu: FAIL.*out of bounds \\(line 4\\).*a\\[8\\], past the end.*of [0-9]+ submissions pass map"
                puzzle check map ${PROJECT_SOURCE_DIR}/puzzles/map/wrong)
gpulab_cli_test(puzzle_check_json 1 "\"kind\": \"race\", \"lines\": \\[[0-9]+\\]"
                puzzle check block-sum --json ${PROJECT_SOURCE_DIR}/puzzles/block-sum/wrong/no-barrier-in-loop.cu)
gpulab_cli_test(puzzle_check_unknown 2 "no puzzle 'nope' \\(known: map" puzzle check nope ${PROJECT_SOURCE_DIR}/puzzles/map/solution.cu)
gpulab_cli_test(puzzle_check_unreadable 2 "cannot read /nonexistent.cu" puzzle check map /nonexistent.cu)
gpulab_cli_test(lessons_check_puzzle 0 "ok \\(puzzle map, 5 cases; the solution passes, the skeleton compiles"
                lessons --check ${PROJECT_SOURCE_DIR}/puzzles/map)
gpulab_cli_test(puzzle_check_printed 1 "printed:\n hello from the kernel"
                puzzle check map ${CMAKE_CURRENT_LIST_DIR}/data/puzzle-prints.cu)
gpulab_cli_test(puzzle_grade_not_a_folder 2 "is not a folder of submissions" puzzle grade /nonexistent-class)
# A class of 30 with three hostile submissions (issue 40): tests/puzzle_grade_class.sh.
add_test(NAME cli.puzzle_grade_class
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/puzzle_grade_class.sh $<TARGET_FILE:gpulab> ${PROJECT_SOURCE_DIR}
                 ${GPULAB_CLI_OUT}/grade-class)
set_tests_properties(cli.puzzle_grade_class PROPERTIES LABELS "cli;puzzles" ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}")
gpulab_cli_test(bench_puzzles_quick_json 0 "\"op\": \"puzzle\", \"simulated\": true, \"puzzle\": \"map\".*\"op\": \"puzzle-throughput\""
                bench --quick --json --suite puzzles)

# Every numeric option of every subcommand through one table of bad values (issue 31, item 3): each
# is refused with the option's name, exit 2, before anything runs. Integers: octal-looking, hex,
# exponent, NaN; decimals: nan, inf, hex, too large.
set(GPULAB_CLI_EXTRA -DEXPECT_LINES=1)
set(gpulab_int_options "--frames" "train --epochs" "train --batch" "train --limit" "bench --size"
                       "apply conv2d --input a.npy --output b.npy --filter-size" "apply conv2d --input a.npy --output b.npy --stride"
                       "puzzle check map x.cu --jobs" "puzzle check map x.cu --time-limit" "--monitor")
set(gpulab_bad_ints 010 0x10 1e3 nan)
foreach(opt IN LISTS gpulab_int_options)
    separate_arguments(args UNIX_COMMAND "${opt}")
    list(GET args -1 flag)
    string(REGEX REPLACE "[^a-z]" "_" tname "${opt}")
    foreach(bad IN LISTS gpulab_bad_ints)
        gpulab_cli_test(strict_${tname}_${bad} 2 "^gpulab: ${flag}: '${bad}' is not a whole number" ${args} ${bad})
    endforeach()
endforeach()
gpulab_cli_test(strict_seed_negative 2 "^gpulab: --seed: '-1' is not a whole number written in base 10 without a sign" train --seed -1)
gpulab_cli_test(strict_seed_20_digits 2 "^gpulab: --seed: '99999999999999999999' is not a whole number" train --seed 99999999999999999999)
set(gpulab_dec_options "train --lr" "train --momentum" "apply leaky-relu --input a.npy --output b.npy --alpha" "--present-scale")
set(gpulab_bad_decimals nan inf 0x1p3 1e999)
foreach(opt IN LISTS gpulab_dec_options)
    separate_arguments(args UNIX_COMMAND "${opt}")
    list(GET args -1 flag)
    string(REGEX REPLACE "[^a-z]" "_" tname "${opt}")
    foreach(bad IN LISTS gpulab_bad_decimals)
        gpulab_cli_test(strict_${tname}_${bad} 2 "^gpulab: ${flag}: '${bad}' is (not a decimal number|too large)" ${args} ${bad})
    endforeach()
endforeach()
# A 50,000-digit number once overflowed the stack of the regex that read it (issue 43): refused in
# one line that quotes its start, for an integer and a decimal option.
string(REPEAT "1" 50000 gpulab_long_number)
gpulab_cli_test(strict_frames_50000_digits 2 "^gpulab: --frames: '1+\\.\\.\\. \\(50000 characters\\)' is not a whole number"
                --frames ${gpulab_long_number})
foreach(opt IN LISTS gpulab_dec_options)
    separate_arguments(args UNIX_COMMAND "${opt}")
    list(GET args -1 flag)
    string(REGEX REPLACE "[^a-z]" "_" tname "${opt}")
    gpulab_cli_test(strict_${tname}_50000_digits 2 "^gpulab: ${flag}: '1+\\.\\.\\. \\(50000 characters\\)' is not a decimal number"
                    ${args} ${gpulab_long_number})
endforeach()
# --loss-scale is read as a whole number before any float (issue 43): hex, a leading zero, a
# fraction a float would round away and 2^24 + 1 are refused, not taken as 16 or 2^24.
foreach(bad 0x10 08 16.0000001 16777217 1e3)
    string(REGEX REPLACE "[^a-z0-9]" "_" tname "${bad}")
    gpulab_cli_test(strict_loss_scale_${tname} 2 "the loss scale must be 0 \\(dynamic\\) or a power of two from 1 to 16,777,216"
                    train --precision fp16-mixed --loss-scale ${bad})
endforeach()
unset(GPULAB_CLI_EXTRA)

# apply matmul (issue 29): two float32 matrices in reduced precision; the result agrees with the
# FP64 product within the bound the formats predict (core::matmul_error_bound), on cpu-scalar and on
# the tensor-core kernel simulated (cuda-sim); every refusal is one line.
set(GPULAB_MATMUL_DATA ${CMAKE_CURRENT_LIST_DIR}/data/matmul)
foreach(combo "fp32|fp32|cpu-scalar" "tf32|fp32|cpu-scalar" "bf16|fp32|cpu-scalar" "fp16|fp32|cpu-scalar"
              "fp16|fp16|cpu-scalar" "tf32|tf32|cpu-scalar" "fp16|fp32|cuda-sim" "bf16|fp32|cuda-sim"
              "fp32|fp32|cpu-parallel")
    string(REPLACE "|" ";" fields "${combo}")
    list(GET fields 0 precision)
    list(GET fields 1 accumulate)
    list(GET fields 2 backend)
    set(GPULAB_CLI_EXTRA -DEXPECT_FILE=${GPULAB_CLI_OUT}/matmul-${precision}-${accumulate}-${backend}.npy)
    gpulab_cli_test(apply_matmul_${precision}_${accumulate}_${backend} 0
                    "\\(16, 300\\) x \\(300, 8\\) -> .*\\(16, 8\\), .* on ${backend}.*all 128 finite outputs within the bound"
                    apply matmul --a ${GPULAB_MATMUL_DATA}/a_16x300.npy --b ${GPULAB_MATMUL_DATA}/b_300x8.npy
                    --precision ${precision} --accumulate ${accumulate} --backend ${backend}
                    --output ${GPULAB_CLI_OUT}/matmul-${precision}-${accumulate}-${backend}.npy)
endforeach()
unset(GPULAB_CLI_EXTRA)
# A BF16 sum has no bound past 255 terms (K x 2^-8 >= 1): said so for K = 300; within it for K = 5.
gpulab_cli_test(apply_matmul_bf16_sum_no_bound 0 "BF16 predicts no bound for K = 300" apply matmul --precision bf16
                --accumulate bf16 --a ${GPULAB_MATMUL_DATA}/a_16x300.npy --b ${GPULAB_MATMUL_DATA}/b_300x8.npy
                --output ${GPULAB_CLI_OUT}/m.npy)
gpulab_cli_test(apply_matmul_bf16_sum 0 "BF16 inputs, BF16 accumulation on cpu-scalar.*all 12 finite outputs within the bound"
                apply matmul --precision bf16 --accumulate bf16 --a ${GPULAB_MATMUL_DATA}/a_3x5.npy
                --b ${GPULAB_MATMUL_DATA}/b_5x4.npy --output ${GPULAB_CLI_OUT}/m.npy)
gpulab_cli_test(apply_matmul_default_cpu_scalar 0 "FP32 inputs, FP32 accumulation on cpu-scalar" apply matmul
                --a ${GPULAB_MATMUL_DATA}/a_3x5.npy --b ${GPULAB_MATMUL_DATA}/b_5x4.npy --output ${GPULAB_CLI_OUT}/m.npy)
gpulab_cli_test(apply_matmul_sim_time_not_gpu 0 "simulated in .* never a GPU time" apply matmul --backend cuda-sim
                --precision fp16 --a ${GPULAB_MATMUL_DATA}/a_3x5.npy --b ${GPULAB_MATMUL_DATA}/b_5x4.npy
                --output ${GPULAB_CLI_OUT}/m.npy)
gpulab_cli_test(apply_matmul_nan 0 "1 NaN and 0 infinite values; they propagate as IEEE" apply matmul --precision fp16
                --a ${GPULAB_MATMUL_DATA}/a_3x5_nan.npy --b ${GPULAB_MATMUL_DATA}/b_5x4.npy --output ${GPULAB_CLI_OUT}/m.npy)
gpulab_cli_test(apply_matmul_fp16_overflow 0 "1 input lies beyond FP16's largest number \\(65,504\\) and became infinity"
                apply matmul --precision fp16 --backend cuda-sim --a ${GPULAB_MATMUL_DATA}/a_3x5_big.npy
                --b ${GPULAB_MATMUL_DATA}/b_5x4.npy --output ${GPULAB_CLI_OUT}/m.npy)
set(GPULAB_CLI_EXTRA -DEXPECT_LINES=1)
gpulab_cli_test(apply_matmul_shapes 1 "A is 3 x 5 and B is 4 x 2: A's columns \\(5\\) must equal B's rows \\(4\\)"
                apply matmul --a ${GPULAB_MATMUL_DATA}/a_3x5.npy --b ${GPULAB_MATMUL_DATA}/b_4x2.npy
                --output ${GPULAB_CLI_OUT}/m.npy)
gpulab_cli_test(apply_matmul_not_2d 1 "cube_2x2x2.npy: matmul needs a 2-D matrix, got shape \\(2, 2, 2\\)" apply matmul
                --a ${GPULAB_MATMUL_DATA}/cube_2x2x2.npy --b ${GPULAB_MATMUL_DATA}/b_5x4.npy --output ${GPULAB_CLI_OUT}/m.npy)
gpulab_cli_test(apply_matmul_sim_refuses_tf32 1 "cuda-sim runs the mma.sync tensor-core kernel, which is built for FP16 or BF16"
                apply matmul --backend cuda-sim --precision tf32 --a ${GPULAB_MATMUL_DATA}/a_3x5.npy
                --b ${GPULAB_MATMUL_DATA}/b_5x4.npy --output ${GPULAB_CLI_OUT}/m.npy)
gpulab_cli_test(apply_matmul_sim_refuses_fp16_sum 1 "not FP16 inputs, FP16 accumulation: use --backend cpu-scalar"
                apply matmul --backend cuda-sim --precision fp16 --accumulate fp16 --a ${GPULAB_MATMUL_DATA}/a_3x5.npy
                --b ${GPULAB_MATMUL_DATA}/b_5x4.npy --output ${GPULAB_CLI_OUT}/m.npy)
gpulab_cli_test(apply_matmul_backend_without_matmul 1 "backend cudnn has no matrix product: use cpu-scalar"
                apply matmul --backend cudnn --a ${GPULAB_MATMUL_DATA}/a_3x5.npy --b ${GPULAB_MATMUL_DATA}/b_5x4.npy
                --output ${GPULAB_CLI_OUT}/m.npy)
# cpu-parallel and cpu-onednn multiply FP32, and BF16 with FP32 sums where the CPU can (our AMX and
# VDPBF16PS kernels, oneDNN's; tests/test_gemm_bf16.cpp checks them): FP16 is refused in one line.
gpulab_cli_test(apply_matmul_parallel_refuses_fp16 1 "cpu-parallel multiplies FP32 numbers, or BF16 ones with FP32 sums.*not FP16 inputs"
                apply matmul --backend cpu-parallel --precision fp16 --a ${GPULAB_MATMUL_DATA}/a_3x5.npy
                --b ${GPULAB_MATMUL_DATA}/b_5x4.npy --output ${GPULAB_CLI_OUT}/m.npy)
gpulab_cli_test(apply_matmul_bad_precision 2 "--precision must be fp32, tf32, bf16 or fp16, got 'fp8'" apply matmul
                --precision fp8 --a ${GPULAB_MATMUL_DATA}/a_3x5.npy --b ${GPULAB_MATMUL_DATA}/b_5x4.npy
                --output ${GPULAB_CLI_OUT}/m.npy)
gpulab_cli_test(apply_matmul_needs_b 2 "apply matmul needs both --a A.npy and --b B.npy" apply matmul
                --a ${GPULAB_MATMUL_DATA}/a_3x5.npy --output ${GPULAB_CLI_OUT}/m.npy)
gpulab_cli_test(apply_matmul_not_input 2 "give --a A.npy and --b B.npy, not --input" apply matmul
                --input ${GPULAB_MATMUL_DATA}/a_3x5.npy --output ${GPULAB_CLI_OUT}/m.npy)
unset(GPULAB_CLI_EXTRA)
# A product of 2^33 multiply-adds with an FP16 sum (every step rounded in software) would take
# minutes: refused in one line. The two 16 MiB inputs are written at test time.
if(GPULAB_PYTHON3)
    add_test(NAME cli.apply_matmul_big_inputs
             COMMAND ${GPULAB_PYTHON3} ${GPULAB_MATMUL_DATA}/make_npy.py --big ${GPULAB_CLI_OUT})
    set_tests_properties(cli.apply_matmul_big_inputs PROPERTIES LABELS cli FIXTURES_SETUP cli_matmul_big)
    set(GPULAB_CLI_EXTRA -DEXPECT_LINES=1)
    gpulab_cli_test(apply_matmul_too_big 1 "A \\(2048 x 2048\\) times B \\(2048 x 2048\\) is 8,589,934,592 multiply-adds, which would take minutes on cpu-scalar"
                    apply matmul --precision fp16 --accumulate fp16 --a ${GPULAB_CLI_OUT}/a_2048x2048.npy
                    --b ${GPULAB_CLI_OUT}/b_2048x2048.npy --output ${GPULAB_CLI_OUT}/big.npy)
    unset(GPULAB_CLI_EXTRA)
    set_tests_properties(cli.apply_matmul_too_big PROPERTIES FIXTURES_REQUIRED cli_matmul_big)
endif()

# `bench --suite tensor` (issue 29 part 4): the five matrix-product rows (ours in BF16 twice: AMX and
# VDPBF16PS), each with its path or why it did not run; GPULAB_ISA=avx2 (--isa avx2) makes our BF16
# kernels say they cannot run, and why.
gpulab_cli_test(bench_tensor_quick 0
                "128 x 128 x 128.*cpu-parallel +FP32 .*cpu-parallel +BF16 .*cpu-parallel +BF16 .*cpu-onednn +FP32 .*cpu-onednn +BF16 .*BF16 / FP32: cpu-parallel"
                bench --quick --suite tensor)
gpulab_cli_test(bench_tensor_quick_json 0
                "\"op\": \"gemm\", \"backend\": \"cpu-parallel\", \"inputs\": \"bf16\", \"accumulate\": \"fp32\", \"size\": 128, \"ran\": (true|false), \"native\": (true|false), \"instruction\": \"AMX\", \"path\": .*\"instruction\": \"VDPBF16PS\", \"path\": .*\"op\": \"gemm-ratios\""
                bench --quick --json --suite tensor)
gpulab_cli_test(bench_tensor_isa_avx2 0
                "cpu-parallel +BF16 +not run: GPULAB_ISA=avx2 caps this run at AVX2\\+FMA, so the AMX tiles are not used.*cpu-parallel +BF16 +not run: GPULAB_ISA=avx2 caps this run at AVX2\\+FMA, which has no AVX512_BF16 .*slower, not faster"
                bench --quick --suite tensor --isa avx2)
