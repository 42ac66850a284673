#!/usr/bin/env bash
# A classroom soak (issue 16): the app in presenter mode under Xvfb, driven by keys through every
# lesson, every step, reruns, exports, reduced motion and text sizes, for N minutes in ONE process,
# with its resident memory sampled every SAMPLE_SECONDS. Fails when the process dies, or when RSS
# after the warm-up (the first WARMUP_MINUTES) grows by more than RSS_GROWTH_MB.
# Usage: scripts/soak.sh [--minutes N] [--binary build/app/gpulab]
# Writes build-soak/<date>/rss.csv (seconds,rss_kib), the app log and its exports there.
# Not measured here yet: GL object counts and frame times (the app would have to report them).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
minutes=3
binary=build/app/gpulab
while [ $# -gt 0 ]; do
    case "$1" in
        --minutes) minutes=$2; shift 2 ;;
        --binary) binary=$2; shift 2 ;;
        *) echo "usage: $0 [--minutes N] [--binary PATH]" >&2; exit 2 ;;
    esac
done
SAMPLE_SECONDS=${SAMPLE_SECONDS:-60}
WARMUP_MINUTES=${WARMUP_MINUTES:-1}
RSS_GROWTH_MB=${RSS_GROWTH_MB:-64}
[ -x "$binary" ] || { echo "soak: $binary not built (make build)" >&2; exit 2; }
binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
out="$root/build-soak/$(date -u +%Y%m%d-%H%M%S)"  # build*/ is ignored by git
mkdir -p "$out"

# One round: each lesson, stepped through with a rerun and an export on the way, then the
# presenter toggles. The app takes one scripted key every 6 frames; the round repeats until the
# time is used (the script is cut to fit one argument).
round="1,R,Right,Right,E,Right,R,End,Home,2,R,Right,Right,E,Right,End,3,R,Right,Right,E,Right,End,4,R,Right,Right,E,Right,End,M,M,+,-,B,Right,Left"
keys=$round
while [ ${#keys} -lt 120000 ]; do keys="$keys,$round"; done
frames=$(( minutes * 60 * 60 ))

say() { echo "soak [$(( $(date +%s) - start )) s]: $*"; }
start=$(date +%s)
cd "$out"
GPULAB_DATA_DIR="$root" xvfb-run -a -s "-screen 0 1920x1080x24" "$binary" --present --script-keys "$keys" \
    --frames "$frames" >"$out/app.log" 2>&1 &
runner=$!
# xvfb-run's child is the app: find it to sample its memory.
pid=""
for _ in $(seq 50); do
    pid=$(pgrep -P "$runner" -f "$binary" || true)
    [ -z "$pid" ] && pid=$(pgrep -n -f "^$binary --present" || true)
    [ -n "$pid" ] && break
    sleep 0.2
done
[ -n "$pid" ] || { echo "soak: the app did not start; see $out/app.log" >&2; exit 1; }
echo "seconds,rss_kib" >"$out/rss.csv"
deadline=$(( start + minutes * 60 ))
while kill -0 "$pid" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo "")
    [ -n "$rss" ] && echo "$(( $(date +%s) - start )),$rss" >>"$out/rss.csv" && say "RSS $(( rss / 1024 )) MiB"
    sleep "$SAMPLE_SECONDS"
done
if ! kill -0 "$pid" 2>/dev/null; then
    wait "$runner" && rc=0 || rc=$?
    # Ending early is fine only when the frame count ran out with exit code 0.
    if [ "$rc" -ne 0 ]; then echo "soak: the app exited with $rc before the time was up; see $out/app.log" >&2; exit 1; fi
else
    kill "$pid"
    wait "$runner" 2>/dev/null || true
fi
awk -F, -v warm=$(( WARMUP_MINUTES * 60 )) -v bound=$(( RSS_GROWTH_MB * 1024 )) '
    NR > 1 && $1 >= warm { if (first == "") first = $2; last = $2; if ($2 > peak) peak = $2 }
    END {
        if (first == "") { print "soak: no sample after the warm-up; run longer"; exit 1 }
        printf "soak: RSS after warm-up %d MiB, last %d MiB, peak %d MiB (bound: +%d MiB)\n", first/1024, last/1024, peak/1024, bound/1024
        if (peak - first > bound) { print "soak: RSS grew past the bound"; exit 1 }
    }' "$out/rss.csv"
echo "soak: exports written: $(find "$out" -name '*.png' | wc -l) PNG, $(find "$out" -name '*.csv' ! -name rss.csv | wc -l) CSV"
echo "soak: passed ($out)"
