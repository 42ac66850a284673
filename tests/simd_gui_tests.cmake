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
add_test(NAME gui.simd_export
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;simd-vs-mimd;--out;${GPULAB_SIMD_OUT};--quick"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=exported 3 files"
                 -DEXPECT_FILE=${GPULAB_SIMD_OUT}/simd-vs-mimd-simd.csv -P ${GPULAB_RUN_CHECK})
set_tests_properties(gui.simd_export PROPERTIES LABELS gui ENVIRONMENT "${GPULAB_NO_DISPLAY_ENV}"
                     FIXTURES_SETUP gui_simd_export TIMEOUT 180
                     SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")
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

if(GPULAB_XVFB_RUN)
    # Five steps forward: the predict prompt on the warp view, after its run.
    add_test(NAME gui.simd_smoke
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB_RUN};-a;-s;-screen 0 1920x1080x24;$<TARGET_FILE:gpulab>;--lesson;simd-vs-mimd;--frames;90;--script-keys;Right,Right,Right,Right,Right;--screenshot;${GPULAB_GUI_OUT}/simd-smoke.png"
                     -DEXPECT_RC=0 -DEXPECT_FILE=${GPULAB_GUI_OUT}/simd-smoke.png -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.simd_smoke PROPERTIES LABELS gui ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}"
                         FIXTURES_SETUP gui_simd_smoke TIMEOUT 180)
    add_test(NAME gui.simd_smoke_png COMMAND gpulab_png_check ${GPULAB_GUI_OUT}/simd-smoke.png 200 1600 900)
    set_tests_properties(gui.simd_smoke_png PROPERTIES LABELS gui FIXTURES_REQUIRED gui_simd_smoke)
endif()
