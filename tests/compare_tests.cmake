# "This lab machine vs my laptop" in every lesson: export each lesson once, then again with
# --compare of the first export's CSV. The second export must succeed, name the other machine on
# stdout and write a non-blank PNG (which draws both machines); comparing a lesson with another
# lesson's CSV, the activation samples CSV (wrong file) or a missing file must each exit 1 with one
# line on stderr before anything is measured. Each export is --quick: a few seconds.
set(GPULAB_COMPARE_OUT ${CMAKE_CURRENT_BINARY_DIR}/compare-out)
set(GPULAB_COMPARE_CHECK ${CMAKE_CURRENT_LIST_DIR}/run_and_check.cmake)
set(GPULAB_COMPARE_ENV "DISPLAY=" "WAYLAND_DISPLAY=" "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}")
set(GPULAB_COMPARE_OTHER_REGEX "; compared with other machine: [^\n]+, [0-9]+-[0-9]+-[0-9]+")
set(GPULAB_COMPARE_TESTS "")

# gpulab_compare_lesson(SHORT LESSON_ID CSV_SUFFIX PNG_SUFFIX FILES OTHER_LESSON_ID OTHER_CSV_SUFFIX)
# adds compare.SHORT.export_first, .with_other_machine, .png and .other_lesson.
function(gpulab_compare_lesson short id csv png files other_id other_csv)
    set(first ${GPULAB_COMPARE_OUT}/first/${id}/${id}${csv})
    add_test(NAME compare.${short}.export_first
             COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;${id};--out;${GPULAB_COMPARE_OUT}/first/${id};--quick"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=exported ${files} files" -DEXPECT_FILE=${first}
                     -P ${GPULAB_COMPARE_CHECK})
    set_tests_properties(compare.${short}.export_first PROPERTIES FIXTURES_SETUP compare_${id}_first)

    add_test(NAME compare.${short}.with_other_machine
             COMMAND ${CMAKE_COMMAND}
                     "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;${id};--out;${GPULAB_COMPARE_OUT}/second/${id};--quick;--compare;${first}"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=exported ${files} files.*${GPULAB_COMPARE_OTHER_REGEX}"
                     -DEXPECT_FILE=${GPULAB_COMPARE_OUT}/second/${id}/${id}${png} -P ${GPULAB_COMPARE_CHECK})
    set_tests_properties(compare.${short}.with_other_machine PROPERTIES FIXTURES_REQUIRED compare_${id}_first
                         FIXTURES_SETUP compare_${short}_second)

    add_test(NAME compare.${short}.png
             COMMAND gpulab_png_check ${GPULAB_COMPARE_OUT}/second/${id}/${id}${png} 64 600 300)
    set_tests_properties(compare.${short}.png PROPERTIES FIXTURES_REQUIRED compare_${short}_second)

    # This lesson opened with the other lesson's export: refused, naming the other lesson.
    add_test(NAME compare.${short}.other_lesson
             COMMAND ${CMAKE_COMMAND}
                     "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;${id};--out;${GPULAB_COMPARE_OUT}/bad;--quick;--compare;${GPULAB_COMPARE_OUT}/first/${other_id}/${other_id}${other_csv}"
                     -DEXPECT_RC=1
                     "-DEXPECT_REGEX=${other_id}${other_csv} is an export of lesson '[^']+'; open that lesson to compare with it"
                     -DEXPECT_LINES=1 -P ${GPULAB_COMPARE_CHECK})
    set_tests_properties(compare.${short}.other_lesson PROPERTIES FIXTURES_REQUIRED compare_${other_id}_first)

    set(GPULAB_COMPARE_TESTS ${GPULAB_COMPARE_TESTS} compare.${short}.export_first compare.${short}.with_other_machine
                             compare.${short}.png compare.${short}.other_lesson PARENT_SCOPE)
endfunction()

# Each lesson is refused the next one's export, round the circle, so every lesson's file is refused
# once and every lesson refuses once. Fixtures are named after lesson ids (compare_<id>_first).
gpulab_compare_lesson(activation elementwise-activations -summary.csv -timing.png 5
                      latency-vs-throughput -sweep.csv)
gpulab_compare_lesson(latency latency-vs-throughput -sweep.csv -sweep.png 3 simd-vs-mimd -simd.csv)
gpulab_compare_lesson(simd simd-vs-mimd -simd.csv -simd.png 3 conv-sliding-window -conv.csv)
gpulab_compare_lesson(conv conv-sliding-window -conv.csv -conv.png 4 elementwise-activations -summary.csv)
# The training lesson needs Debian's Fashion-MNIST to race (its export then has 5 files).
if(EXISTS /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz)
    gpulab_compare_lesson(train train-small-cnn -train.csv -race.png 5 conv-sliding-window -conv.csv)
endif()

set(GPULAB_COMPARE_FIRST_ACTIVATION ${GPULAB_COMPARE_OUT}/first/elementwise-activations)
add_test(NAME compare.wrong_file
         COMMAND ${CMAKE_COMMAND}
                 "-DCMD=$<TARGET_FILE:gpulab>;export;--out;${GPULAB_COMPARE_OUT}/bad;--quick;--compare;${GPULAB_COMPARE_FIRST_ACTIVATION}/elementwise-activations-samples.csv"
                 -DEXPECT_RC=1 "-DEXPECT_REGEX=elementwise-activations-samples.csv: wrong lesson or file" -DEXPECT_LINES=1
                 -P ${GPULAB_COMPARE_CHECK})
set_tests_properties(compare.wrong_file PROPERTIES FIXTURES_REQUIRED compare_elementwise-activations_first)

add_test(NAME compare.missing_file
         COMMAND ${CMAKE_COMMAND}
                 "-DCMD=$<TARGET_FILE:gpulab>;export;--out;${GPULAB_COMPARE_OUT}/bad;--quick;--compare;${GPULAB_COMPARE_OUT}/no-such-summary.csv"
                 -DEXPECT_RC=1 "-DEXPECT_REGEX=no-such-summary.csv: cannot open file" -DEXPECT_LINES=1
                 -P ${GPULAB_COMPARE_CHECK})

set_tests_properties(${GPULAB_COMPARE_TESTS} compare.wrong_file compare.missing_file PROPERTIES LABELS "gui;compare"
                     ENVIRONMENT "${GPULAB_COMPARE_ENV}" TIMEOUT 180 SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")
