cmake_policy(SET CMP0054 NEW)  # "fonts" below is a word, not a variable
# Builds two data folders (GPULAB_DATA_DIR) with broken files for tests/reader_door_tests.cmake:
#   OUT/bad-font:   the lessons and shaders of SRC, but DejaVuSans.ttf is garbage;
#   OUT/cut-font:   the mono font is cut to its first 3,000 bytes;
#   OUT/fifo-font:  DejaVuSans.ttf is a FIFO;
#   OUT/bad-shader: the fonts and lessons of SRC, but colormap.frag has a syntax error;
#   OUT/fifo-shader: the same with colormap.frag a FIFO.
#   cmake -DSRC=<source> -DOUT=<folder> -P make_bad_data.cmake
file(REMOVE_RECURSE ${OUT})
foreach(name bad-font cut-font fifo-font bad-shader fifo-shader)
    file(MAKE_DIRECTORY ${OUT}/${name}/assets/fonts ${OUT}/${name}/shaders)
    file(CREATE_LINK ${SRC}/lessons ${OUT}/${name}/lessons SYMBOLIC)
    file(GLOB assets LIST_DIRECTORIES true ${SRC}/assets/*)
    foreach(a ${assets})
        get_filename_component(n ${a} NAME)
        if(NOT n STREQUAL "fonts")
            file(CREATE_LINK ${a} ${OUT}/${name}/assets/${n} SYMBOLIC)
        endif()
    endforeach()
    file(GLOB shaders ${SRC}/shaders/*)
    foreach(s ${shaders})
        file(COPY ${s} DESTINATION ${OUT}/${name}/shaders)
    endforeach()
    file(GLOB font_files ${SRC}/assets/fonts/*)
    foreach(f ${font_files})
        file(COPY ${f} DESTINATION ${OUT}/${name}/assets/fonts)
    endforeach()
endforeach()

# Fonts: garbage, cut short, a FIFO.
file(WRITE ${OUT}/bad-font/assets/fonts/DejaVuSans.ttf "this is not a font, whatever its name says\n")
file(REMOVE ${OUT}/cut-font/assets/fonts/DejaVuSansMono.ttf)
execute_process(COMMAND head -c 3000 ${SRC}/assets/fonts/DejaVuSansMono.ttf
                OUTPUT_FILE ${OUT}/cut-font/assets/fonts/DejaVuSansMono.ttf)
file(REMOVE ${OUT}/fifo-font/assets/fonts/DejaVuSans.ttf)
execute_process(COMMAND mkfifo ${OUT}/fifo-font/assets/fonts/DejaVuSans.ttf)

# Shaders: a syntax error, and a FIFO.
file(APPEND ${OUT}/bad-shader/shaders/colormap.frag "\nthis line is not GLSL\n")
file(REMOVE ${OUT}/fifo-shader/shaders/colormap.frag)
execute_process(COMMAND mkfifo ${OUT}/fifo-shader/shaders/colormap.frag)
