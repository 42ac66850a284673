# `gpulab prerun` (app/cli/prerun.cpp, issue 25): the lessons' steps measured headless into the
# results store; the window then shows a step at once (runs=0); another computer's results,
# carried with --out and loaded with --import, show in the window too; bad uses are one sentence.
# Each test names its own results folder (GPULAB_RESULTS_DIR), so nothing else is touched.
set(GPULAB_PRERUN_OUT ${CMAKE_CURRENT_BINARY_DIR}/prerun-out)
set(GPULAB_PRERUN_CHECK ${CMAKE_CURRENT_LIST_DIR}/run_and_check.cmake)
set(gpulab_store ${GPULAB_PRERUN_OUT}/store)         # this computer's results
set(gpulab_box ${GPULAB_PRERUN_OUT}/gpu-box-store)   # the stand-in for another computer's
set(gpulab_carried ${GPULAB_PRERUN_OUT}/carried)     # what --out wrote there, carried over
set(gpulab_laptop ${GPULAB_PRERUN_OUT}/laptop-store)  # where --import loads it

add_test(NAME prerun.clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${GPULAB_PRERUN_OUT})
set_tests_properties(prerun.clean PROPERTIES LABELS cli FIXTURES_SETUP prerun_clean)

function(gpulab_prerun_test name rc regex store)
    add_test(NAME prerun.${name}
             COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;prerun;${ARGN}" -DEXPECT_RC=${rc}
                     "-DEXPECT_REGEX=${regex}" -P ${GPULAB_PRERUN_CHECK})
    set_tests_properties(prerun.${name} PROPERTIES LABELS cli TIMEOUT 240
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};GPULAB_RESULTS_DIR=${store}")
endfunction()

# The convolution lesson: each setting measured once, then a second prerun finds nothing new.
gpulab_prerun_test(conv 0 "step 1 of 10.*measured in .*step 10 of 10.*gpulab prerun: done" ${gpulab_store}
                   --lesson conv-sliding-window)
gpulab_prerun_test(conv_again 0 "step 1 of 10, [^\n]*: nothing new to measure.*step 5 of 10, [^\n]*: nothing new" ${gpulab_store}
                   --lesson conv-sliding-window)
set_tests_properties(prerun.conv PROPERTIES FIXTURES_REQUIRED prerun_clean FIXTURES_SETUP prerun_conv)
set_tests_properties(prerun.conv_again PROPERTIES FIXTURES_REQUIRED prerun_conv)

# The activations lesson, "Make it big" included: too large for one entry, it is kept without its
# pictures, so the window shows every step at once after the prerun (issue 41).
gpulab_prerun_test(activations 0 "step 6 of 6, Make it big: measured in .*gpulab prerun: done" ${gpulab_store}
                   --lesson elementwise-activations)
set_tests_properties(prerun.activations PROPERTIES FIXTURES_REQUIRED prerun_clean FIXTURES_SETUP prerun_activations
                     RESOURCE_LOCK prerun_store)
set_tests_properties(prerun.conv prerun.conv_again PROPERTIES RESOURCE_LOCK prerun_store)

# Another computer (GPULAB_TEST_MACHINE stands in for one) measures the SIMD lesson and carries
# it over; this computer imports it; its own folder cannot be imported back into itself.
gpulab_prerun_test(other_computer 0 "copied [1-9][0-9]* results? to .*carried" ${gpulab_box}
                   --lesson simd-vs-mimd --out ${gpulab_carried})
set_tests_properties(prerun.other_computer PROPERTIES FIXTURES_REQUIRED prerun_clean FIXTURES_SETUP prerun_carried
                     ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};GPULAB_RESULTS_DIR=${gpulab_box};GPULAB_TEST_MACHINE=gpu-box (test stand-in)")
gpulab_prerun_test(import 0 "imported [1-9][0-9]* results? from .*measured on that computer" ${gpulab_laptop}
                   --import ${gpulab_carried})
set_tests_properties(prerun.import PROPERTIES FIXTURES_REQUIRED prerun_carried FIXTURES_SETUP prerun_imported)
gpulab_prerun_test(import_own 1 "measured on this computer, not another one.*none of the" ${gpulab_box}
                   --import ${gpulab_carried})
set_tests_properties(prerun.import_own PROPERTIES FIXTURES_REQUIRED prerun_carried
                     ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};GPULAB_RESULTS_DIR=${gpulab_box};GPULAB_TEST_MACHINE=gpu-box (test stand-in)")

# Refusals: one sentence each.
gpulab_prerun_test(import_with_lesson 2 "prerun --import only loads results" ${gpulab_laptop}
                   --import ${gpulab_carried} --lesson simd-vs-mimd)
gpulab_prerun_test(import_missing 1 "is not a folder" ${gpulab_laptop} --import ${GPULAB_PRERUN_OUT}/no-such-folder)
gpulab_prerun_test(unknown_lesson 2 "no lesson 'no-such-lesson'" ${gpulab_laptop} --lesson no-such-lesson)
gpulab_prerun_test(puzzle_lesson 2 "nothing to pre-run: it runs the student's own kernels" ${gpulab_laptop} --lesson kernel-puzzles)
gpulab_prerun_test(store_off 1 "results cannot be kept" off --lesson simd-vs-mimd)

# The training lesson's tabs pre-run (issue 41), at test sizes (tests/data/lessons-train-stored):
# Train, the race (which waits for the student's prediction in class) and the peaks are stored.
set(gpulab_train_store ${GPULAB_PRERUN_OUT}/train-store)
set(gpulab_train_lesson --lesson-dir ${CMAKE_CURRENT_LIST_DIR}/data/lessons-train-stored --lesson train-stored-test)
set(gpulab_has_fashion_mnist OFF)
if(EXISTS /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz)
    set(gpulab_has_fashion_mnist ON)
    gpulab_prerun_test(train 0 "step 1 of 4, Train: measured in .*step 2 of 4, The race: measured in .*step 3 of 4, Peaks: measured in .*gpulab prerun: done"
                       ${gpulab_train_store} ${gpulab_train_lesson})
    set_tests_properties(prerun.train PROPERTIES FIXTURES_REQUIRED prerun_clean FIXTURES_SETUP prerun_train)
endif()

# The window after the pre-run: the convolution lesson's first five steps show at once (no run),
# this computer's from the prerun, and the SIMD lesson's from the imported folder.
if(GPULAB_XVFB_RUN)
    add_test(NAME gui.stored_step_shows_in_next_run
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;conv-sliding-window;--script-keys;Idle,Right,Idle,Right,Idle,Right,Idle,Right,Idle;--frames;40"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=lesson=conv-sliding-window step=5 of 10 .* runs=0" -P ${GPULAB_PRERUN_CHECK})
    set_tests_properties(gui.stored_step_shows_in_next_run PROPERTIES LABELS "gui;cli" TIMEOUT 180 FIXTURES_REQUIRED prerun_conv
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};GPULAB_RESULTS_DIR=${gpulab_store}")
    add_test(NAME gui.imported_step_shows_in_window
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;simd-vs-mimd;--script-keys;Idle,Right,Idle,Right,Idle;--frames;30"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=lesson=simd-vs-mimd step=3 of 10 .* runs=0" -P ${GPULAB_PRERUN_CHECK})
    set_tests_properties(gui.imported_step_shows_in_window PROPERTIES LABELS "gui;cli" TIMEOUT 180 FIXTURES_REQUIRED prerun_imported
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};GPULAB_RESULTS_DIR=${gpulab_laptop}")
    add_test(NAME gui.stored_big_step_shows_in_next_run
             COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;elementwise-activations;--script-keys;Idle,Right,Idle,Right,Idle,Right,Idle,Right,Idle,Right,Idle;--frames;20"
                     -DEXPECT_RC=0 "-DEXPECT_REGEX=lesson=elementwise-activations step=6 of 6 .* runs=0 .*controls info='measured on [^']* by an earlier run of gpulab"
                     -P ${GPULAB_PRERUN_CHECK})
    set_tests_properties(gui.stored_big_step_shows_in_next_run PROPERTIES LABELS "gui;cli" TIMEOUT 180
                         FIXTURES_REQUIRED prerun_activations RESOURCE_LOCK prerun_store
                         ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};GPULAB_RESULTS_DIR=${gpulab_store}")
    if(gpulab_has_fashion_mnist)
        # Every tab shows its stored result: the one run is reading the pictures.
        add_test(NAME gui.train_stored_shows_in_next_run
                 COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;${gpulab_train_lesson};--script-keys;Idle,Right,Idle,Right,Idle;--frames;20"
                         -DEXPECT_RC=0 "-DEXPECT_REGEX=step=3 of 4 .* runs=1 .*controls info='measured on [^']* by an earlier run of gpulab"
                         -P ${GPULAB_PRERUN_CHECK})
        # Train again, then leave the step at once: the stopped run is shown in this session but the
        # stored result stays as it was, byte for byte (the next launch shows the whole run).
        add_test(NAME gui.train_stopped_run_keeps_stored
                 COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;${gpulab_train_lesson};--script-keys;Idle,R,Right,Idle;--frames;10"
                         -DEXPECT_RC=0 "-DEXPECT_REGEX=left the step: its run \\(training cpu-parallel" -DUNCHANGED_DIR=${gpulab_train_store}
                         -P ${GPULAB_PRERUN_CHECK})
        set_tests_properties(gui.train_stored_shows_in_next_run gui.train_stopped_run_keeps_stored PROPERTIES
                             LABELS "gui;cli" TIMEOUT 180 FIXTURES_REQUIRED prerun_train RESOURCE_LOCK train_store
                             ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};GPULAB_RESULTS_DIR=${gpulab_train_store}")
    endif()
endif()
