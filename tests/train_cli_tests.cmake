# `gpulab train` (issue 15): bad flags and data are one sentence on stderr; a short run on the first
# 1,000 Fashion-MNIST images (Debian's dataset-fashion-mnist, installed by install-deps) ends well
# above chance (10 %). Uses gpulab_cli_test from cli_tests.cmake.
set(GPULAB_CLI_EXTRA -DEXPECT_LINES=1)
gpulab_cli_test(train_unknown_backend 2 "^gpulab train: unknown backend 'cuda-magic'; choose one of cpu-scalar"
                train --backend cuda-magic)
gpulab_cli_test(train_zero_epochs 2 "^gpulab: --epochs: Value 0 not in range" train --epochs 0)
gpulab_cli_test(train_batch_not_a_number 2 "^gpulab: --batch" train --batch many)
gpulab_cli_test(train_huge_batch 2 "^gpulab: --batch: Value 100000 not in range" train --batch 100000)
gpulab_cli_test(train_missing_data 1 "^gpulab train: no data set at /nonexistent/mnist: pass --data a folder holding"
                train --data /nonexistent/mnist)
gpulab_cli_test(train_truncated_data 1 "train-images-idx3-ubyte: is truncated: 100 of the 7840 values"
                train --data ${CMAKE_CURRENT_LIST_DIR}/data/idx-truncated)
gpulab_cli_test(train_bad_model 1 "^gpulab train: model 'conv32,lstm,dense10': unknown layer 'lstm'"
                train --limit 10 --model conv32,lstm,dense10)
# --precision (issue 29): a misspelt one lists every id; an engine that cannot run it refuses with
# its sentence, exit 2, in every build (before availability: cuda-kernel and cudnn answer the same
# without a GPU).
gpulab_cli_test(train_precision_unknown 2 "^gpulab: --precision: 'bf8' is not a compute precision: write fp32, tf32 .*bf16-mixed .*bf16-pure"
                train --precision bf8)
gpulab_cli_test(train_precision_onednn_tf32 2 "^gpulab train: cpu-onednn multiplies in FP32 only: TF32 \\(TF32 products"
                train --backend cpu-onednn --precision tf32)
gpulab_cli_test(train_precision_cuda_kernel_tf32 2 "^gpulab train: cuda-kernel runs our kernels, which multiply FP32 on the ordinary FP32 units"
                train --backend cuda-kernel --precision tf32)
gpulab_cli_test(train_precision_cudnn_bf16 2 "^gpulab train: cudnn multiplies in FP32, TF32 or FP16 \\(mixed\\) only: BF16 pure \\(BF16 products, BF16 weights\\)"
                train --backend cudnn --precision bf16-pure)
unset(GPULAB_CLI_EXTRA)
if(EXISTS /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz)
    gpulab_cli_test(train_short_run_above_chance 0 "\"epoch\": 1, \"loss\": [0-9.]+, \"train_accuracy\": [0-9.]+, \"test_accuracy\": 0\\.[3-9]"
                    train --limit 1000 --batch 32 --epochs 1 --json)
endif()
# scripts/torch-compare.py (issue 45 item 3) gives PyTorch gpulab's initial weights and batches by
# repeating init_params and batch_order in Python: if either changes here, the script's first batch's
# loss of a small model, computed in plain Python, no longer equals `gpulab train`'s and this fails.
if(EXISTS /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz)
    add_test(NAME scripts.torch-compare.reproduces_gpulab
             COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/scripts/torch-compare.py --self-test
                     --gpulab $<TARGET_FILE:gpulab>)
    set_tests_properties(scripts.torch-compare.reproduces_gpulab PROPERTIES LABELS "scripts;train"
                         PASS_REGULAR_EXPRESSION "torch-compare self-test: ok")
endif()
# TF32 modelled on cpu-parallel, 100 images: the header and the JSON record name it.
if(EXISTS /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz)
    gpulab_cli_test(train_tf32_short_run 0 "\nprecision: TF32 products \\(inputs rounded to 10 mantissa bits\\), FP32 sums and weights\n"
                    train --limit 100 --batch 32 --precision tf32)
    gpulab_cli_test(train_tf32_short_run_json 0 "\"backend\": \"cpu-parallel\", \"precision\": \"TF32 products [^\"]*\", \"epoch\": 1"
                    train --limit 100 --batch 32 --precision TF32 --json)
endif()
# FP16 mixed with loss scaling, modelled on cpu-parallel: a fixed 2^24 overflows FP16 on every batch
# of 32 (the loss gradient passes 65,504), so every update is skipped and the last line says so; a
# fixed scale belongs to fp16-mixed only; a scale that is not a power of two is refused.
if(EXISTS /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz)
    gpulab_cli_test(train_fp16_overflow_skips 0 "\nprecision: FP16 products, FP32 master weights, loss scaling: loss scale 2\\^24 \\(fixed\\).*\nafter training: .*loss scale 2\\^24 \\(fixed\\), 4 of 4 updates skipped"
                    train --limit 100 --batch 32 --precision fp16-mixed --loss-scale 16777216)
endif()
set(GPULAB_CLI_EXTRA -DEXPECT_LINES=1)
gpulab_cli_test(train_loss_scale_needs_fp16 2 "^gpulab train: --loss-scale belongs to --precision fp16-mixed"
                train --precision bf16-mixed --loss-scale 4)
gpulab_cli_test(train_loss_scale_power_of_two 2 "the loss scale must be 0 \\(dynamic\\) or a power of two from 1 to 16,777,216"
                train --precision fp16-mixed --loss-scale 3)
unset(GPULAB_CLI_EXTRA)
# cuda-sim: the GPU training kernels simulated, on 200 images of a small model (about 2 s here);
# says its time is not a GPU's. cuda-kernel without a usable device: the probe's reason, exit 1.
if(EXISTS /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz)
    gpulab_cli_test(train_cuda_sim_short_run 0 "never a GPU speed.*\n *1 +[0-9.]+ +[0-9.]+ %"
                    train --backend cuda-sim --limit 200 --batch 32 --model conv4,pool,dense10)
endif()
gpulab_cli_test(bench_train_quick_json 0 "\"op\": \"train-step\", \"backend\": \"cpu-scalar\".*\"op\": \"train-step\", \"backend\": \"cpu-parallel\", \"batch\": 8.*\"images_per_s\""
                bench --quick --json --suite train)
# cudnn on a machine without cuBLAS (GPULAB_CUBLAS_DIR at an empty folder): one sentence naming
# the library and the fix, exit 1, whether or not there is a GPU (the library is checked first).
if(GPULAB_HAVE_CUDNN AND GPULAB_CUBLAS_HEADER)
    file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/no-cublas)
    add_test(NAME cli.train_cudnn_without_cublas
             COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;train;--backend;cudnn;--limit;10" -DEXPECT_RC=1
                     "-DEXPECT_REGEX=^gpulab train: cudnn cannot run here: libcublas.so.13 not found: .*GPULAB_CUBLAS_DIR"
                     -DEXPECT_LINES=1 -P ${GPULAB_CHECK})
    set_tests_properties(cli.train_cudnn_without_cublas PROPERTIES LABELS cli ENVIRONMENT
                         "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};GPULAB_CUBLAS_DIR=${CMAKE_CURRENT_BINARY_DIR}/no-cublas")
endif()
