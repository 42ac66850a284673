# gpulab_find_optional_config(<package> <target> <ok-var> <why-var>)
#
# find_package(<package> CONFIG), which must define <target>, for an OPTIONAL dependency that must never break gpulab's configure.
# CMake has no way to catch an error raised inside a package's config file (oneDNN's dnnl-config.cmake
# runs find_package(OpenCL REQUIRED) and stops the whole configure when the OpenCL headers are missing,
# even under QUIET). So the package is first found in a child CMake process (cmake/probe); only when
# that succeeds is it found here for real. Otherwise <ok-var> is OFF and <why-var> holds one readable
# sentence (the first error the package printed), which the backend reports as its reason.
#
# The result is cached per set of inputs (package dir and prefix path), so a re-configure does not pay
# for the child process again. Verified by tests/configure_tests.cmake (a broken dnnl prefix).
function(gpulab_find_optional_config package target ok_var why_var)
    set(inputs "${target}|${${package}_DIR}|${CMAKE_PREFIX_PATH}|${CMAKE_C_COMPILER}|${CMAKE_CXX_COMPILER}")
    if(NOT DEFINED GPULAB_PROBE_${package}_INPUTS OR NOT GPULAB_PROBE_${package}_INPUTS STREQUAL inputs)
        set(probe_dir ${CMAKE_BINARY_DIR}/probes/${package})
        file(REMOVE_RECURSE ${probe_dir})
        set(args -S ${PROJECT_SOURCE_DIR}/cmake/probe -B ${probe_dir} -G ${CMAKE_GENERATOR}
                 -DGPULAB_PROBE_PACKAGE=${package} -DGPULAB_PROBE_TARGET=${target}
                 -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER})
        if(DEFINED ${package}_DIR AND ${package}_DIR)
            list(APPEND args -D${package}_DIR=${${package}_DIR})
        endif()
        if(CMAKE_PREFIX_PATH)
            string(REPLACE ";" "\\;" prefix "${CMAKE_PREFIX_PATH}")
            list(APPEND args "-DCMAKE_PREFIX_PATH=${prefix}")
        endif()
        execute_process(COMMAND ${CMAKE_COMMAND} ${args}
                        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
        if(rc EQUAL 0)
            set(ok ON)
            set(why "")
        else()
            set(ok OFF)
            # The most telling line: "Could NOT find OpenCL (missing: ...)" or the first message
            # after "CMake Error at <file>:<line>".
            string(REGEX MATCH "Could NOT find [^\n]*" why "${err}")
            if(NOT why)
                string(REGEX MATCH "CMake Error at ([^\n]*):[^\n]*\n+ *([^\n]*)" whole "${err}")
                set(why "${CMAKE_MATCH_2} (${CMAKE_MATCH_1})")
            endif()
            string(STRIP "${why}" why)
            if(why STREQUAL "()" OR why STREQUAL "")
                set(why "its CMake configuration failed (see ${probe_dir})")
            endif()
            set(why "${package}'s CMake configuration failed: ${why}")
        endif()
        set(GPULAB_PROBE_${package}_INPUTS "${inputs}" CACHE INTERNAL "")
        set(GPULAB_PROBE_${package}_OK ${ok} CACHE INTERNAL "")
        set(GPULAB_PROBE_${package}_WHY "${why}" CACHE INTERNAL "")
    endif()
    set(${ok_var} ${GPULAB_PROBE_${package}_OK} PARENT_SCOPE)
    set(${why_var} "${GPULAB_PROBE_${package}_WHY}" PARENT_SCOPE)
endfunction()

# gpulab_c_string(<out-var> <text>): <text> as a C string literal (quotes and backslashes escaped), for
# a compile definition that carries a configure-time reason into the binary.
function(gpulab_c_string out text)
    string(REPLACE "\\" "\\\\" text "${text}")
    string(REPLACE "\"" "\\\"" text "${text}")
    string(REPLACE "\n" " " text "${text}")
    string(REPLACE ";" "," text "${text}")   # a ';' would split the definition into a CMake list
    set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()
