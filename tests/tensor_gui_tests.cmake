# The tensor-core lesson as a user meets it (issue 29): a quick headless export (DISPLAY unset)
# writes the lesson PNG (the lanes of one mma.sync read from the simulated kernel, the typed
# number in four formats, the dot-product error against K), the window PNG and the CSV (every
# lane's elements, the number's bits, the ranges, the sweep, the kernel check); where xvfb-run
# exists, the GUI opens the lesson on its fragment picture, picks a lane, types a number, answers a
# prompt and saves non-blank screenshots. The all-steps export and its per-step CSVs are checked
# with the other lessons in presenter_tests.cmake, the layout at every size in layout_tests.cmake.
# Included from tests/app_tests.cmake after gui_tests.cmake (gpulab_png_check, GPULAB_GUI_OUT and
# the gpulab_*_test functions come from there).
if(NOT TARGET gpulab_png_check)
    return()
endif()

set(GPULAB_TENSOR_OUT ${GPULAB_GUI_OUT}/tensor)
set(GPULAB_TENSOR_CSV ${GPULAB_TENSOR_OUT}/tensor-cores-tensor.csv)
gpulab_export_test(tensor_export tensor-cores ${GPULAB_TENSOR_OUT} 3 ${GPULAB_TENSOR_CSV})
gpulab_png_test(tensor_png tensor_export ${GPULAB_TENSOR_OUT}/tensor-cores-tensor.png 64 1000 1000)
gpulab_png_test(tensor_window_png tensor_export ${GPULAB_TENSOR_OUT}/tensor-cores-window.png 200 1600 900)
# 32 lanes x (8 A + 4 B + 4 C + 4 D) elements, each a row; lane 5's first A element is A[1][2].
gpulab_grep_test(tensor_csv_lanes tensor_export ${GPULAB_TENSOR_CSV} -cE "^lane,FP16,[0-9]+,[ABCD],[0-7],[0-9]+,[0-9]+,measured here$" "^640")
gpulab_grep_test(tensor_csv_lane5 tensor_export ${GPULAB_TENSOR_CSV} -E "^lane,FP16,5,A,0," "^lane,FP16,5,A,0,1,2")
# The four formats of the typed number, a sweep row per format, accumulator and K (7 x 13), and the
# kernel checks: equal to cpu-scalar (0 outputs differ).
gpulab_grep_test(tensor_csv_formats tensor_export ${GPULAB_TENSOR_CSV} -cE "^format,(FP32|TF32|BF16|FP16),0.1,0x" "^4")
gpulab_grep_test(tensor_csv_sweep tensor_export ${GPULAB_TENSOR_CSV} -cE "^sweep,(FP32|TF32|BF16|FP16),(FP32|TF32|BF16|FP16),[0-9]+," "^91")
gpulab_grep_test(tensor_csv_check tensor_export ${GPULAB_TENSOR_CSV} -cE "^check,(FP16|BF16),64,64,64,0,128," "^2")
gpulab_grep_test(tensor_csv_model_note tensor_export ${GPULAB_TENSOR_CSV} -c "not a bit-exact model of a tensor core" "^1")

# The window: step 1 (the instruction's picture) with lane 9 picked; the formats step with 70000
# typed (FP16's infinity); the prompt of step 5 answered, so the dashed lines and the answer show.
gpulab_smoke_test(tensor_smoke tensor-cores "View=lane=9")
if(GPULAB_XVFB_RUN)
    set(png ${GPULAB_TENSOR_OUT}/formats.png)
    add_test(NAME gui.tensor_formats
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;tensor-cores;--script-keys;Right,Right,View=value=1e-6;--frames;60;--screenshot;${png}"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=typed 1e-06.*lesson=tensor-cores step=3 of 12" -DEXPECT_FILE=${png}
                     -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.tensor_formats PROPERTIES LABELS gui ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}"
                         FIXTURES_SETUP gui_tensor_formats TIMEOUT 120)
    gpulab_png_test(tensor_formats_png tensor_formats ${png} 200 1600 900)
    set(png ${GPULAB_TENSOR_OUT}/predict.png)
    add_test(NAME gui.tensor_predict
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--present;--present-scale;2;--lesson;tensor-cores;--script-keys;Right,Right,Right,Right,Idle,View=answer-first;--frames;60;--screenshot;${png}"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=answered 'FP32'.*lesson=tensor-cores step=5 of 12 presenting=yes" -DEXPECT_FILE=${png}
                     -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.tensor_predict PROPERTIES LABELS gui ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}"
                         FIXTURES_SETUP gui_tensor_predict TIMEOUT 120)
    gpulab_png_test(tensor_predict_png tensor_predict ${png} 200 1920 1080)
endif()
