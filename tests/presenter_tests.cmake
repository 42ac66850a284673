# Presenter mode and the all-steps export, through the gpulab binary (the state machine itself is
# tests/test_presenter.cpp). Included from app_tests.cmake after gui_tests.cmake, whose
# gpulab_png_check, GPULAB_GUI_OUT, GPULAB_RUN_CHECK and GPULAB_NO_DISPLAY_ENV it reuses.
set(GPULAB_PRESENT_OUT ${GPULAB_GUI_OUT}/presenter)

# export --all-steps, for every built-in lesson: one picture per step, every one non-blank and
# different from the rest, each with a CSV of the measurement on screen at that step (its table
# header and at least one row), plus the lesson's JSON record naming the hardware. Entries are
# lesson id, step count and the header of that lesson's CSV table.
set(GPULAB_STEP_EXPORTS
    "elementwise-activations|6|^backend,available,ran,"
    "conv-sliding-window|10|^backend,median_ns,"
    "simd-vs-mimd|10|^kind,name,value,"
    "latency-vs-throughput|5|^elements,backend,"
    "tensor-cores|12|^kind,input,lane,matrix,")
foreach(entry IN LISTS GPULAB_STEP_EXPORTS)
    string(REPLACE "|" ";" fields "${entry}")
    list(GET fields 0 id)
    list(GET fields 1 steps)
    list(GET fields 2 header)
    set(dir ${GPULAB_PRESENT_OUT}/steps-${id})
    add_test(NAME presenter.export_all_steps.${id}
             COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;${id};--all-steps;--quick;--check-layout;--out;${dir}"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=step 1 of ${steps}: .*step pictures, their CSVs and ${id}.json"
                     -DEXPECT_FILE=${dir}/${id}.json -P ${GPULAB_RUN_CHECK})
    set_tests_properties(presenter.export_all_steps.${id} PROPERTIES LABELS "presenter;gui"
                         ENVIRONMENT "${GPULAB_NO_DISPLAY_ENV}" FIXTURES_SETUP presenter_steps_${id} TIMEOUT 240
                         SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")
    add_test(NAME presenter.export_step_files.${id}
             COMMAND ${CMAKE_COMMAND} -DDIR=${dir} -DPREFIX=${id} -DPNG_CHECK=$<TARGET_FILE:gpulab_png_check>
                     -DMIN_COUNT=${steps} -DWIDTH=1600 -DHEIGHT=900 "-DCSV_HEADER=${header}"
                     -P ${CMAKE_CURRENT_LIST_DIR}/check_step_pngs.cmake)
    add_test(NAME presenter.export_json.${id}
             COMMAND ${CMAKE_COMMAND} "-DCMD=cat;${dir}/${id}.json" -DEXPECT_RC=0
                     "-DEXPECT_REGEX=\"step_csv\".*\"csv\": \"${id}-step-01.csv\".*\"hardware\":"
                     -P ${GPULAB_RUN_CHECK})
    set_tests_properties(presenter.export_step_files.${id} presenter.export_json.${id} PROPERTIES
                         LABELS "presenter;gui" FIXTURES_REQUIRED presenter_steps_${id})
endforeach()

# The presenter theme: the presenter layout at 1920x1080, still one distinct picture per step.
add_test(NAME presenter.export_theme
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;elementwise-activations;--all-steps;--quick;--theme;presenter;--size;1920x1080;--out;${GPULAB_PRESENT_OUT}/theme"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=step pictures, their CSVs" -P ${GPULAB_RUN_CHECK})
set_tests_properties(presenter.export_theme PROPERTIES LABELS "presenter;gui" ENVIRONMENT "${GPULAB_NO_DISPLAY_ENV}"
                     FIXTURES_SETUP presenter_theme TIMEOUT 240 SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")
add_test(NAME presenter.export_theme_pngs
         COMMAND ${CMAKE_COMMAND} -DDIR=${GPULAB_PRESENT_OUT}/theme -DPREFIX=elementwise-activations
                 -DPNG_CHECK=$<TARGET_FILE:gpulab_png_check> -DMIN_COUNT=2 -DWIDTH=1920 -DHEIGHT=1080
                 -P ${CMAKE_CURRENT_LIST_DIR}/check_step_pngs.cmake)
set_tests_properties(presenter.export_theme_pngs PROPERTIES LABELS "presenter;gui" FIXTURES_REQUIRED presenter_theme)

# Bad input: one clear line and the usage exit code, display or not.
add_test(NAME presenter.bad_script_key
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;--script-keys;Right,Jump" -DEXPECT_RC=2
                 "-DEXPECT_REGEX=--script-keys: unknown key 'Jump'" -P ${GPULAB_RUN_CHECK})
add_test(NAME presenter.bad_theme
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--out;${GPULAB_PRESENT_OUT}/x;--theme;loud"
                 -DEXPECT_RC=2 "-DEXPECT_REGEX=--theme" -P ${GPULAB_RUN_CHECK})
add_test(NAME presenter.bad_scale
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;--present;--present-scale;4" -DEXPECT_RC=2
                 "-DEXPECT_REGEX=--present-scale" -P ${GPULAB_RUN_CHECK})
set_tests_properties(presenter.bad_script_key presenter.bad_theme presenter.bad_scale PROPERTIES
                     LABELS presenter ENVIRONMENT "${GPULAB_NO_DISPLAY_ENV}")

if(GPULAB_XVFB_RUN)
    set(xvfb "${GPULAB_XVFB}")
    # Start presenting, step twice, blank and wake, leave with Escape: the keys go through the
    # same queue as real presses, and the final state is printed and matched.
    add_test(NAME presenter.gui_keys
             COMMAND ${CMAKE_COMMAND} "-DCMD=${xvfb};$<TARGET_FILE:gpulab>;--present;--script-keys;Right,Right,B,B,Escape;--frames;60;--screenshot;${GPULAB_PRESENT_OUT}/keys.png"
                     -DEXPECT_RC=0
                     "-DEXPECT_REGEX=presenter lesson=elementwise-activations step=3 of [0-9]+ presenting=no blanked=no help=no"
                     -DEXPECT_FILE=${GPULAB_PRESENT_OUT}/keys.png -P ${GPULAB_RUN_CHECK})
    # The step text in the window, a page at a time (issue 41): the convolution's step 5 is longer
    # than its panel at 1600 x 900; Up on the first part stays there, Down turns to the next part,
    # Up back.
    add_test(NAME presenter.window_text_parts
             COMMAND ${CMAKE_COMMAND} "-DCMD=${xvfb};$<TARGET_FILE:gpulab>;--lesson;conv-sliding-window;--script-keys;Right,Right,Right,Right,Up,Down,Up,Down;--frames;40;--screenshot;${GPULAB_PRESENT_OUT}/text-parts.png"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=step=5 of [0-9]+ presenting=no .* text_part=2 of [2-9]"
                     -DEXPECT_FILE=${GPULAB_PRESENT_OUT}/text-parts.png -P ${GPULAB_RUN_CHECK})
    # A clicker (Page Down, Page Up), the key map, at 2x; stays in presenter mode.
    add_test(NAME presenter.gui_clicker_help
             COMMAND ${CMAKE_COMMAND} "-DCMD=${xvfb};$<TARGET_FILE:gpulab>;--present;--present-scale;2;--script-keys;PageDown,PageDown,PageUp,?;--frames;60;--screenshot;${GPULAB_PRESENT_OUT}/help.png"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=step=2 of [0-9]+ presenting=yes blanked=no help=yes"
                     -DEXPECT_FILE=${GPULAB_PRESENT_OUT}/help.png -P ${GPULAB_RUN_CHECK})
    # An out-of-range monitor is a clear line and the primary monitor, not a failure.
    add_test(NAME presenter.gui_monitor_fallback
             COMMAND ${CMAKE_COMMAND} "-DCMD=${xvfb};$<TARGET_FILE:gpulab>;--present;--monitor;5;--frames;5"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=--monitor 5: 1 monitor is connected.*using the primary monitor"
                     -P ${GPULAB_RUN_CHECK})
    set_tests_properties(presenter.gui_keys presenter.window_text_parts presenter.gui_clicker_help presenter.gui_monitor_fallback PROPERTIES
                         LABELS "presenter;gui" ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}"
                         FIXTURES_SETUP presenter_gui TIMEOUT 120)
    # The presenter view (notes, next step, timer) in its own window, forced on (Xvfb has one
    # monitor; with two it opens by itself on the one the slide is not on); on the slide's own
    # screen it is a window of half its size in the bottom-right corner, kept above the slide. P, Z
    # and Down are pressed on the way. Both windows' pictures are written and checked.
    add_test(NAME presenter.gui_presenter_view
             COMMAND ${CMAKE_COMMAND} "-DCMD=${xvfb};$<TARGET_FILE:gpulab>;--present;--presenter-view;on;--lesson;conv-sliding-window;--script-keys;Right,P,Z,Down,Z;--frames;60;--screenshot;${GPULAB_PRESENT_OUT}/view.png"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=step=2 of [0-9]+ presenting=yes"
                     -DEXPECT_FILE=${GPULAB_PRESENT_OUT}/view-presenter-view.png -P ${GPULAB_RUN_CHECK})
    set_tests_properties(presenter.gui_presenter_view PROPERTIES
                         LABELS "presenter;gui" ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}"
                         FIXTURES_SETUP presenter_gui_view TIMEOUT 120)
    add_test(NAME presenter.gui_presenter_view_png
             COMMAND gpulab_png_check ${GPULAB_PRESENT_OUT}/view-presenter-view.png 100 640 360)
    set_tests_properties(presenter.gui_presenter_view_png PROPERTIES LABELS "presenter;gui"
                         FIXTURES_REQUIRED presenter_gui_view)
    # Two monitors (Xorg's dummy driver, tests/two_monitor_run.sh): presenter mode opens the
    # presenter view by itself on the monitor the slide is not on, at that monitor's size.
    add_test(NAME presenter.gui_two_monitors_clean
             COMMAND ${CMAKE_COMMAND} -E rm -f ${GPULAB_PRESENT_OUT}/two.png ${GPULAB_PRESENT_OUT}/two-presenter-view.png)
    set_tests_properties(presenter.gui_two_monitors_clean PROPERTIES LABELS "presenter;gui"
                         FIXTURES_SETUP presenter_two_clean)
    add_test(NAME presenter.gui_two_monitors
             COMMAND ${CMAKE_COMMAND} "-DCMD=sh;${PROJECT_SOURCE_DIR}/tests/two_monitor_run.sh;$<TARGET_FILE:gpulab>;--present;--lesson;conv-sliding-window;--script-keys;Right,N;--frames;30;--screenshot;${GPULAB_PRESENT_OUT}/two.png"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=step=2 of [0-9]+ presenting=yes"
                     -DEXPECT_FILE=${GPULAB_PRESENT_OUT}/two-presenter-view.png -P ${GPULAB_RUN_CHECK})
    set_tests_properties(presenter.gui_two_monitors PROPERTIES
                         LABELS "presenter;gui" ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}"
                         SKIP_REGULAR_EXPRESSION "two_monitor_run.sh: .*skipped" TIMEOUT 120
                         FIXTURES_REQUIRED presenter_two_clean)
    add_test(NAME presenter.gui_keys_png COMMAND gpulab_png_check ${GPULAB_PRESENT_OUT}/keys.png 200 1600 900)
    add_test(NAME presenter.gui_help_png COMMAND gpulab_png_check ${GPULAB_PRESENT_OUT}/help.png 200 1920 1080)
    set_tests_properties(presenter.gui_keys_png presenter.gui_help_png PROPERTIES LABELS "presenter;gui"
                         FIXTURES_REQUIRED presenter_gui)
endif()
