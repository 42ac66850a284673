#!/usr/bin/env bash
# A classroom soak (issue 16): the app in presenter mode under Xvfb for N minutes in ONE process,
# driven by scripted keys through every lesson and every step, with runs, exports, live mode,
# comparison imports, reduced motion, text sizes and the blank screen, round after round.
# Every SAMPLE_SECONDS it samples the app's resident memory and the load average (rss.csv); the
# app itself writes its frame times and GL object counts every 10 s (stats.csv, GPULAB_STATS_LOG).
# At the end the app gets SIGTERM and closes as from its close button, so its last stats line is
# taken after the teardown. Fails when:
#   - the app dies or exits non-zero, or does not close within 60 s of SIGTERM;
#   - RSS after the warm-up (the first WARMUP_MINUTES) peaks more than RSS_GROWTH_MB higher in the
#     second half of the samples than in the first (RSS swings with the lesson on screen);
#   - GL objects held grow after the warm-up (the last third's peak above the first third's), or
#     any is still alive after the teardown;
#   - a quiet frame (no measurement running, no export written) after the warm-up takes longer
#     than QUIET_FRAME_MS (0: report only; the default, since a shared box stalls any process).
# --smoke (CI's short run, shorter than two rounds): only the app dying, hanging or leaving GL objects
# after its teardown fails; RSS and GL growth are reported, since lessons first opened after the
# warm-up allocate their buffers then.
# Usage: scripts/soak.sh [--minutes N] [--binary build/app/gpulab] [--smoke]
# Writes build-soak/<date>/{rss.csv,stats.csv,app.log,summary.txt} and the exports there.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
minutes=3
binary=build/app/gpulab
smoke=()
while [ $# -gt 0 ]; do
    case "$1" in
        --minutes) minutes=$2; shift 2 ;;
        --binary) binary=$2; shift 2 ;;
        --smoke) smoke=(--smoke); shift ;;
        *) echo "usage: $0 [--minutes N] [--binary PATH] [--smoke]" >&2; exit 2 ;;
    esac
done
SAMPLE_SECONDS=${SAMPLE_SECONDS:-60}
WARMUP_MINUTES=${WARMUP_MINUTES:-1}
RSS_GROWTH_MB=${RSS_GROWTH_MB:-64}
QUIET_FRAME_MS=${QUIET_FRAME_MS:-0}
[ -x "$binary" ] || { echo "soak: $binary not built (make build)" >&2; exit 2; }
binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
out="$root/build-soak/$(date -u +%Y%m%d-%H%M%S)"  # build*/ is ignored by git
mkdir -p "$out"
# The window remembers its palette, scale and reduced motion: the soak's keys change them in its own
# folder, never the user's.
export XDG_CONFIG_HOME="$out/config"

# One round. Lessons in list order: 1 activations, 2 convolution, 3 SIMD vs MIMD, 4 latency, 5 training,
# 6 kernel puzzles, 7 tensor cores. Each
# is stepped through every step (its run given time to finish), rerun, exported, given a comparison
# import (an export of that lesson from another machine: the fuzz seeds) and exported again with
# it; live mode runs for a while in lesson 1. Then reduced motion, text sizes and the blank screen.
# The app takes one scripted item every 6 frames ("Wait" does nothing for those frames, so runs
# finish and quiet frames get measured); the round repeats until the time is used (the script is
# cut to fit one argument).
w() { local s="" i; for (( i = 0; i < $1; i++ )); do s="$s,Wait"; done; echo "$s"; }
steps() { local s="" i; for (( i = 0; i < $1; i++ )); do s="$s,Right$(w 5)"; done; echo "$s"; }
cmp="$root/tests/fuzz/corpus/compare"
lesson() {  # <digit> <steps after the first> <comparison file>
    echo "$1$(w 10),R$(w 10)$(steps "$2"),E$(w 2),Compare=$cmp/$3$(w 2),E$(w 2),Home$(w 5)"
}
# Lesson 5 trains: its Train, race and batch-size steps start runs of up to a minute, so each is
# given a moment and then stopped with S, as an instructor in a hurry would (the app must take a
# stop at any point of a training run, and the next run must start clean).
stop="S$(w 3)"
train="5$(w 10),R$(w 10),$stop,Right$(w 5),Right$(w 15),$stop,Right$(w 15),$stop,Right$(w 5),Right$(w 15),$stop"
train="$train,Right$(w 5),E$(w 2),Compare=$cmp/train-train.csv$(w 2),E$(w 2),Home$(w 5)"
# The puzzles (6) and the tensor-core lesson (7) have no comparison import: stepped, run, exported.
plain() {  # <digit> <steps after the first>
    echo "$1$(w 10),R$(w 10)$(steps "$2"),R$(w 10),E$(w 2),Home$(w 5)"
}
round="$(lesson 1 5 activation-summary.csv),Live$(w 25),Live$(w 10)"
round="$round,$(lesson 2 8 conv-conv.csv),$(lesson 3 9 simd-simd.csv),$(lesson 4 4 latency-sweep.csv),$train"
round="$round,$(plain 6 11),$(plain 7 9)"
round="$round,M,M,+$(w 3),+$(w 3),-$(w 3),-$(w 3),B$(w 5),Right,Left$(w 5)"
keys=$round
while [ ${#keys} -lt 120000 ]; do keys="$keys,$round"; done

say() { echo "soak [$(( $(date +%s) - start )) s]: $*"; }
start=$(date +%s)
cd "$out"
# A crash leaves a core file in $out (the app's working folder), and its backtrace goes to the log
# below when gdb is installed: a crash at a random moment of a 3-minute run is rarely reproduced.
ulimit -c unlimited 2>/dev/null || true
# The results store gets a folder of its own, so a soak starts with nothing stored and fills it
# (the writer thread and the budget run for the whole soak).
GPULAB_DATA_DIR="$root" GPULAB_STATS_LOG="$out/stats.csv" GPULAB_RESULTS_DIR="$out/results" \
    sh "$root/tests/xvfb_run.sh" "$binary" --present --script-keys "$keys" >"$out/app.log" 2>&1 &
runner=$!
# The app is xvfb-run's child, and xvfb-run is the launcher's: find the grandchild whose executable
# is the binary, to sample its memory. (Not by command line: xvfb-run's own short-lived subshells
# carry the same arguments.)
pid=""
for _ in $(seq 100); do
    for child in $(pgrep -P "$runner" || true); do
        for grandchild in $(pgrep -P "$child" || true); do
            [ "$(readlink "/proc/$grandchild/exe" 2>/dev/null)" = "$binary" ] && pid=$grandchild
        done
    done
    [ -n "$pid" ] && break
    sleep 0.2
done
[ -n "$pid" ] || { echo "soak: the app did not start; see $out/app.log" >&2; exit 1; }
echo "seconds,rss_kib,load1,load5" >"$out/rss.csv"
deadline=$(( start + minutes * 60 ))
while kill -0 "$pid" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo "")
    read -r l1 l5 _ </proc/loadavg
    if [ -n "$rss" ]; then
        echo "$(( $(date +%s) - start )),$rss,$l1,$l5" >>"$out/rss.csv"
        say "RSS $(( rss / 1024 )) MiB, load $l1; app: $(tail -n 1 "$out/stats.csv" 2>/dev/null)"
    fi
    left=$(( deadline - $(date +%s) ))
    sleep $(( left < SAMPLE_SECONDS ? (left > 0 ? left : 0) : SAMPLE_SECONDS ))
done
ended_early=0
if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"
        echo "soak: the app did not close within 60 s of SIGTERM" >&2
        exit 1
    fi
else
    ended_early=1
fi
wait "$runner" && rc=0 || rc=$?
if [ "$rc" -ne 0 ] || [ "$ended_early" = 1 ]; then
    echo "soak: the app exited with $rc after $(( $(date +%s) - start )) s of $(( minutes * 60 )); see $out/app.log" >&2
    for core in "$out"/core*; do
        [ -f "$core" ] || continue
        if command -v gdb >/dev/null 2>&1; then
            echo "soak: backtrace of every thread from $core:" >&2
            gdb -q -batch -ex "thread apply all bt 25" "$binary" "$core" 2>&1 | grep -v "^\[New LWP" >&2 || true
        else
            echo "soak: core file $core (install gdb for a backtrace)" >&2
        fi
    done
    exit 1
fi
set -o pipefail
python3 "$root/scripts/soak_summary.py" "$out" --warmup-seconds $(( WARMUP_MINUTES * 60 )) \
    --rss-growth-mb "$RSS_GROWTH_MB" --quiet-frame-ms "$QUIET_FRAME_MS" "${smoke[@]}" | tee "$out/summary.txt"
