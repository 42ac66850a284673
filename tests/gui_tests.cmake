# The app as a user meets it: headless export writes non-blank PNGs and the CSVs with DISPLAY
# unset, for the activation lesson and for the latency lesson's size sweep; with no display the
# GUI explains and exits 1; an unwritable export folder is a clear message; and, where xvfb-run
# exists, the GUI renders each lesson and saves a non-blank screenshot.
find_library(GPULAB_STB_LIBRARY stb REQUIRED)
add_executable(gpulab_png_check ${CMAKE_CURRENT_LIST_DIR}/png_check.cpp)
target_link_libraries(gpulab_png_check PRIVATE ${GPULAB_STB_LIBRARY})

set(GPULAB_GUI_OUT ${CMAKE_CURRENT_BINARY_DIR}/gui-out)
# Made at configure time: a screenshot (--screenshot) does not create folders, and in a clean build
# the first test to run may be one that only writes a screenshot.
file(MAKE_DIRECTORY ${GPULAB_GUI_OUT})
set(GPULAB_RUN_CHECK ${CMAKE_CURRENT_LIST_DIR}/run_and_check.cmake)
# Empty DISPLAY / WAYLAND_DISPLAY: CTest cannot unset a variable, and gpulab treats empty as unset.
set(GPULAB_NO_DISPLAY_ENV "DISPLAY=" "WAYLAND_DISPLAY=" "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}")

# gui.<test>: a quick headless export of <lesson> into <out_dir> with DISPLAY unset; it must say
# "exported <files> files" and write <expect_file>. Sets up the fixture gui_<test> for the checks
# of what it wrote; skipped where no offscreen OpenGL context exists.
function(gpulab_export_test test lesson out_dir files expect_file)
    add_test(NAME gui.${test}
             COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;${lesson};--out;${out_dir};--quick"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=exported ${files} files" -DEXPECT_FILE=${expect_file}
                     -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.${test} PROPERTIES LABELS gui ENVIRONMENT "${GPULAB_NO_DISPLAY_ENV}"
                         FIXTURES_SETUP gui_${test} TIMEOUT 180
                         SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")
endfunction()

# gui.<test>: <png>, written by the fixture gui_<fixture>, has at least <min_colours> colours and
# <min_width> x <min_height> pixels (tests/png_check.cpp).
function(gpulab_png_test test fixture png min_colours min_width min_height)
    add_test(NAME gui.${test} COMMAND gpulab_png_check ${png} ${min_colours} ${min_width} ${min_height})
    set_tests_properties(gui.${test} PROPERTIES LABELS gui FIXTURES_REQUIRED gui_${fixture})
endfunction()

# gui.<test>: `grep <options> <regex> <file>` on a file written by the fixture gui_<fixture>
# succeeds and prints something matching <expect> (a count from -c, or the line).
function(gpulab_grep_test test fixture file options regex expect)
    add_test(NAME gui.${test}
             COMMAND ${CMAKE_COMMAND} "-DCMD=grep;${options};${regex};${file}"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=${expect}" -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.${test} PROPERTIES LABELS gui FIXTURES_REQUIRED gui_${fixture})
endfunction()

# gui.<test> and gui.<test>_png, where xvfb-run exists: the GUI opens <lesson> (empty: the first),
# presses <keys> (comma-separated, empty: none), saves a screenshot after 90 frames, and the
# screenshot is non-blank.
function(gpulab_smoke_test test lesson keys)
    if(NOT GPULAB_XVFB_RUN)
        return()
    endif()
    set(png ${GPULAB_GUI_OUT}/${test}.png)
    set(args "--frames;90;--screenshot;${png}")
    if(lesson)
        string(PREPEND args "--lesson;${lesson};")
    endif()
    if(keys)
        string(PREPEND args "--script-keys;${keys};")
    endif()
    add_test(NAME gui.${test}
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;${args}"
                     -DEXPECT_RC=0 -DEXPECT_FILE=${png} -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.${test} PROPERTIES LABELS gui ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}"
                         FIXTURES_SETUP gui_${test} TIMEOUT 180)
    gpulab_png_test(${test}_png ${test} ${png} 200 1600 900)
endfunction()

# Started without its data folder (as from a broken install, from the desktop menu), the GUI opens
# a window that says so instead of vanishing: exit 1, the sentence on stderr and on screen.
if(GPULAB_XVFB_RUN)
    set(png ${GPULAB_GUI_OUT}/startup_error.png)
    file(REMOVE ${png})
    add_test(NAME gui.startup_error
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--frames;10;--screenshot;${png}"
                     -DEXPECT_RC=1 "-DEXPECT_REGEX=holds no lessons/ and shaders/" -DEXPECT_FILE=${png}
                     -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.startup_error PROPERTIES LABELS gui ENVIRONMENT "GPULAB_DATA_DIR=${CMAKE_CURRENT_BINARY_DIR}/no-such-data"
                         FIXTURES_SETUP gui_startup_error TIMEOUT 120)
    gpulab_png_test(startup_error_png startup_error ${png} 100 1600 900)
endif()

gpulab_export_test(export elementwise-activations ${GPULAB_GUI_OUT}/export 5
                   ${GPULAB_GUI_OUT}/export/elementwise-activations-samples.csv)
gpulab_png_test(export_window_png export ${GPULAB_GUI_OUT}/export/elementwise-activations-window.png 200 1600 900)
gpulab_png_test(export_timing_png export ${GPULAB_GUI_OUT}/export/elementwise-activations-timing.png 64 600 300)
# One warp's loads of the real activation kernel traced on cuda-sim (issue 14 point 6).
gpulab_png_test(export_coalescing_png export ${GPULAB_GUI_OUT}/export/elementwise-activations-coalescing.png 64 1000
                450)
gpulab_grep_test(export_csv export ${GPULAB_GUI_OUT}/export/elementwise-activations-samples.csv -c "^cpu-scalar,"
                 "[0-9]")

# The latency lesson: a quick sweep (2^4 .. 2^16) headless, then the sweep PNG, the window PNG
# and the sweep CSV with its phase columns and a row per size and backend.
gpulab_export_test(latency_export latency-vs-throughput ${GPULAB_GUI_OUT}/latency 3
                   ${GPULAB_GUI_OUT}/latency/latency-vs-throughput-sweep.csv)
gpulab_png_test(latency_sweep_png latency_export ${GPULAB_GUI_OUT}/latency/latency-vs-throughput-sweep.png 64 600 400)
gpulab_png_test(latency_window_png latency_export ${GPULAB_GUI_OUT}/latency/latency-vs-throughput-window.png
                200 1600 900)
add_test(NAME gui.latency_sweep_csv
         COMMAND ${CMAKE_COMMAND} -DCSV=${GPULAB_GUI_OUT}/latency/latency-vs-throughput-sweep.csv -DMIN_EXP=4
                 -DMAX_EXP=16 -P ${CMAKE_CURRENT_LIST_DIR}/check_sweep_csv.cmake)
set_tests_properties(gui.latency_sweep_csv PROPERTIES LABELS gui FIXTURES_REQUIRED gui_latency_export)

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

# The GUI renders the first lesson, and the latency lesson (whose first step measures a sweep for
# its analogy; the frames wait for it).
gpulab_smoke_test(smoke "" "")
gpulab_smoke_test(latency_smoke latency-vs-throughput "")
# Leaving a step, or the lesson, stops the step's run (issues 25, 38). The activations lesson's
# steps each measure another activation; its last step ("Make it big", 2^26 floats) runs for
# seconds. Right x5 walks there (each Right stops the run of the step it leaves); then Left (the
# window) or 2, which opens the second lesson (presenter mode), stops the long run. The shell prints
# each stop with its delay. How soon is a speed, and a test must not depend on the machine being
# idle (issue 38): these tests prove the stop reaches the run and ends it (a hang of 10 s or more
# fails), tests/test_cancel.cpp proves which loops ask for it, and `gpulab bench --suite stop`
# measures the delay (docs/benchmarks.md). Label "timing": a sanitizer build is too slow for the
# long step, so scripts/ci-sanitizers.sh leaves these out. (A step that asks for the very run
# already going, as the latency lesson's sweep steps do, keeps it: LessonView::still_wants_running_job.)
if(GPULAB_XVFB_RUN)
    set(gpulab_slow_stop "stopped [0-9][0-9][0-9][0-9][0-9]+ ms later")
    add_test(NAME gui.leaving_step_stops_run
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;elementwise-activations;--script-keys;Right,Right,Right,Right,Right,Left,Idle;--frames;40"
                     -DEXPECT_RC=0
                     "-DEXPECT_REGEX=left the step: its run \\(activations, .*\\) stopped [0-9]+ ms later.*lesson=elementwise-activations step=5"
                     "-DREJECT_REGEX=${gpulab_slow_stop}" -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.leaving_step_stops_run PROPERTIES LABELS "gui;timing"
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}" TIMEOUT 180)
    add_test(NAME gui.leaving_lesson_stops_run
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--present;--lesson;elementwise-activations;--script-keys;Right,Right,Right,Right,Right,2,Idle;--frames;40"
                     -DEXPECT_RC=0
                     "-DEXPECT_REGEX=left the step: its run \\(activations, .*\\) stopped [0-9]+ ms later.*lesson=conv-sliding-window step=1"
                     "-DREJECT_REGEX=${gpulab_slow_stop}" -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.leaving_lesson_stops_run PROPERTIES LABELS "gui;timing"
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}" TIMEOUT 180)
    # A step whose settings this session has measured shows that result at once, without a run
    # (core/measure/result_cache.h). SIMD vs MIMD: steps 1, 2 and 4 all measure sigmoid over 2^18
    # floats, step 3 ReLU over 2^24: four steps, two runs. Each key waits (Idle) for the run before,
    # so a slow build (sanitizers) cannot leave a run to be stopped and counted twice. Convolution: step 4 shows Sobel x
    # again after step 3's sharpen, so steps 1 to 4 take two runs. "runs=" counts the jobs accepted.
    add_test(NAME gui.cached_step_shows_without_running
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;simd-vs-mimd;--script-keys;Idle,Right,Idle,Right,Idle,Right,Idle;--frames;40"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=lesson=simd-vs-mimd step=4 of [0-9]+ .* runs=2" -P ${GPULAB_RUN_CHECK})
    add_test(NAME gui.cached_conv_step_shows_without_running
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;conv-sliding-window;--script-keys;Idle,Right,Right,Idle,Right,Idle;--frames;40"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=lesson=conv-sliding-window step=4 of [0-9]+ .* runs=2" -P ${GPULAB_RUN_CHECK})
    # Lesson > Measure every step now, before class: the walk measures what each step shows (the
    # convolution lesson: 8 runs, step 1's already measured at start; the trained step has two, its
    # learned filters and a layer of their shape), ends back at step 1, and then every step entered
    # in class shows its results without a run: still 8 after all ten.
    add_test(NAME gui.measure_every_step
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;conv-sliding-window;--script-keys;Idle,MeasureAll,Idle,Right,Right,Right,Right,Right,Right,Right,Right,Right,Idle;--frames;90"
                     -DEXPECT_RC=0
                     "-DEXPECT_REGEX=measured every step of conv-sliding-window: 7 runs in .*lesson=conv-sliding-window step=10 of 10 .* runs=8"
                     "-DREJECT_REGEX=measuring every step stopped" -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.cached_step_shows_without_running gui.cached_conv_step_shows_without_running
                         gui.measure_every_step PROPERTIES LABELS gui ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}" TIMEOUT 180)
endif()

# F12 in the window, as a user presses it once the first measurement is done, then again at once:
# the pictures are encoded and written in the background (app/shell/background_export.h), the
# second press is refused with a sentence while the first is written, and the result line comes
# when the files are on disk (the last frame waits for it). The files land in the working folder's
# gpulab-export/, emptied first so that an earlier run's files cannot pass for this one's.
if(GPULAB_XVFB_RUN)
    set(dir ${GPULAB_GUI_OUT}/f12)
    file(MAKE_DIRECTORY ${dir})
    add_test(NAME gui.f12_export_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${dir}/gpulab-export ${dir}/f12.png)
    set_tests_properties(gui.f12_export_clean PROPERTIES LABELS gui FIXTURES_SETUP gui_f12_clean)
    add_test(NAME gui.f12_export
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;elementwise-activations;--script-keys;Idle,F12,F12;--frames;60;--screenshot;${dir}/f12.png"
                     -DEXPECT_RC=0
                     "-DEXPECT_REGEX=Not exported again: the last export is still being written.*exported 5 files to .*/f12/gpulab-export"
                     -DEXPECT_FILE=${dir}/gpulab-export/elementwise-activations-window.png -P ${GPULAB_RUN_CHECK})
    # The writer is held 1.5 s (a test option), so the second F12 surely comes while it runs.
    set_tests_properties(gui.f12_export PROPERTIES LABELS gui WORKING_DIRECTORY ${dir}
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};GPULAB_TEST_EXPORT_HOLD_MS=1500" FIXTURES_REQUIRED gui_f12_clean
                         FIXTURES_SETUP gui_f12_export TIMEOUT 180)
    gpulab_png_test(f12_export_screenshot_png f12_export ${dir}/f12.png 200 1600 900)
    gpulab_png_test(f12_export_window_png f12_export ${dir}/gpulab-export/elementwise-activations-window.png 200 1600 900)
    gpulab_png_test(f12_export_timing_png f12_export ${dir}/gpulab-export/elementwise-activations-timing.png 64 600 300)
    gpulab_png_test(f12_export_coalescing_png f12_export
                    ${dir}/gpulab-export/elementwise-activations-coalescing.png 64 1000 450)
    gpulab_grep_test(f12_export_csv f12_export ${dir}/gpulab-export/elementwise-activations-samples.csv -c
                     "^cpu-scalar," "[0-9]")
endif()
# The window remembers the palette and the UI scale (issue 41, item 8): F8 and + in one run write
# settings.toml in the test's own config folder, the next run starts with them; a broken file is
# one sentence and the defaults, never a failed start.
if(GPULAB_XVFB_RUN)
    set(dir ${GPULAB_GUI_OUT}/settings)
    add_test(NAME gui.settings_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${dir})
    set_tests_properties(gui.settings_clean PROPERTIES LABELS gui FIXTURES_SETUP gui_settings_clean)
    add_test(NAME gui.settings_written
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;elementwise-activations;--script-keys;F8,+;--frames;30"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=palette=colour-blind ui_scale=1.25"
                     -DEXPECT_FILE=${dir}/config/gpulab/settings.toml -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.settings_written PROPERTIES LABELS gui FIXTURES_REQUIRED gui_settings_clean
                         FIXTURES_SETUP gui_settings_written
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};XDG_CONFIG_HOME=${dir}/config")
    add_test(NAME gui.settings_remembered
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;elementwise-activations;--script-keys;Idle;--frames;20"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=palette=colour-blind ui_scale=1.25" -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.settings_remembered PROPERTIES LABELS gui FIXTURES_REQUIRED gui_settings_written
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};XDG_CONFIG_HOME=${dir}/config")
    file(MAKE_DIRECTORY ${GPULAB_GUI_OUT}/settings-broken/gpulab)
    file(WRITE ${GPULAB_GUI_OUT}/settings-broken/gpulab/settings.toml "palette = \"colour-blind\nui_scale = [\n")
    add_test(NAME gui.settings_broken
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;elementwise-activations;--script-keys;Idle;--frames;20"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=palette=normal ui_scale=1.00.*The settings file .*settings.toml could not be read \\(line 1"
                     -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.settings_broken PROPERTIES LABELS gui
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};XDG_CONFIG_HOME=${GPULAB_GUI_OUT}/settings-broken")
endif()
if(NOT GPULAB_XVFB_RUN)
    message(STATUS "gpulab: xvfb-run not found, the GUI smoke tests are not registered")
endif()
# Keyboard-only use (issue 41, item 8; app/shell/keyboard_focus.h). Tab walks the step text's
# controls and Space presses the one in the ring: the greyed-out Back is passed over, so two Tabs
# and Space press Next whether the text has parts (the part arrow comes first) or not. With the
# controls holding the keys, the arrows move between controls instead of stepping; Escape hands
# them back, and Right steps again.
if(GPULAB_XVFB_RUN)
    add_test(NAME gui.keyboard_tab_and_space_press_next
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;elementwise-activations;--script-keys;Tab,Tab,Space,Wait;--frames;40"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=step=2 of 6 .*keys=Lesson" -P ${GPULAB_RUN_CHECK})
    add_test(NAME gui.keyboard_arrows_stay_with_controls_until_escape
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;elementwise-activations;--script-keys;F6,F6,Right,Right,Space,Escape,Right,Wait;--frames;40"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=step=2 of 6 .*keys=lesson" -P ${GPULAB_RUN_CHECK})
    add_test(NAME gui.keyboard_holds_keys_after_f6
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;elementwise-activations;--script-keys;F6,F6,Right,Space,Wait;--frames;40"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=step=1 of 6 .*keys=Controls" -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.keyboard_tab_and_space_press_next gui.keyboard_arrows_stay_with_controls_until_escape
                         gui.keyboard_holds_keys_after_f6
                         PROPERTIES LABELS gui ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}")
endif()
