# Tests that need the app's pieces or run the gpulab binary itself. One file per area.
# The GUI tests run the app under Xvfb through tests/xvfb_run.sh (why not xvfb-run directly: see
# that script); they are registered only where xvfb-run exists.
find_program(GPULAB_XVFB_RUN xvfb-run)
set(GPULAB_XVFB "sh;${CMAKE_CURRENT_LIST_DIR}/xvfb_run.sh")

include(${CMAKE_CURRENT_LIST_DIR}/gl_tests.cmake OPTIONAL)   # GL layer: offscreen context, tensor textures
include(${CMAKE_CURRENT_LIST_DIR}/ui_tests.cmake OPTIONAL)   # ImGui without a window: the layout check on table cells
include(${CMAKE_CURRENT_LIST_DIR}/gui_tests.cmake OPTIONAL)  # GUI smoke test, headless export
include(${CMAKE_CURRENT_LIST_DIR}/simd_gui_tests.cmake OPTIONAL)  # SIMD-vs-MIMD lesson: export, GUI smoke
include(${CMAKE_CURRENT_LIST_DIR}/conv_gui_tests.cmake OPTIONAL)  # convolution lesson: export, GUI smoke
include(${CMAKE_CURRENT_LIST_DIR}/train_gui_tests.cmake OPTIONAL)  # training lesson: export, no data set
include(${CMAKE_CURRENT_LIST_DIR}/puzzle_gui_tests.cmake OPTIONAL)  # kernel puzzles: a check through the editor, no compiler
include(${CMAKE_CURRENT_LIST_DIR}/tensor_gui_tests.cmake OPTIONAL)  # tensor cores: export, lanes, formats, a prompt
include(${CMAKE_CURRENT_LIST_DIR}/cli_tests.cmake OPTIONAL)  # command line: bad arguments, apply, bench --quick
include(${CMAKE_CURRENT_LIST_DIR}/train_cli_tests.cmake OPTIONAL)  # gpulab train: bad flags and data, a short run
include(${CMAKE_CURRENT_LIST_DIR}/mpi_tests.cmake OPTIONAL)  # gpulab train --workers: MPI workers train like one process
include(${CMAKE_CURRENT_LIST_DIR}/presenter_tests.cmake OPTIONAL)  # presenter mode, export --all-steps
include(${CMAKE_CURRENT_LIST_DIR}/prerun_tests.cmake OPTIONAL)  # gpulab prerun: results kept for class, another computer's imported
include(${CMAKE_CURRENT_LIST_DIR}/reader_door_tests.cmake OPTIONAL)  # fonts and shaders through the checked door
include(${CMAKE_CURRENT_LIST_DIR}/layout_tests.cmake OPTIONAL)  # every step at 1366x768 .. 2560x1440: no text cut
include(${CMAKE_CURRENT_LIST_DIR}/compare_tests.cmake OPTIONAL)  # another machine's export beside the live bars
include(${CMAKE_CURRENT_LIST_DIR}/install_tests.cmake OPTIONAL)  # DESTDIR install run from an unrelated folder
include(${CMAKE_CURRENT_LIST_DIR}/hostile_cli_tests.cmake OPTIONAL)  # FIFOs, /dev/zero, deep TOML, full disk, size wraps
include(${CMAKE_CURRENT_LIST_DIR}/fault_tests.cmake OPTIONAL)  # failures injected: mid-run backend faults, a full disk mid-export
