# The recording call's scripts (docs/gpu-verification.md, "The recording call"). They run on a lent
# GPU machine, where a mistake costs device minutes that cannot be had back, so every build checks
# what needs no GPU and no bundle: each script parses and answers --help, the device command fits
# the device tool's 2,000 characters and builds or installs nothing there, and a returned recording
# is unpacked, or refused when it is not a GPU's (tests/check_gpu_record_call.cmake). Seconds.
find_program(GPULAB_BASH bash)
if(GPULAB_BASH)
    foreach(script gpu-bundle gpu-record gpu-record-bundle gpu-record-rehearse gpu-record-unpack)
        add_test(NAME scripts.${script}.parses COMMAND ${GPULAB_BASH} -n ${PROJECT_SOURCE_DIR}/scripts/${script}.sh)
        add_test(NAME scripts.${script}.help COMMAND ${GPULAB_BASH} ${PROJECT_SOURCE_DIR}/scripts/${script}.sh --help)
        set_tests_properties(scripts.${script}.parses scripts.${script}.help PROPERTIES LABELS scripts)
    endforeach()
    add_test(NAME scripts.gpu-record.call
             COMMAND ${CMAKE_COMMAND} -DBASH=${GPULAB_BASH} -DSRC=${PROJECT_SOURCE_DIR}
                     -DWORK=${CMAKE_CURRENT_BINARY_DIR}/gpu-record-call -P ${CMAKE_CURRENT_LIST_DIR}/check_gpu_record_call.cmake)
    set_tests_properties(scripts.gpu-record.call PROPERTIES LABELS scripts)
endif()

# The OpenBLAS comparison (issue 45) is run by hand, not by CI; it must at least parse and answer --help
# without OpenBLAS or a gpulab at hand.
add_test(NAME scripts.gemm-vs-openblas.help COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/scripts/gemm-vs-openblas.py --help)
set_tests_properties(scripts.gemm-vs-openblas.help PROPERTIES LABELS scripts)

# The PyTorch comparison (issue 45 item 3) is run by hand too; without torch or a gpulab it must parse,
# answer --help, and find its std::mt19937_64 equal to the C++ standard's (the weights and batch order it
# repeats for torch come from it). Against gpulab itself: tests/train_cli_tests.cmake.
add_test(NAME scripts.torch-compare.help COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/scripts/torch-compare.py --help)
add_test(NAME scripts.torch-compare.mt19937_64
         COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/scripts/torch-compare.py --self-test)
# Without torch, one sentence naming Debian's package (not in install-deps.sh: a developer's tool).
add_test(NAME scripts.torch-compare.names_the_package
         COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/scripts/torch-compare.py --torch-python /nonexistent/python3)
set_tests_properties(scripts.torch-compare.names_the_package PROPERTIES
                     PASS_REGULAR_EXPRESSION "^torch-compare: PyTorch is missing: install Debian's python3-torch ")
set_tests_properties(scripts.torch-compare.help scripts.torch-compare.mt19937_64
                     scripts.torch-compare.names_the_package PROPERTIES LABELS scripts)
set_tests_properties(scripts.torch-compare.mt19937_64 PROPERTIES
                     PASS_REGULAR_EXPRESSION "Mt19937_64 matches the C\\+\\+ standard's 10,000th output")
