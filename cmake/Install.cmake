# `cmake --install` lays gpulab out like any desktop app (GNU dirs under the prefix):
#   bin/gpulab                                     the one binary (GUI, CLI, headless export)
#   lib/gpulab/gpulab-kernel-runner                runs a student's puzzle kernel, confined (started by gpulab)
#   share/gpulab/puzzles                           the kernel puzzles (one folder each)
#   share/gpulab/kernels/puzzle_runner/device      the header a student's kernel is compiled against
#   share/gpulab/{lessons,shaders,assets}          what it reads at run time (the fonts link to Debian's
#                                                  DejaVu where it is installed); app/render/resources.cpp finds
#                                                  <prefix>/share/gpulab from the binary's own path,
#                                                  so it runs from any working directory
#   share/applications/gpulab.desktop              the applications-menu entry
#   share/icons/hicolor/scalable/apps/gpulab.svg   its icon
#   share/man/man1/gpulab.1.gz                     generated from `gpulab --help` by help2man
#   share/doc/gpulab/{copyright,changelog.gz}      what a Debian package must carry
# Verified by tests/install_tests.cmake (a DESTDIR install run from an unrelated folder).
include(GNUInstallDirs)

install(TARGETS gpulab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# A helper only gpulab starts: in the package's own lib folder, not on PATH (app/render/resources.cpp
# looks for it there).
install(TARGETS gpulab-kernel-runner RUNTIME DESTINATION lib/gpulab)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/puzzle_runner/device
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpulab/kernels/puzzle_runner)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lessons ${PROJECT_SOURCE_DIR}/shaders ${PROJECT_SOURCE_DIR}/assets
                  ${PROJECT_SOURCE_DIR}/puzzles
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpulab
        PATTERN desktop EXCLUDE PATTERN *.ttf EXCLUDE)
# The DejaVu fonts: where Debian's fonts-dejavu-core provides them (install-deps installs it, the .deb
# depends on it) the install links to the system's files instead of carrying a second copy; elsewhere
# it copies the ones in assets/fonts.
set(GPULAB_SYSTEM_FONT_DIR /usr/share/fonts/truetype/dejavu)
foreach(font DejaVuSans.ttf DejaVuSansMono.ttf)
    if(EXISTS ${GPULAB_SYSTEM_FONT_DIR}/${font})
        # Relative (Debian policy for links within /usr), computed for the prefix actually installed to.
        install(CODE "
            set(dir \${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/gpulab/assets/fonts)
            file(RELATIVE_PATH target \${dir} ${GPULAB_SYSTEM_FONT_DIR}/${font})
            file(MAKE_DIRECTORY \$ENV{DESTDIR}\${dir})
            file(CREATE_LINK \${target} \$ENV{DESTDIR}\${dir}/${font} SYMBOLIC)")
    else()
        install(FILES ${PROJECT_SOURCE_DIR}/assets/fonts/${font} DESTINATION ${CMAKE_INSTALL_DATADIR}/gpulab/assets/fonts)
    endif()
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/assets/desktop/gpulab.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/assets/desktop/gpulab.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)

# Debian wants man pages and changelogs compressed with gzip -9n (no name, no time stamp: reproducible).
find_program(GPULAB_GZIP gzip)
find_program(GPULAB_HELP2MAN help2man)
set(GPULAB_DOC_DIR ${CMAKE_BINARY_DIR}/doc)
add_custom_command(
    OUTPUT ${GPULAB_DOC_DIR}/changelog.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${GPULAB_DOC_DIR}
    COMMAND ${GPULAB_GZIP} -9n -c ${PROJECT_SOURCE_DIR}/cmake/package/changelog > ${GPULAB_DOC_DIR}/changelog.gz
    DEPENDS ${PROJECT_SOURCE_DIR}/cmake/package/changelog
    COMMENT "Compressing the changelog")
set(GPULAB_DOC_OUTPUTS ${GPULAB_DOC_DIR}/changelog.gz)
if(GPULAB_HELP2MAN)
    # --no-info: gpulab has no Texinfo manual, so the page must not point at one.
    add_custom_command(
        OUTPUT ${GPULAB_DOC_DIR}/gpulab.1.gz
        COMMAND ${CMAKE_COMMAND} -E make_directory ${GPULAB_DOC_DIR}
        COMMAND ${GPULAB_HELP2MAN} --no-info --name "why deep learning runs on GPUs, measured live"
                --section 1 --output ${GPULAB_DOC_DIR}/gpulab.1 $<TARGET_FILE:gpulab>
        COMMAND ${GPULAB_GZIP} -9nf ${GPULAB_DOC_DIR}/gpulab.1
        DEPENDS gpulab
        COMMENT "Generating the man page from gpulab --help")
    list(APPEND GPULAB_DOC_OUTPUTS ${GPULAB_DOC_DIR}/gpulab.1.gz)
    install(FILES ${GPULAB_DOC_DIR}/gpulab.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
    message(STATUS "gpulab: help2man not found: no man page (install help2man; make deps does)")
endif()
add_custom_target(gpulab_docs ALL DEPENDS ${GPULAB_DOC_OUTPUTS})
install(FILES ${PROJECT_SOURCE_DIR}/cmake/package/copyright ${GPULAB_DOC_DIR}/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
