# Installs the build into a scratch DESTDIR and runs the *installed* gpulab from an unrelated folder,
# as a student's machine would after `cmake --install` or `apt install ./gpulab_*.deb`:
#   gpulab lessons, gpulab info (must name the installed data folder), a puzzle graded with the
#   installed runner and header, a headless export (non-blank
#   PNG), the menu entry, icon and man page in place; then the same binary with its lessons folder
#   moved away must say so in one sentence and exit 1.
#   cmake -DBUILD_DIR=... -DOUT=... -DPNG_CHECK=... -P install_check.cmake
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT}/elsewhere)
set(ENV{DESTDIR} ${OUT}/root)
unset(ENV{GPULAB_DATA_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix /usr
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}${err}")
endif()
set(prefix ${OUT}/root/usr)
foreach(f bin/gpulab lib/gpulab/gpulab-kernel-runner share/gpulab/puzzles/map/puzzle.toml
          share/gpulab/kernels/puzzle_runner/device/student_cuda.h share/gpulab/kernels/puzzle_runner/device/cuda_runtime.h share/gpulab/lessons/conv-sliding-window.toml share/gpulab/shaders
          share/gpulab/assets/fonts/DejaVuSans.ttf share/applications/gpulab.desktop
          share/icons/hicolor/scalable/apps/gpulab.svg share/man/man1/gpulab.1.gz
          share/doc/gpulab/copyright share/doc/gpulab/changelog.gz)
    if(NOT EXISTS ${prefix}/${f} AND NOT IS_SYMLINK ${prefix}/${f})  # fonts may link to Debian's
        message(FATAL_ERROR "the install lacks ${prefix}/${f}")
    endif()
endforeach()

function(run_installed expect_rc regex)
    execute_process(COMMAND ${prefix}/bin/gpulab ${ARGN} WORKING_DIRECTORY ${OUT}/elsewhere
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL expect_rc OR NOT "${out}${err}" MATCHES "${regex}")
        message(FATAL_ERROR "installed `gpulab ${ARGN}`: exit ${rc} (expected ${expect_rc}), output does not match "
                            "'${regex}':\n${out}${err}")
    endif()
    message(STATUS "ok: gpulab ${ARGN}")
endfunction()

run_installed(0 "conv-sliding-window[^\n]*ready" lessons)
run_installed(0 "Data       ${prefix}/share/gpulab\n" info)
# The installed puzzles: their runner, header and reference found from the install alone.
run_installed(0 "PASS" puzzle check map ${prefix}/share/gpulab/puzzles/map/solution.cu)
run_installed(0 "elementwise-activations-window.png" export --lesson elementwise-activations --out ${OUT}/export --quick)
execute_process(COMMAND ${PNG_CHECK} ${OUT}/export/elementwise-activations-window.png 200 1600 900 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the installed gpulab's exported picture is blank or the wrong size")
endif()

# The lessons folder moved away: one sentence naming where gpulab looked, exit 1, no crash.
file(RENAME ${prefix}/share/gpulab/lessons ${prefix}/share/gpulab/lessons-moved)
run_installed(1 "gpulab: gpulab's data folder \\(lessons/, shaders/, assets/\\) was not found in ${prefix}/share/gpulab: reinstall gpulab" lessons)
run_installed(0 "Data       gpulab's data folder [^\n]* was not found" info)
run_installed(1 "gpulab export: gpulab.s data folder [^\n]* was not found" export --lesson elementwise-activations --out ${OUT}/export2)
