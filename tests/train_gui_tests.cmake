# The training lesson as a user meets it: a quick headless export (DISPLAY unset; --quick trains a
# few batches on a 600-picture subset and races each engine for under a second) writes the lesson
# PNGs (model and training, results, race and per-layer times), the window PNG and the CSV; the PNGs are
# non-blank and the CSV has its header and a race row for the parallel CPU engine. Needs Debian's
# dataset-fashion-mnist; without it the export shows the one-sentence fix and the PNG checks still
# pass. Included from tests/app_tests.cmake after gui_tests.cmake (gpulab_png_check, GPULAB_GUI_OUT
# and the gpulab_*_test functions come from there).
if(NOT TARGET gpulab_png_check)
    return()
endif()

set(GPULAB_TRAIN_OUT ${GPULAB_GUI_OUT}/train)
set(GPULAB_TRAIN_CSV ${GPULAB_TRAIN_OUT}/train-small-cnn-train.csv)
if(EXISTS /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz)
    gpulab_export_test(train_export train-small-cnn ${GPULAB_TRAIN_OUT} 5 ${GPULAB_TRAIN_CSV})
    gpulab_png_test(train_png train_export ${GPULAB_TRAIN_OUT}/train-small-cnn-train.png 64 1000 900)
    gpulab_png_test(train_results_png train_export ${GPULAB_TRAIN_OUT}/train-small-cnn-results.png 64 1000 500)
    gpulab_png_test(train_race_png train_export ${GPULAB_TRAIN_OUT}/train-small-cnn-race.png 64 1000 900)
    gpulab_png_test(train_window_png train_export ${GPULAB_TRAIN_OUT}/train-small-cnn-window.png 200 1600 900)
    gpulab_grep_test(train_csv_header train_export ${GPULAB_TRAIN_CSV} -c "^section,engine,batch,epoch_or_layer," "^1")
    gpulab_grep_test(train_csv_race train_export ${GPULAB_TRAIN_CSV} -cE "^race,cpu-parallel,64,[0-9]+,[0-9.]+,[0-9]+," "^[1-9]")
endif()

# No data set: the export still succeeds, its picture carrying the one-sentence fix (no race, so 3
# files: the training PNG, the CSV header, the window).
add_test(NAME gui.train_export_no_data
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;train-small-cnn;--out;${GPULAB_TRAIN_OUT}-no-data;--quick"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=exported 3 files" -P ${GPULAB_RUN_CHECK})
set_tests_properties(gui.train_export_no_data PROPERTIES LABELS gui TIMEOUT 120
                     ENVIRONMENT "${GPULAB_NO_DISPLAY_ENV};GPULAB_TRAIN_DATA=${CMAKE_CURRENT_BINARY_DIR}/no-such-data"
                     FIXTURES_SETUP gui_train_export_no_data SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")
gpulab_png_test(train_no_data_png train_export_no_data ${GPULAB_TRAIN_OUT}-no-data/train-small-cnn-train.png 16 1000 200)

# The window itself under xvfb: the lesson opened, stepped to Train (which trains with the class
# defaults on the worker, or shows the missing-data sentence), screenshot non-blank.
gpulab_smoke_test(train_smoke train-small-cnn "Right,Right")
