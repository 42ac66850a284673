# arch.include_order_catches_upward: copies the sources check-includes.py reads into WORK, adds one
# include that climbs a floor (core/ops including a backend), and expects the check to fail and
# name that line. Run with -DSRC=<repo> -DPYTHON=<python3> -DWORK=<scratch folder>.
file(REMOVE_RECURSE "${WORK}")
foreach(dir app core kernels docs scripts)
    file(COPY "${SRC}/${dir}" DESTINATION "${WORK}")
endforeach()
file(APPEND "${WORK}/core/ops/tensor.cpp" "\n#include \"backends/backend.h\"\n")
execute_process(COMMAND "${PYTHON}" "${WORK}/scripts/check-includes.py" "${WORK}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
    message(FATAL_ERROR "check-includes passed a tree where core/ops includes core/backends:\n${out}")
endif()
if(NOT out MATCHES "core/ops/tensor.cpp:[0-9]+: includes \"backends/backend.h\" from core/backends, a floor above core/ops")
    message(FATAL_ERROR "check-includes failed without naming the upward include:\n${out}${err}")
endif()
message(STATUS "check-includes names the upward include: ${out}")
file(REMOVE_RECURSE "${WORK}")
