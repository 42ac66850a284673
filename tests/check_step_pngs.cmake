# Checks an all-steps export: at least MIN_COUNT files DIR/PREFIX-step-NN.png, each one not blank
# (gpulab_png_check with 200 colours at WIDTH x HEIGHT), and no two alike (SHA256 of the files):
# a step whose params or text did not reach the picture would repeat its neighbour.
#   cmake -DDIR=... -DPREFIX=elementwise-activations -DPNG_CHECK=path -DMIN_COUNT=2 -DWIDTH=1600 -DHEIGHT=900
#         -P check_step_pngs.cmake
file(GLOB pngs "${DIR}/${PREFIX}-step-*.png")
list(SORT pngs)
list(LENGTH pngs count)
if(count LESS MIN_COUNT)
    message(FATAL_ERROR "found ${count} step pictures in ${DIR}, expected at least ${MIN_COUNT}")
endif()
set(seen "")
foreach(png IN LISTS pngs)
    execute_process(COMMAND ${PNG_CHECK} ${png} 200 ${WIDTH} ${HEIGHT} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                    ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${png} looks blank or too small: ${out}${err}")
    endif()
    file(SHA256 ${png} hash)
    list(FIND seen ${hash} at)
    if(NOT at EQUAL -1)
        list(GET pngs ${at} twin)
        message(FATAL_ERROR "${png} is identical to ${twin}")
    endif()
    list(APPEND seen ${hash})
endforeach()
message(STATUS "ok: ${count} distinct, non-blank step pictures")
