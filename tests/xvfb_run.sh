#!/bin/sh
# Runs one command under a fresh 1920x1080 Xvfb display: the GUI tests' launcher.
#   tests/xvfb_run.sh program [args...]      (exit status: the program's)
#
# Why not plain `xvfb-run -a`: xvfb-run keeps its X authority file in a temporary folder of its
# own and, if removing that folder fails after the program ended, replaces the program's exit
# status with 5 ("problem while cleaning up temporary directory"). That happened once in CI
# (gui.startup_error, under AddressSanitizer) and could not be reproduced in 80 runs here. Giving
# xvfb-run an authority file (-f) means it makes no folder to clean up; this script removes the
# file itself and never lets that removal change the result.
set -u
auth=$(mktemp "${TMPDIR:-/tmp}/gpulab-xauth.XXXXXX") || { echo "xvfb_run.sh: cannot make a temporary file" >&2; exit 2; }
xvfb-run -a -f "$auth" -s "-screen 0 1920x1080x24" "$@"
rc=$?
rm -f "$auth" 2>/dev/null
exit $rc
