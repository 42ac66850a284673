# The app as a user meets it: headless export writes non-blank PNGs and the CSVs with DISPLAY
# unset, for the activation lesson and for the latency lesson's size sweep; with no display the
# GUI explains and exits 1; an unwritable export folder is a clear message; and, where xvfb-run
# exists, the GUI renders each lesson and saves a non-blank screenshot.
find_library(GPULAB_STB_LIBRARY stb REQUIRED)
add_executable(gpulab_png_check ${CMAKE_CURRENT_LIST_DIR}/png_check.cpp)
target_link_libraries(gpulab_png_check PRIVATE ${GPULAB_STB_LIBRARY})

set(GPULAB_GUI_OUT ${CMAKE_CURRENT_BINARY_DIR}/gui-out)
set(GPULAB_RUN_CHECK ${CMAKE_CURRENT_LIST_DIR}/run_and_check.cmake)
# Empty DISPLAY / WAYLAND_DISPLAY: CTest cannot unset a variable, and gpulab treats empty as unset.
set(GPULAB_NO_DISPLAY_ENV "DISPLAY=" "WAYLAND_DISPLAY=" "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}")

add_test(NAME gui.export
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;elementwise-activations;--out;${GPULAB_GUI_OUT}/export;--quick"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=exported 4 files"
                 -DEXPECT_FILE=${GPULAB_GUI_OUT}/export/elementwise-activations-samples.csv -P ${GPULAB_RUN_CHECK})
set_tests_properties(gui.export PROPERTIES LABELS gui ENVIRONMENT "${GPULAB_NO_DISPLAY_ENV}"
                     FIXTURES_SETUP gui_export TIMEOUT 180
                     SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")
add_test(NAME gui.export_window_png
         COMMAND gpulab_png_check ${GPULAB_GUI_OUT}/export/elementwise-activations-window.png 200 1600 900)
add_test(NAME gui.export_timing_png
         COMMAND gpulab_png_check ${GPULAB_GUI_OUT}/export/elementwise-activations-timing.png 64 600 300)
add_test(NAME gui.export_csv
         COMMAND ${CMAKE_COMMAND} "-DCMD=grep;-c;^cpu-scalar,;${GPULAB_GUI_OUT}/export/elementwise-activations-samples.csv"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=[0-9]" -P ${GPULAB_RUN_CHECK})
set_tests_properties(gui.export_window_png gui.export_timing_png gui.export_csv PROPERTIES
                     LABELS gui FIXTURES_REQUIRED gui_export)

# The latency lesson: a quick sweep (2^4 .. 2^16) headless, then the sweep PNG, the window PNG
# and the sweep CSV with its phase columns and a row per size and backend.
add_test(NAME gui.latency_export
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;latency-vs-throughput;--out;${GPULAB_GUI_OUT}/latency;--quick"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=exported 3 files"
                 -DEXPECT_FILE=${GPULAB_GUI_OUT}/latency/latency-vs-throughput-sweep.csv -P ${GPULAB_RUN_CHECK})
set_tests_properties(gui.latency_export PROPERTIES LABELS gui ENVIRONMENT "${GPULAB_NO_DISPLAY_ENV}"
                     FIXTURES_SETUP gui_latency_export TIMEOUT 180
                     SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")
add_test(NAME gui.latency_sweep_png
         COMMAND gpulab_png_check ${GPULAB_GUI_OUT}/latency/latency-vs-throughput-sweep.png 64 600 400)
add_test(NAME gui.latency_window_png
         COMMAND gpulab_png_check ${GPULAB_GUI_OUT}/latency/latency-vs-throughput-window.png 200 1600 900)
add_test(NAME gui.latency_sweep_csv
         COMMAND ${CMAKE_COMMAND} -DCSV=${GPULAB_GUI_OUT}/latency/latency-vs-throughput-sweep.csv -DMIN_EXP=4
                 -DMAX_EXP=16 -P ${CMAKE_CURRENT_LIST_DIR}/check_sweep_csv.cmake)
set_tests_properties(gui.latency_sweep_png gui.latency_window_png gui.latency_sweep_csv PROPERTIES
                     LABELS gui FIXTURES_REQUIRED gui_latency_export)

add_test(NAME gui.export_unwritable
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--out;/proc/gpulab-cannot-write-here;--quick"
                 -DEXPECT_RC=1 "-DEXPECT_REGEX=cannot create export folder /proc/gpulab-cannot-write-here"
                 -P ${GPULAB_RUN_CHECK})
set_tests_properties(gui.export_unwritable PROPERTIES LABELS gui ENVIRONMENT "${GPULAB_NO_DISPLAY_ENV}"
                     SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")

add_test(NAME gui.no_display
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;--frames;5" -DEXPECT_RC=1
                 "-DEXPECT_REGEX=cannot open a window.*gpulab export --lesson elementwise-activations --out DIR"
                 -P ${GPULAB_RUN_CHECK})
set_tests_properties(gui.no_display PROPERTIES LABELS gui ENVIRONMENT "${GPULAB_NO_DISPLAY_ENV}")

find_program(GPULAB_XVFB_RUN xvfb-run)
if(GPULAB_XVFB_RUN)
    add_test(NAME gui.smoke
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB_RUN};-a;-s;-screen 0 1920x1080x24;$<TARGET_FILE:gpulab>;--frames;60;--screenshot;${GPULAB_GUI_OUT}/smoke.png"
                     -DEXPECT_RC=0 -DEXPECT_FILE=${GPULAB_GUI_OUT}/smoke.png -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.smoke PROPERTIES LABELS gui ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}"
                         FIXTURES_SETUP gui_smoke TIMEOUT 120)
    add_test(NAME gui.smoke_png COMMAND gpulab_png_check ${GPULAB_GUI_OUT}/smoke.png 200 1600 900)
    set_tests_properties(gui.smoke_png PROPERTIES LABELS gui FIXTURES_REQUIRED gui_smoke)
    # The latency lesson's first step measures a sweep for its analogy; --frames waits for it.
    add_test(NAME gui.latency_smoke
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB_RUN};-a;-s;-screen 0 1920x1080x24;$<TARGET_FILE:gpulab>;--lesson;latency-vs-throughput;--frames;60;--screenshot;${GPULAB_GUI_OUT}/latency-smoke.png"
                     -DEXPECT_RC=0 -DEXPECT_FILE=${GPULAB_GUI_OUT}/latency-smoke.png -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.latency_smoke PROPERTIES LABELS gui ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}"
                         FIXTURES_SETUP gui_latency_smoke TIMEOUT 120)
    add_test(NAME gui.latency_smoke_png COMMAND gpulab_png_check ${GPULAB_GUI_OUT}/latency-smoke.png 200 1600 900)
    set_tests_properties(gui.latency_smoke_png PROPERTIES LABELS gui FIXTURES_REQUIRED gui_latency_smoke)
else()
    message(STATUS "gpulab: xvfb-run not found, the GUI smoke test is not registered")
endif()
