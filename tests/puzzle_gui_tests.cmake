# The kernel puzzles' view (app/views/puzzles/) through the gpulab binary: the map puzzle's
# reference typed into the editor (--script-keys View=type-solution, app/views/puzzles/puzzle_view.cpp)
# and run passes every case, and the code typed is saved under the user's config folder; with no
# compiler (GPULAB_CXX=/nonexistent) the lesson opens and says which package to install; headless,
# every step of the lesson exports without a compiler, and with one every step's reference passes. Each config folder is emptied first, so an
# earlier run's saved code cannot pass for this one's. Included from app_tests.cmake after
# gui_tests.cmake (gpulab_png_check, GPULAB_GUI_OUT, GPULAB_RUN_CHECK, GPULAB_XVFB).
set(GPULAB_PUZZLE_OUT ${GPULAB_GUI_OUT}/puzzles)
file(MAKE_DIRECTORY ${GPULAB_PUZZLE_OUT})

add_test(NAME gui.puzzle_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${GPULAB_PUZZLE_OUT}/config ${GPULAB_PUZZLE_OUT}/config-none
                                       ${GPULAB_PUZZLE_OUT}/export-none ${GPULAB_PUZZLE_OUT}/export)
set_tests_properties(gui.puzzle_clean PROPERTIES LABELS gui FIXTURES_SETUP gui_puzzle_clean)

if(GPULAB_XVFB_RUN)
    set(png ${GPULAB_PUZZLE_OUT}/map-passes.png)
    add_test(NAME gui.puzzle_map_passes
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;kernel-puzzles;--script-keys;View=type-solution,R,Idle;--frames;30;--screenshot;${png}"
                     -DEXPECT_RC=0
                     "-DEXPECT_REGEX=typed the reference solution of map.*gpulab: puzzle map: Passed: all [0-9]+ cases, no defects"
                     -DEXPECT_FILE=${png} -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.puzzle_map_passes PROPERTIES LABELS gui TIMEOUT 60
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};XDG_CONFIG_HOME=${GPULAB_PUZZLE_OUT}/config"
                         FIXTURES_REQUIRED gui_puzzle_clean FIXTURES_SETUP gui_puzzle_map)
    gpulab_png_test(puzzle_map_passes_png puzzle_map ${png} 200 1600 900)
    # Saved as typed (Run saves at once; otherwise a second after the last key).
    gpulab_grep_test(puzzle_map_saved puzzle_map ${GPULAB_PUZZLE_OUT}/config/gpulab/puzzles/map.cu -c
                     "blockIdx.x \\* blockDim.x" "1")

    set(png ${GPULAB_PUZZLE_OUT}/no-compiler.png)
    add_test(NAME gui.puzzle_no_compiler
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;kernel-puzzles;--script-keys;R,Right,Idle;--frames;20;--screenshot;${png}"
                     -DEXPECT_RC=0
                     "-DEXPECT_REGEX=kernel puzzles: No C\\+\\+ compiler was found.*install the g\\+\\+ package.*lesson=kernel-puzzles step=2 of [0-9]+ .* runs=0"
                     -DEXPECT_FILE=${png} -P ${GPULAB_RUN_CHECK})
    set_tests_properties(gui.puzzle_no_compiler PROPERTIES LABELS gui TIMEOUT 60
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};XDG_CONFIG_HOME=${GPULAB_PUZZLE_OUT}/config-none;GPULAB_CXX=/nonexistent"
                         FIXTURES_REQUIRED gui_puzzle_clean FIXTURES_SETUP gui_puzzle_no_compiler)
    gpulab_png_test(puzzle_no_compiler_png puzzle_no_compiler ${png} 200 1600 900)
endif()

# Headless, no compiler: every step's picture (statement, skeleton, the sentence) and the files.
set(dir ${GPULAB_PUZZLE_OUT}/export-none)
add_test(NAME gui.puzzle_export_no_compiler
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;kernel-puzzles;--all-steps;--quick;--check-layout;--out;${dir}"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=step 12 of 12: .*step pictures, their CSVs and kernel-puzzles.json"
                 -DEXPECT_FILE=${dir}/kernel-puzzles-window.png -P ${GPULAB_RUN_CHECK})
set_tests_properties(gui.puzzle_export_no_compiler PROPERTIES LABELS gui TIMEOUT 120
                     ENVIRONMENT "${GPULAB_NO_DISPLAY_ENV};XDG_CONFIG_HOME=${GPULAB_PUZZLE_OUT}/config-none;GPULAB_CXX=/nonexistent"
                     FIXTURES_REQUIRED gui_puzzle_clean SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")

# Headless with the compiler: each step shows its puzzle's reference solution checked (every one
# must pass, every puzzle folder must be there), with its picture of what it did and its CSV.
set(dir ${GPULAB_PUZZLE_OUT}/export)
add_test(NAME gui.puzzle_export_references
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;kernel-puzzles;--all-steps;--quick;--check-layout;--out;${dir}"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=puzzle map \\(reference\\): Passed.*step 12 of 12: .*kernel-puzzles.json"
                 "-DREJECT_REGEX=\\(reference\\): [^P]|is not installed|could not be read|No C\\+\\+ compiler"
                 -DEXPECT_FILE=${dir}/kernel-puzzles-puzzle.csv -P ${GPULAB_RUN_CHECK})
set_tests_properties(gui.puzzle_export_references PROPERTIES LABELS gui TIMEOUT 180
                     ENVIRONMENT "${GPULAB_NO_DISPLAY_ENV};XDG_CONFIG_HOME=${GPULAB_PUZZLE_OUT}/config-none"
                     FIXTURES_REQUIRED gui_puzzle_clean FIXTURES_SETUP gui_puzzle_export
                     SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")
add_test(NAME gui.puzzle_export_step_files
         COMMAND ${CMAKE_COMMAND} -DDIR=${dir} -DPREFIX=kernel-puzzles -DPNG_CHECK=$<TARGET_FILE:gpulab_png_check>
                 -DMIN_COUNT=12 -DWIDTH=1600 -DHEIGHT=900 "-DCSV_HEADER=^puzzle,case,visible,"
                 -P ${CMAKE_CURRENT_LIST_DIR}/check_step_pngs.cmake)
set_tests_properties(gui.puzzle_export_step_files PROPERTIES LABELS gui FIXTURES_REQUIRED gui_puzzle_export)
