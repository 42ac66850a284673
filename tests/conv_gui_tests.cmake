# The convolution lesson as a user meets it: a quick headless export (DISPLAY unset) writes the
# lesson PNG (input, filter, output, every backend's timing, a caption naming the machine), the
# window PNG and the CSV (a row per backend: median, min, max, samples, GFLOP/s, implementation,
# verdict); where xvfb-run exists, the GUI opens the lesson, steps to the "all at once" view and
# saves a non-blank screenshot. Included from tests/app_tests.cmake after gui_tests.cmake
# (gpulab_png_check, GPULAB_GUI_OUT and the gpulab_*_test functions come from there).
if(NOT TARGET gpulab_png_check)
    return()
endif()

set(GPULAB_CONV_OUT ${GPULAB_GUI_OUT}/conv)
set(GPULAB_CONV_CSV ${GPULAB_CONV_OUT}/conv-sliding-window-conv.csv)
gpulab_export_test(conv_export conv-sliding-window ${GPULAB_CONV_OUT} 4 ${GPULAB_CONV_CSV})
gpulab_png_test(conv_png conv_export ${GPULAB_CONV_OUT}/conv-sliding-window-conv.png 64 1000 500)
# One block of the real tiled kernel traced on cuda-sim (issue 14 point 6): non-blank, full size.
gpulab_png_test(conv_block_trace_png conv_export ${GPULAB_CONV_OUT}/conv-sliding-window-block-trace.png 64 1000 600)
gpulab_png_test(conv_window_png conv_export ${GPULAB_CONV_OUT}/conv-sliding-window-window.png 200 1600 900)
# The CSV has the header and a measured, matching row for the plain loop (the reference) and the
# parallel CPU backend, each with a GFLOP/s figure and an implementation string.
gpulab_grep_test(conv_csv_header conv_export ${GPULAB_CONV_CSV} -c
                 "^backend,median_ns,min_ns,max_ns,samples,gflops,implementation,verdict,source$" "^1")
gpulab_grep_test(conv_csv_rows conv_export ${GPULAB_CONV_CSV} -cE
                 "^cpu-(scalar|parallel),[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9.]+,[^,]+.*match" "^2")
gpulab_grep_test(conv_csv_caption conv_export ${GPULAB_CONV_CSV} -c "^# CPU: " "^1")

# Four steps forward: the "all at once" view after its run.
gpulab_smoke_test(conv_smoke conv-sliding-window "Right,Right,Right,Right")
