# The SIMD-vs-MIMD lesson as a user meets it: a quick headless export (DISPLAY unset) writes the
# lesson PNG with its caption, the window PNG and the CSV (ISA and medians, timeline spans, a row
# per branch pattern with its theoretical and measured factor or the reason it was not measured);
# where xvfb-run exists, the GUI opens the lesson, steps to the warp view and saves a non-blank
# screenshot. Included from tests/app_tests.cmake after gui_tests.cmake (gpulab_png_check,
# GPULAB_GUI_OUT, GPULAB_RUN_CHECK and GPULAB_NO_DISPLAY_ENV come from there).
if(NOT TARGET gpulab_png_check)
    return()
endif()

set(GPULAB_SIMD_OUT ${GPULAB_GUI_OUT}/simd)
gpulab_export_test(simd_export simd-vs-mimd ${GPULAB_SIMD_OUT} 3 ${GPULAB_SIMD_OUT}/simd-vs-mimd-simd.csv)
add_test(NAME gui.simd_png
         COMMAND gpulab_png_check ${GPULAB_SIMD_OUT}/simd-vs-mimd-simd.png 64 1000 600)
add_test(NAME gui.simd_window_png
         COMMAND gpulab_png_check ${GPULAB_SIMD_OUT}/simd-vs-mimd-window.png 200 1600 900)
# The CSV names the instruction set that ran, has timeline spans, and a row for every pattern.
add_test(NAME gui.simd_csv_isa
         COMMAND ${CMAKE_COMMAND} "-DCMD=grep;-E;^simd,isa,[A-Za-z0-9+.-]+,[0-9]+ floats per instruction;${GPULAB_SIMD_OUT}/simd-vs-mimd-simd.csv"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=floats per instruction" -P ${GPULAB_RUN_CHECK})
add_test(NAME gui.simd_csv_spans
         COMMAND ${CMAKE_COMMAND} "-DCMD=grep;-cE;^span,[0-9]+,-?[0-9]+,;${GPULAB_SIMD_OUT}/simd-vs-mimd-simd.csv"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=[1-9][0-9]*" -P ${GPULAB_RUN_CHECK})
add_test(NAME gui.simd_csv_patterns
         COMMAND ${CMAKE_COMMAND} "-DCMD=grep;-cE;^pattern,[a-z0-9-]+,[0-9.]+,(not measured|[0-9.]+),;${GPULAB_SIMD_OUT}/simd-vs-mimd-simd.csv"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=^7" -P ${GPULAB_RUN_CHECK})
set_tests_properties(gui.simd_png gui.simd_window_png gui.simd_csv_isa gui.simd_csv_spans gui.simd_csv_patterns
                     PROPERTIES LABELS gui FIXTURES_REQUIRED gui_simd_export)

# Five steps forward: the predict prompt on the warp view, after its run.
gpulab_smoke_test(simd_smoke simd-vs-mimd "Right,Right,Right,Right,Right")
