# Failures injected into the running app (issue 16): a backend that fails in the middle of a run
# (GPULAB_INJECT_FAULT, core/backends/fault_injection.h) leaves the GUI running with the message on screen;
# an export that fails on its second file (a device behind that file's name, refused by the writer;
# the doctest partial-writes fills a disk with a file-size limit) keeps the file written before and
# says which one failed. The doctest suites fault-injection and partial-writes test the parts.
set(GPULAB_FAULT_OUT ${CMAKE_CURRENT_BINARY_DIR}/fault-out)
file(MAKE_DIRECTORY ${GPULAB_FAULT_OUT})  # the screenshots are written into it

# The first lesson's first step measures at once; cpu-parallel's second call (in its warm-up) fails
# as a kernel fault. The app must keep running to the last frame (exit 0) and draw the screenshot;
# the message is in cpu-parallel's row of the timing panel (looked at by eye: fault-out/*.png).
if(GPULAB_XVFB_RUN)
    foreach(kind fault alloc)
        set(png ${GPULAB_FAULT_OUT}/injected_${kind}.png)
        add_test(NAME gui.injected_${kind}_mid_run
                 COMMAND ${CMAKE_COMMAND} "-DCMD=${GPULAB_XVFB};$<TARGET_FILE:gpulab>;--lesson;elementwise-activations;--frames;90;--screenshot;${png}"
                         -DEXPECT_RC=0 -DEXPECT_FILE=${png} -P ${GPULAB_RUN_CHECK})
        set_tests_properties(gui.injected_${kind}_mid_run PROPERTIES LABELS "gui;fault" TIMEOUT 180
                             ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};GPULAB_INJECT_FAULT=cpu-parallel:2:${kind}")
    endforeach()
endif()

# Headless export into a folder whose summary CSV is /dev/full: the writer refuses a device, so the
# export fails there: exit 1, the failed file and the reason named, the samples CSV written before
# it kept (and said to be).
set(dir ${GPULAB_FAULT_OUT}/full-disk)
add_test(NAME gui.export_full_disk_midway
         COMMAND sh -c "rm -rf ${dir} && mkdir -p ${dir} && ln -s /dev/full ${dir}/elementwise-activations-summary.csv && $0 export --lesson elementwise-activations --out ${dir} --quick"
                 $<TARGET_FILE:gpulab>)
set_tests_properties(gui.export_full_disk_midway PROPERTIES LABELS "gui;fault" TIMEOUT 180
                     ENVIRONMENT "${GPULAB_NO_DISPLAY_ENV}"
                     FIXTURES_SETUP fault_full_disk
                     PASS_REGULAR_EXPRESSION "elementwise-activations-summary.csv: it is a device, not a regular file; gpulab writes only regular files; the file written before it is kept in ${dir}"
                     SKIP_REGULAR_EXPRESSION "no offscreen OpenGL context")
add_test(NAME gui.export_full_disk_midway_kept
         COMMAND ${CMAKE_COMMAND} "-DCMD=grep;-c;^cpu-scalar,;${dir}/elementwise-activations-samples.csv"
                 -DEXPECT_RC=0 "-DEXPECT_REGEX=[0-9]" -P ${GPULAB_RUN_CHECK})
set_tests_properties(gui.export_full_disk_midway_kept PROPERTIES LABELS "gui;fault" FIXTURES_REQUIRED fault_full_disk)
