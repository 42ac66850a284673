# Issue 31, item 2: files the app reads for itself go through the checked door too. A data folder
# (GPULAB_DATA_DIR) with a garbage font, a font cut short, a font that is a FIFO, a shader with a
# syntax error and a shader that is a FIFO (built by tests/make_bad_data.cmake): the export runs,
# never hangs or crashes; a bad font falls back to ImGui's built-in one with a sentence, and a
# shader that cannot be used fails the export with a sentence instead of writing empty pictures.
set(GPULAB_BAD_DATA ${CMAKE_CURRENT_BINARY_DIR}/bad-data)
add_test(NAME reader.make_bad_data
         COMMAND ${CMAKE_COMMAND} -DSRC=${PROJECT_SOURCE_DIR} -DOUT=${GPULAB_BAD_DATA} -P ${CMAKE_CURRENT_LIST_DIR}/make_bad_data.cmake)
set_tests_properties(reader.make_bad_data PROPERTIES LABELS cli FIXTURES_SETUP reader_bad_data)

function(gpulab_reader_test name data rc regex)
    add_test(NAME reader.${name}
             COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;elementwise-activations;--quick;--out;${GPULAB_BAD_DATA}/out-${name}"
                     -DEXPECT_RC=${rc} "-DEXPECT_REGEX=${regex}" -P ${CMAKE_CURRENT_LIST_DIR}/run_and_check.cmake)
    set_tests_properties(reader.${name} PROPERTIES LABELS cli TIMEOUT 120 FIXTURES_REQUIRED reader_bad_data
                         ENVIRONMENT "DISPLAY=;WAYLAND_DISPLAY=;GPULAB_DATA_DIR=${GPULAB_BAD_DATA}/${data}"
                         SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")
endfunction()

gpulab_reader_test(garbage_font bad-font 0
    "exported .*the font .*DejaVuSans.ttf cannot be used: it is not a TrueType or OpenType font.*using ImGui's built-in font")
gpulab_reader_test(cut_font cut-font 0
    "exported .*the font .*DejaVuSansMono.ttf cannot be used: .*that style falls back to the regular font")
gpulab_reader_test(fifo_font fifo-font 0
    "exported .*DejaVuSans.ttf: is a FIFO .named pipe., not a regular file.*using ImGui's built-in font")
gpulab_reader_test(broken_shader bad-shader 1
    "the pictures could not be drawn .the colour-map shader could not be used: .*colormap.frag")
gpulab_reader_test(fifo_shader fifo-shader 1
    "the pictures could not be drawn .the colour-map shader could not be used: cannot read shader file .*colormap.frag ..*is a FIFO")
