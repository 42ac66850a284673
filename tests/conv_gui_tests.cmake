# The convolution lesson as a user meets it: a quick headless export (DISPLAY unset) writes the
# lesson PNG (input, filter, output, every backend's timing, a caption naming the machine), the
# window PNG and the CSV (a row per backend: median, min, max, samples, GFLOP/s, implementation,
# verdict); where xvfb-run exists, the GUI opens the lesson, steps to the "all at once" view and
# saves a non-blank screenshot. Included from tests/app_tests.cmake after gui_tests.cmake
# (gpulab_png_check, GPULAB_GUI_OUT, GPULAB_RUN_CHECK and GPULAB_NO_DISPLAY_ENV come from there).
if(NOT TARGET gpulab_png_check)
    return()
endif()

set(GPULAB_CONV_OUT ${GPULAB_GUI_OUT}/conv)
gpulab_export_test(conv_export conv-sliding-window ${GPULAB_CONV_OUT} 3 ${GPULAB_CONV_OUT}/conv-sliding-window-conv.csv)
add_test(NAME gui.conv_png
         COMMAND gpulab_png_check ${GPULAB_CONV_OUT}/conv-sliding-window-conv.png 64 1000 500)
add_test(NAME gui.conv_window_png
         COMMAND gpulab_png_check ${GPULAB_CONV_OUT}/conv-sliding-window-window.png 200 1600 900)
# The CSV has the header and a measured, matching row for the plain loop (the reference) and the
# parallel CPU backend, each with a GFLOP/s figure and an implementation string.
add_test(NAME gui.conv_csv_header
         COMMAND ${CMAKE_COMMAND} "-DCMD=grep;-c;^backend,median_ns,min_ns,max_ns,samples,gflops,implementation,verdict$;${GPULAB_CONV_OUT}/conv-sliding-window-conv.csv"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=^1" -P ${GPULAB_RUN_CHECK})
add_test(NAME gui.conv_csv_rows
         COMMAND ${CMAKE_COMMAND} "-DCMD=grep;-cE;^cpu-(scalar|parallel),[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9.]+,[^,]+.*match;${GPULAB_CONV_OUT}/conv-sliding-window-conv.csv"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=^2" -P ${GPULAB_RUN_CHECK})
add_test(NAME gui.conv_csv_caption
         COMMAND ${CMAKE_COMMAND} "-DCMD=grep;-c;^# CPU: ;${GPULAB_CONV_OUT}/conv-sliding-window-conv.csv"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=^1" -P ${GPULAB_RUN_CHECK})
set_tests_properties(gui.conv_png gui.conv_window_png gui.conv_csv_header gui.conv_csv_rows gui.conv_csv_caption
                     PROPERTIES LABELS gui FIXTURES_REQUIRED gui_conv_export)

# Four steps forward: the "all at once" view after its run.
gpulab_smoke_test(conv_smoke conv-sliding-window "Right,Right,Right,Right")
