# The hostile inputs of issue 16 through the real gpulab binary: sizes that wrapped in sscanf, a
# FIFO or /dev/zero where a file is expected (they hung or grew without end), a lesson file whose
# table header has 50,000 dotted parts (it overflowed toml++'s stack), and a write to a full disk
# (it was reported as success). Each must end with one sentence and exit code 1 or 2, within the
# timeout. The same cases at the library level are in test_hostile_inputs.cpp and test_npy.cpp.
set(GPULAB_HOSTILE_OUT ${CMAKE_CURRENT_BINARY_DIR}/hostile-out)
file(MAKE_DIRECTORY ${GPULAB_HOSTILE_OUT})
set(GPULAB_HOSTILE_TESTS)

# name rc regex command...: the command runs under /bin/sh -c so it can make its FIFO or symlink
# first; $0 is the gpulab binary and $1 the test's own scratch path.
function(gpulab_hostile_test name rc regex script)
    add_test(NAME cli.hostile.${name}
             COMMAND ${CMAKE_COMMAND} "-DCMD=/bin/sh;-c;${script};$<TARGET_FILE:gpulab>;${GPULAB_HOSTILE_OUT}/${name}"
                     -DEXPECT_RC=${rc} "-DEXPECT_REGEX=${regex}" -DEXPECT_LINES=1 -P ${GPULAB_CHECK})
    set(GPULAB_HOSTILE_TESTS ${GPULAB_HOSTILE_TESTS} cli.hostile.${name} PARENT_SCOPE)
endfunction()

gpulab_hostile_test(size_wraps 2 "'4294968896x900' is not WxH" "exec $0 export --out $1 --size 4294968896x900")
gpulab_hostile_test(size_trailing_junk 2 "'1600x900junk' is not WxH" "exec $0 export --out $1 --size 1600x900junk")
gpulab_hostile_test(apply_fifo_input 1 "fifo.npy: is a FIFO \\(named pipe\\), not a regular file"
                    "rm -rf $1 && mkdir -p $1 && mkfifo $1/fifo.npy && exec $0 apply relu --input $1/fifo.npy --output $1/o.npy")
gpulab_hostile_test(apply_dev_zero_input 1 "zero.png: is a device, not a regular file"
                    "rm -rf $1 && mkdir -p $1 && ln -s /dev/zero $1/zero.png && exec $0 apply relu --input $1/zero.png --output $1/o.npy")
# Out of room: a file-size limit (ulimit -f, 512-byte blocks in sh) refuses the bytes past 4 KiB as a
# full disk would; the sentence says so and no cut .npy is left under the name.
gpulab_hostile_test(apply_output_full_disk 1 "cannot write .*full.npy: File too large after .*was left as it was"
                    "rm -rf $1 && mkdir -p $1 && ulimit -f 8 && exec $0 apply relu --input ${PROJECT_SOURCE_DIR}/tests/data/gradient.png --output $1/full.npy")
gpulab_hostile_test(apply_output_device 1 "cannot write .*full.npy: it is a device, not a regular file; gpulab writes only regular files"
                    "rm -rf $1 && mkdir -p $1 && ln -s /dev/full $1/full.npy && exec $0 apply relu --input ${PROJECT_SOURCE_DIR}/tests/data/gradient.png --output $1/full.npy")
gpulab_hostile_test(apply_output_fifo 1 "cannot write .*out.npy: it is a FIFO \\(named pipe\\), not a regular file"
                    "rm -rf $1 && mkdir -p $1 && mkfifo $1/out.npy && exec $0 apply relu --input ${PROJECT_SOURCE_DIR}/tests/data/gradient.png --output $1/out.npy")
gpulab_hostile_test(lessons_check_fifo 1 "x.toml: is a FIFO \\(named pipe\\), not a regular file"
                    "rm -rf $1 && mkdir -p $1 && mkfifo $1/x.toml && exec $0 lessons --check $1/x.toml")
gpulab_hostile_test(lessons_check_dev_zero 1 "z.toml: is a device, not a regular file"
                    "rm -rf $1 && mkdir -p $1 && ln -s /dev/zero $1/z.toml && exec $0 lessons --check $1/z.toml")

# 50,000 dotted parts in one table header, written at configure time.
string(REPEAT ".a" 50000 GPULAB_DEEP_PARTS)
file(WRITE ${GPULAB_HOSTILE_OUT}/deep.toml "id = \"deep\"\n[a${GPULAB_DEEP_PARTS}]\n")
gpulab_hostile_test(lessons_check_deep_header 1
                    "deep.toml:2: a key or table header of 50001 dotted parts"
                    "exec $0 lessons --check ${GPULAB_HOSTILE_OUT}/deep.toml")

# A lesson file refused for its size, asked for by name: the sentence names the file and why
# (issue 43), where it once said "unknown lesson".
gpulab_hostile_test(lesson_refused_by_name 1 "the lesson 'long-line' cannot be opened: .*long-line.toml: is [0-9.]+ MiB, larger than any lesson file"
                    "rm -rf $1 && mkdir -p $1 && yes a | head -c 2097152 > $1/long-line.toml && exec $0 export --lesson long-line --lesson-dir $1 --out $1/out")

# A step whose picture does not decode: the export says which step, which file and why, and exits 1
# (issue 43: it exported the built-in picture under the step and exited 0).
foreach(lesson bad-picture bad-picture-activation)
    string(REPLACE "bad-picture" "lesson_picture_broken" test "${lesson}")
    string(REPLACE "-" "_" test "${test}")
    add_test(NAME cli.hostile.${test}
             COMMAND ${CMAKE_COMMAND}
                     "-DCMD=$<TARGET_FILE:gpulab>;export;--lesson;${lesson};--lesson-dir;${PROJECT_SOURCE_DIR}/tests/data/lessons-bad-picture;--all-steps;--quick;--out;${GPULAB_HOSTILE_OUT}/${test}"
                     -DEXPECT_RC=1 "-DEXPECT_REGEX=gpulab export: step 1: the step's picture cannot be used: .*not-a-picture.png: cannot decode"
                     -DEXPECT_LINES=1 -P ${GPULAB_CHECK})
    list(APPEND GPULAB_HOSTILE_TESTS cli.hostile.${test})
endforeach()

# A lesson folder holding a FIFO, a /dev/zero symlink and the deep file: the built-in lessons
# still list (exit 0) and each bad file is named once on stderr.
add_test(NAME cli.hostile.lesson_dir_special_files
         COMMAND ${CMAKE_COMMAND}
                 "-DCMD=/bin/sh;-c;rm -rf $1 && mkdir -p $1 && mkfifo $1/fifo.toml && ln -s /dev/zero $1/zero.toml && cp ${GPULAB_HOSTILE_OUT}/deep.toml $1/ && exec $0 lessons --lesson-dir $1;$<TARGET_FILE:gpulab>;${GPULAB_HOSTILE_OUT}/lesson-dir"
                 -DEXPECT_RC=0
                 "-DEXPECT_REGEX=elementwise-activations +ready.*deep.toml:2: a key or table header.*fifo.toml: is a FIFO.*zero.toml: is a device"
                 -DEXPECT_LINES=3 -P ${GPULAB_CHECK})
list(APPEND GPULAB_HOSTILE_TESTS cli.hostile.lesson_dir_special_files)

set_tests_properties(${GPULAB_HOSTILE_TESTS} PROPERTIES LABELS "cli;hostile" TIMEOUT 60
                     ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}")

# An injected kernel fault (core/backends/fault_injection.h) in cpu-parallel's second run: bench reports it
# on that backend's line and finishes the rest (exit 0).
add_test(NAME cli.hostile.injected_kernel_fault
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:gpulab>;bench;--quick;--op;relu" -DEXPECT_RC=0
                 "-DEXPECT_REGEX=cpu-parallel +not run: cpu-parallel: kernel fault: .*\\(injected fault\\).*cpu-scalar"
                 -P ${GPULAB_CHECK})
set_tests_properties(cli.hostile.injected_kernel_fault PROPERTIES LABELS "cli;hostile" TIMEOUT 300
                     ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR};GPULAB_INJECT_FAULT=cpu-parallel:2:fault")

# Issue 31, item 1: gpulab killed at random moments while it writes (SIGKILL, SIGTERM, SIGINT; 200
# `apply` runs and 20 `export --quick` runs) leaves no cut file under a final name, and a caught
# signal leaves no temporary behind (tests/kill_loop.py). Left out of the sanitizer run
# (scripts/ci-sanitizers.sh): it tests the writer, which the plain build runs.
add_test(NAME reliability.kill_loop
         COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/kill_loop.py $<TARGET_FILE:gpulab>
                 ${CMAKE_CURRENT_BINARY_DIR}/kill-loop --apply-kills 200 --export-kills 20)
set_tests_properties(reliability.kill_loop PROPERTIES LABELS "cli;killloop" TIMEOUT 600
                     ENVIRONMENT "GPULAB_DATA_DIR=${PROJECT_SOURCE_DIR}")
