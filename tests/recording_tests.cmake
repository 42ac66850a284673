# The recorded GPU run beside this computer's (issue 39): with the tests' fixture recording
# (tests/data/recording-fixture, labelled "test fixture, not a GPU"), each lesson's export writes the
# recording's GPU rows after this machine's, every row with its source; without a recording none;
# a recording folder that cannot be read never stops an export. Each export is --quick.
set(GPULAB_REC_OUT ${CMAKE_CURRENT_BINARY_DIR}/recording-out)
set(GPULAB_REC_FIXTURE ${PROJECT_SOURCE_DIR}/tests/data/recording-fixture)
set(GPULAB_REC_ENV "DISPLAY=" "WAYLAND_DISPLAY=" "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}")
set(GPULAB_REC_SOURCE "\"test fixture, not a GPU: recorded on NVIDIA H200, 2026-11-28\"")

# gpulab_recording_test(NAME LESSON CSV_FILE RECORDING EXPECT_OR_REJECT [ROW_START])
# ROW_START: how the recorded row begins (default: one of the GPU backends' rows).
function(gpulab_recording_test name lesson csv recording mode)
    set(row "(cuda-kernel|[0-9]+,cuda-kernel)")
    if(ARGC GREATER 5)
        set(row "${ARGV5}")
    endif()
    set(out ${GPULAB_REC_OUT}/${name})
    add_test(NAME recording.${name}.export
             COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;${lesson};--out;${out};--quick;--all-steps"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=exported" -P ${GPULAB_CHECK})
    set_tests_properties(recording.${name}.export PROPERTIES FIXTURES_SETUP recording_${name}
                         ENVIRONMENT "${GPULAB_REC_ENV};GPULAB_RECORDING=${recording}")
    if(mode STREQUAL "expect")
        set(check "-DEXPECT_REGEX=,source.*measured here.*\n${row},[^\n]*${GPULAB_REC_SOURCE}")
    else()
        set(check "-DREJECT_REGEX=recorded on")
    endif()
    add_test(NAME recording.${name}.csv
             COMMAND ${CMAKE_COMMAND} -DFILE=${out}/${csv} "${check}" -P ${CMAKE_CURRENT_LIST_DIR}/check_file_regex.cmake)
    set_tests_properties(recording.${name}.csv PROPERTIES FIXTURES_REQUIRED recording_${name})
endfunction()

# The steps whose settings the fixture recorded: ReLU on 2^20 (step 1), sobel-x on 512 x 512 (step 2),
# the ReLU sweep, the warp divergence patterns (any step after the first run).
gpulab_recording_test(activation elementwise-activations elementwise-activations-step-01.csv ${GPULAB_REC_FIXTURE} expect)
gpulab_recording_test(conv conv-sliding-window conv-sliding-window-step-02.csv ${GPULAB_REC_FIXTURE} expect)
gpulab_recording_test(latency latency-vs-throughput latency-vs-throughput-step-02.csv ${GPULAB_REC_FIXTURE} expect)
gpulab_recording_test(simd simd-vs-mimd simd-vs-mimd-step-03.csv ${GPULAB_REC_FIXTURE} expect "pattern,lane-parity")
gpulab_recording_test(off elementwise-activations elementwise-activations-step-01.csv off reject)
# A folder that is not a recording: the export goes on, with no recorded rows.
gpulab_recording_test(missing elementwise-activations elementwise-activations-step-01.csv ${GPULAB_REC_OUT}/no-such-folder reject)
# Where the recording has no run of the settings (activation step 4 on), the kernel's row is an
# estimate, labelled as one in its source column; with no recording at all too.
foreach(name activation off)
    add_test(NAME recording.${name}.estimate
             COMMAND ${CMAKE_COMMAND} -DFILE=${GPULAB_REC_OUT}/${name}/elementwise-activations-step-04.csv
                     "-DEXPECT_REGEX=\ncuda-kernel,1,1,0,[1-9][0-9]*,[^\n]*,\"estimate \\(model, NVIDIA H200\\)\""
                     -P ${CMAKE_CURRENT_LIST_DIR}/check_file_regex.cmake)
    set_tests_properties(recording.${name}.estimate PROPERTIES FIXTURES_REQUIRED recording_${name})
endforeach()

# Precedence: a file the student loads to compare with takes the recording's place (the fixture's own
# activation CSV, read as another machine's export: its rows say "measured here").
add_test(NAME recording.compare_file_first.export
         COMMAND ${CMAKE_COMMAND}
                 "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;elementwise-activations;--out;${GPULAB_REC_OUT}/compare-first;--quick;--compare;${GPULAB_REC_FIXTURE}/elementwise-activations-step-01.csv"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=compared with other machine: Intel[^\n]+NVIDIA H200" -P ${GPULAB_CHECK})
set_tests_properties(recording.compare_file_first.export PROPERTIES FIXTURES_SETUP recording_compare_first
                     ENVIRONMENT "${GPULAB_REC_ENV};GPULAB_RECORDING=${GPULAB_REC_FIXTURE}")
add_test(NAME recording.compare_file_first.csv
         COMMAND ${CMAKE_COMMAND} -DFILE=${GPULAB_REC_OUT}/compare-first/elementwise-activations-summary.csv
                 "-DREJECT_REGEX=recorded on|estimate \\(model" -P ${CMAKE_CURRENT_LIST_DIR}/check_file_regex.cmake)
set_tests_properties(recording.compare_file_first.csv PROPERTIES FIXTURES_REQUIRED recording_compare_first)

# The tensor-core lesson's speed table: the recording's cuBLAS and mma.sync rows at the step's size.
gpulab_recording_test(tensor tensor-cores tensor-cores-step-11.csv ${GPULAB_REC_FIXTURE} expect "speed,gpu-cublas,TF32,512,yes")

# gpulab info names the recording, or why there is none, in one line.
add_test(NAME recording.info_names_it
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;info" -DEXPECT_RC=0
                 "-DEXPECT_REGEX=\nRecorded   test fixture, not a GPU: recorded on NVIDIA H200, 2026-11-28 \\(6 measurements"
                 -P ${GPULAB_CHECK})
set_tests_properties(recording.info_names_it PROPERTIES ENVIRONMENT "${GPULAB_REC_ENV};GPULAB_RECORDING=${GPULAB_REC_FIXTURE}")
add_test(NAME recording.info_says_why_none
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;info" -DEXPECT_RC=0
                 "-DEXPECT_REGEX=\nRecorded   none: [^\n]*no-such-recording: cannot read the recording folder"
                 -P ${GPULAB_CHECK})
set_tests_properties(recording.info_says_why_none PROPERTIES
                     ENVIRONMENT "${GPULAB_REC_ENV};GPULAB_RECORDING=${GPULAB_REC_OUT}/no-such-recording")

# The latency prompt is answered from the recording where no GPU ran here (the student's pick judged
# against it, said so); the picture is checked by eye (docs: the step-2 screenshot) and for colours.
if(GPULAB_XVFB_RUN)
    set(png ${GPULAB_REC_OUT}/latency-predict.png)
    add_test(NAME recording.latency_predict
             COMMAND ${CMAKE_COMMAND}
                     "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;latency-vs-throughput;--script-keys;Right,Idle,View=answer-first,Idle;--frames;60;--screenshot;${png}"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=answered 'the CPU'.*lesson=latency-vs-throughput step=2 of 5"
                     -DEXPECT_FILE=${png} -P ${GPULAB_CHECK})
    set_tests_properties(recording.latency_predict PROPERTIES LABELS gui TIMEOUT 240
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};GPULAB_RECORDING=${GPULAB_REC_FIXTURE}")
endif()
