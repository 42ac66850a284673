# The SIMD-vs-MIMD lesson as a user meets it: a quick headless export (DISPLAY unset) writes the
# lesson PNG with its caption, the window PNG and the CSV (ISA and medians, timeline spans, a row
# per branch pattern with its theoretical and measured factor or the reason it was not measured);
# where xvfb-run exists, the GUI opens the lesson, steps to the warp view and saves a non-blank
# screenshot. Included from tests/app_tests.cmake after gui_tests.cmake (gpulab_png_check,
# GPULAB_GUI_OUT and the gpulab_*_test functions come from there).
if(NOT TARGET gpulab_png_check)
    return()
endif()

set(GPULAB_SIMD_OUT ${GPULAB_GUI_OUT}/simd)
set(GPULAB_SIMD_CSV ${GPULAB_SIMD_OUT}/simd-vs-mimd-simd.csv)
gpulab_export_test(simd_export simd-vs-mimd ${GPULAB_SIMD_OUT} 3 ${GPULAB_SIMD_CSV})
gpulab_png_test(simd_png simd_export ${GPULAB_SIMD_OUT}/simd-vs-mimd-simd.png 64 1000 600)
gpulab_png_test(simd_window_png simd_export ${GPULAB_SIMD_OUT}/simd-vs-mimd-window.png 200 1600 900)
# The CSV names the instruction set that ran, has timeline spans, and a row for every pattern.
gpulab_grep_test(simd_csv_isa simd_export ${GPULAB_SIMD_CSV} -E
                 "^simd,isa,[A-Za-z0-9+.-]+,[0-9]+ floats per instruction" "floats per instruction")
gpulab_grep_test(simd_csv_spans simd_export ${GPULAB_SIMD_CSV} -cE "^span,[0-9]+,-?[0-9]+," "[1-9][0-9]*")
gpulab_grep_test(simd_csv_patterns simd_export ${GPULAB_SIMD_CSV} -cE
                 "^pattern,[a-z0-9-]+,[0-9.]+,(not measured|[0-9.]+)," "^7")

# Five steps forward: the predict prompt on the warp view, after its run.
gpulab_smoke_test(simd_smoke simd-vs-mimd "Right,Right,Right,Right,Right")
