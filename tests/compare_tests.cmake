# "This lab machine vs my laptop": export the activation lesson once, then again with --compare of
# the first export's summary CSV. The second export must succeed, name the other machine on stdout
# and write a non-blank timing PNG with both machines' bars; a samples CSV (wrong file) and a
# missing file must each exit 1 with one line on stderr before anything is measured.
set(GPULAB_COMPARE_OUT ${CMAKE_CURRENT_BINARY_DIR}/compare-out)
set(GPULAB_COMPARE_CHECK ${CMAKE_CURRENT_LIST_DIR}/run_and_check.cmake)
set(GPULAB_COMPARE_ENV "DISPLAY=" "WAYLAND_DISPLAY=" "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}")
set(GPULAB_COMPARE_FIRST ${GPULAB_COMPARE_OUT}/first/elementwise-activations-summary.csv)

add_test(NAME compare.export_first
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--out;${GPULAB_COMPARE_OUT}/first;--quick"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=exported 4 files" -DEXPECT_FILE=${GPULAB_COMPARE_FIRST}
                 -P ${GPULAB_COMPARE_CHECK})
set_tests_properties(compare.export_first PROPERTIES FIXTURES_SETUP compare_first)

add_test(NAME compare.export_with_other_machine
         COMMAND ${CMAKE_COMMAND}
                 "-DCMD=$<TARGET_FILE:gpulab>;export;--out;${GPULAB_COMPARE_OUT}/second;--quick;--compare;${GPULAB_COMPARE_FIRST}"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=exported 4 files.*; compared with other machine: [^\n]+, [0-9]+-[0-9]+-[0-9]+"
                 -DEXPECT_FILE=${GPULAB_COMPARE_OUT}/second/elementwise-activations-timing.png -P ${GPULAB_COMPARE_CHECK})
set_tests_properties(compare.export_with_other_machine PROPERTIES FIXTURES_REQUIRED compare_first
                     FIXTURES_SETUP compare_second)

add_test(NAME compare.timing_png
         COMMAND gpulab_png_check ${GPULAB_COMPARE_OUT}/second/elementwise-activations-timing.png 64 600 300)
set_tests_properties(compare.timing_png PROPERTIES FIXTURES_REQUIRED compare_second)

add_test(NAME compare.wrong_file
         COMMAND ${CMAKE_COMMAND}
                 "-DCMD=$<TARGET_FILE:gpulab>;export;--out;${GPULAB_COMPARE_OUT}/bad;--quick;--compare;${GPULAB_COMPARE_OUT}/first/elementwise-activations-samples.csv"
                 -DEXPECT_RC=1 "-DEXPECT_REGEX=elementwise-activations-samples.csv: wrong lesson or file" -DEXPECT_LINES=1
                 -P ${GPULAB_COMPARE_CHECK})
set_tests_properties(compare.wrong_file PROPERTIES FIXTURES_REQUIRED compare_first)

add_test(NAME compare.missing_file
         COMMAND ${CMAKE_COMMAND}
                 "-DCMD=$<TARGET_FILE:gpulab>;export;--out;${GPULAB_COMPARE_OUT}/bad;--quick;--compare;${GPULAB_COMPARE_OUT}/no-such-summary.csv"
                 -DEXPECT_RC=1 "-DEXPECT_REGEX=no-such-summary.csv: cannot open the file to compare with" -DEXPECT_LINES=1
                 -P ${GPULAB_COMPARE_CHECK})

set_tests_properties(compare.export_first compare.export_with_other_machine compare.timing_png compare.wrong_file
                     compare.missing_file PROPERTIES LABELS "gui;compare" ENVIRONMENT "${GPULAB_COMPARE_ENV}"
                     TIMEOUT 180 SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")
