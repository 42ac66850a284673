# scripts.gpu-record.call (tests/script_tests.cmake): the device command and the unpacking of a
# returned recording, without a GPU. -DBASH=bash -DSRC=<source tree> -DWORK=<scratch folder>.
function(fail what)
    message(FATAL_ERROR "scripts.gpu-record.call: ${what}")
endfunction()

# The one line given to the device tool: under its 2,000 characters, the bundle and $OUT named, and
# nothing that builds or installs (the device has no network and no time for it).
execute_process(COMMAND ${BASH} ${SRC}/scripts/gpu-record.sh --print-device-command
                OUTPUT_VARIABLE cmd RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
string(LENGTH "${cmd}" length)
if(NOT rc EQUAL 0 OR length EQUAL 0 OR NOT length LESS 2000)
    fail("--print-device-command gave exit ${rc} and ${length} characters (at most 1999): ${cmd}")
endif()
if(NOT cmd MATCHES "scripts/gpu-record\\.sh --bundle \\.gpu-bundle --out \\$OUT" OR NOT cmd MATCHES "\\.gl/\\*\\.deb")
    fail("the device command does not unpack .gl and run the bundle into $OUT: ${cmd}")
endif()
if(cmd MATCHES "(^|[ ;&|])(make|cmake|ninja|apt|apt-get|pip|pip3) ")
    fail("the device command builds or installs something: ${cmd}")
endif()
execute_process(COMMAND ${BASH} ${SRC}/scripts/gpu-record.sh --out ${WORK}/nothing RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 2)
    fail("gpu-record.sh without --bundle exited ${rc}, not 2")
endif()

# A recording as the call packs it: provenance.txt, step CSVs, a picture that must stay behind.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/rec)
set(prov "gpu: NVIDIA H200\ngpu_memory: 143771 MiB\ndriver: 580.159.04\ndate: 2026-11-28 20:00:00 UTC\n")
file(WRITE ${WORK}/rec/provenance.txt "${prov}gpu_id: nvidia-h200\n")
file(WRITE ${WORK}/rec/latency-vs-throughput-step-01.csv "# gpulab 0.1.0  |  Latency vs throughput  |  2026-11-28 20:00 UTC\n")
file(WRITE ${WORK}/rec/latency-vs-throughput.png "not a picture")
execute_process(COMMAND ${CMAKE_COMMAND} -E tar czf ${WORK}/recording.tar.gz provenance.txt
                        latency-vs-throughput-step-01.csv latency-vs-throughput.png WORKING_DIRECTORY ${WORK}/rec)
execute_process(COMMAND ${BASH} ${SRC}/scripts/gpu-record-unpack.sh ${WORK} --dest ${WORK}/shipped
                RESULT_VARIABLE rc OUTPUT_VARIABLE said ERROR_VARIABLE said)
if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK}/shipped/latency-vs-throughput-step-01.csv OR NOT EXISTS ${WORK}/shipped/provenance.txt)
    fail("a GPU's recording was not unpacked (exit ${rc}): ${said}")
endif()
if(EXISTS ${WORK}/shipped/latency-vs-throughput.png)
    fail("the unpacked recording holds a picture: only provenance.txt, CSV and JSON are shipped")
endif()
# Again into the same folder: refused without --force.
execute_process(COMMAND ${BASH} ${SRC}/scripts/gpu-record-unpack.sh ${WORK}/recording.tar.gz --dest ${WORK}/shipped
                RESULT_VARIABLE rc OUTPUT_VARIABLE said ERROR_VARIABLE said)
if(NOT rc EQUAL 1 OR NOT said MATCHES "--force")
    fail("an existing recording was replaced without --force (exit ${rc}): ${said}")
endif()
# A rehearsal (not_a_gpu) is never put where the app ships recordings.
file(WRITE ${WORK}/rec/provenance.txt "${prov}not_a_gpu: rehearsal without a GPU\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E tar czf ${WORK}/recording.tar.gz provenance.txt
                        latency-vs-throughput-step-01.csv WORKING_DIRECTORY ${WORK}/rec)
execute_process(COMMAND ${BASH} ${SRC}/scripts/gpu-record-unpack.sh ${WORK} --dest ${WORK}/rehearsal
                RESULT_VARIABLE rc OUTPUT_VARIABLE said ERROR_VARIABLE said)
if(NOT rc EQUAL 1 OR NOT said MATCHES "not a GPU" OR EXISTS ${WORK}/rehearsal)
    fail("a rehearsal's recording was not refused (exit ${rc}): ${said}")
endif()
