# Every step of every lesson drawn headless at the window sizes a class meets, in the normal and
# the presenter layout, with `export --check-layout` (app/cli/layout_check.h): it fails when any
# panel's content is wider than the panel, that is, text cut at its right edge (issue 26). Panels
# that scroll are listed in the output, not failed: some steps still do not fit a slide. 1600x900,
# the default, is checked by presenter.export_all_steps.*. The presenter layout picks its text size
# from the height: 1x at 768, 1.5x at 1080, 2x at 1440. `make test` checks each lesson at the
# common student laptop (1366x768) and on a 1080p projector (presenter, 1.5x); the other sizes and
# scales carry the label layout-full and run in `make test-layout` (and CI), as they take most of
# the suite's time on two cores (issue 38).
set(GPULAB_LAYOUT_OUT ${GPULAB_GUI_OUT}/layout)
set(GPULAB_LAYOUT_LESSONS elementwise-activations conv-sliding-window simd-vs-mimd latency-vs-throughput train-small-cnn
    kernel-puzzles tensor-cores)
# Presenter 1920x1080 is a 1080p projector at 1.5x, the largest size that fits it
# (core::fitting_presenter_scale); 3x on 3840x2160 (`export --present-scale 3`) is checked by hand: a 4K
# picture per step takes minutes on a 2-core CI machine.
foreach(config "normal|1366x768" "normal|1920x1080" "normal|2560x1440" "presenter|1366x768" "presenter|1920x1080"
               "presenter|2560x1440")
    string(REPLACE "|" ";" fields "${config}")
    list(GET fields 0 theme)
    list(GET fields 1 size)
    foreach(id IN LISTS GPULAB_LAYOUT_LESSONS)
        set(name layout.${theme}.${size}.${id})
        add_test(NAME ${name}
                 COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;${id};--all-steps;--quick;--check-layout;--theme;${theme};--size;${size};--out;${GPULAB_LAYOUT_OUT}/${theme}-${size}-${id}"
                         -DEXPECT_RC=0 "-DEXPECT_REGEX=step 1 of [0-9]+: " -P ${GPULAB_RUN_CHECK})
        set(labels "gui;layout")
        if(NOT config STREQUAL "normal|1366x768" AND NOT config STREQUAL "presenter|1920x1080")
            list(APPEND labels layout-full)
        endif()
        set_tests_properties(${name} PROPERTIES LABELS "${labels}" ENVIRONMENT "${GPULAB_NO_DISPLAY_ENV}" TIMEOUT 240
                             SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")
    endforeach()
endforeach()
