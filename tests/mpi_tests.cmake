# `gpulab train --workers` (issue 46): data-parallel training through Debian's mpirun. Usage errors
# are one sentence in every build; where MPI was built, two workers train like one process (the
# weights compared within float-sum tolerance), with and without a --hostfile naming localhost, and a
# killed worker ends the run with one sentence and no process left (tests/mpi_train_check.py).
# The unit tests of the same logic, without mpirun, are in test_distributed.cpp. Kept short for CI:
# 256 images, one epoch, two workers (a few seconds each). Uses gpulab_cli_test from cli_tests.cmake.
set(GPULAB_CLI_EXTRA -DEXPECT_LINES=1)
gpulab_cli_test(train_workers_zero 2 "^gpulab: --workers: Value 0 not in range" train --workers 0)
gpulab_cli_test(train_workers_absurd 2 "^gpulab: --workers: Value 100000 not in range" train --workers 100000)
gpulab_cli_test(train_hostfile_without_workers 2 "^gpulab: --hostfile and --straggler-ms belong to --workers N"
                train --hostfile ${CMAKE_CURRENT_LIST_DIR}/data/mpi-hostfile-localhost)
if(GPULAB_HAVE_MPI)
    gpulab_cli_test(train_workers_hostfile_missing 2 "^gpulab train: the --hostfile /nonexistent/hosts cannot be read"
                    train --workers 2 --hostfile /nonexistent/hosts)
    gpulab_cli_test(train_workers_gpu_engine 2 "^gpulab train: --workers trains on cpu-scalar, cpu-parallel or cpu-onednn; cuda-sim cannot"
                    train --workers 2 --backend cuda-sim)
    # mpirun missing (openmpi-bin not installed): PATH without it.
    add_test(NAME cli.train_workers_without_mpirun
             COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;train;--workers;2" -DEXPECT_RC=1
                     "-DEXPECT_REGEX=^gpulab train: --workers starts its workers with mpirun, which is not on PATH: install openmpi-bin"
                     -DEXPECT_LINES=1 -P ${GPULAB_CHECK})
    set_tests_properties(cli.train_workers_without_mpirun PROPERTIES LABELS "cli;mpi"
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};PATH=/nonexistent")
else()
    gpulab_cli_test(train_workers_without_mpi 1 "^gpulab train: --workers needs MPI, .*install openmpi-bin and libopenmpi-dev"
                    train --workers 2)
endif()
unset(GPULAB_CLI_EXTRA)

if(GPULAB_HAVE_MPI AND EXISTS /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz)
    set(gpulab_mpi_work ${CMAKE_CURRENT_BINARY_DIR}/mpi-work)
    add_test(NAME mpi.train_two_workers_match_one
             COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/mpi_train_check.py match $<TARGET_FILE:gpulab> ${gpulab_mpi_work}/match)
    add_test(NAME mpi.train_hostfile_localhost
             COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/mpi_train_check.py match $<TARGET_FILE:gpulab>
                     ${gpulab_mpi_work}/hostfile --hostfile ${CMAKE_CURRENT_LIST_DIR}/data/mpi-hostfile-localhost)
    add_test(NAME mpi.train_killed_worker_leaves_nothing
             COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/mpi_train_check.py kill $<TARGET_FILE:gpulab> ${gpulab_mpi_work}/kill)
    # Each starts two workers: run them one at a time, and not beside other heavy tests on a 2-core machine.
    set_tests_properties(mpi.train_two_workers_match_one mpi.train_hostfile_localhost mpi.train_killed_worker_leaves_nothing
                         PROPERTIES LABELS mpi SKIP_REGULAR_EXPRESSION "SKIPPED:" RESOURCE_LOCK mpi_workers TIMEOUT 300)
endif()
