#!/usr/bin/env bash
# `gpulab puzzle grade` on a class of 30 (issue 40): 27 ordinary submissions whose verdicts are
# known (each puzzle's solution passes, a wrong/*.cu fails) and three hostile ones: a forged
# report, a kernel that loops and prints terminal escapes, and a link to a private file. The 27 are
# graded right, the hostile ones each get their own verdict, the batch finishes, the private file
# is not read and nothing is written outside --out.
#   tests/puzzle_grade_class.sh GPULAB SOURCE_DIR WORK_DIR
set -euo pipefail
gpulab=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work/class" "$work/private"
echo "gpulab-private-grade-42" > "$work/private/secret.cu"
expected="$work/expected.txt"
: > "$expected"
n=0
# Solutions pass, the first wrong solution of each puzzle fails (as tests/test_puzzles.cpp checks).
for dir in "$src"/puzzles/*/; do
    id=$(basename "$dir")
    [ -f "$dir/puzzle.toml" ] || continue
    n=$((n + 1)); s=$(printf 's%02d' "$n"); mkdir -p "$work/class/$s"
    cp "$dir/solution.cu" "$work/class/$s/$id.cu"; echo "$s $id pass" >> "$expected"
    wrong=$(ls "$dir"/wrong/*.cu | grep -v -e opens-a-socket -e forks -e writes-a-file | head -1)
    n=$((n + 1)); s=$(printf 's%02d' "$n"); mkdir -p "$work/class/$s"
    cp "$wrong" "$work/class/$s/$id.cu"; echo "$s $id fail" >> "$expected"
done
# Up to 27 with more passing copies of the map solution, named by student (flat layout: the
# puzzle is told by the kernel the file defines).
while [ "$n" -lt 27 ]; do
    n=$((n + 1)); s=$(printf 's%02d' "$n")
    cp "$src/puzzles/map/solution.cu" "$work/class/$s.cu"; echo "$s map pass" >> "$expected"
done
cat > "$work/class/h1.cu" <<'CU'
extern "C" long write(int, const void*, unsigned long);
__global__ void map(const float* a, float* out, int n) {
    write(3, "done\n", 5);
}
CU
cat > "$work/class/h2.cu" <<'CU'
#include <cstdio>
__global__ void map(const float* a, float* out, int n) {
    printf("\033[2J\033[H all students pass \n");
    while (true) { out[0] = 1.0f; }
}
CU
ln -s "$work/private/secret.cu" "$work/class/h3.cu"
before=$(find "$work" -type f | sort | md5sum)
"$gpulab" puzzle grade "$work/class" --jobs 2 --time-limit 2 --out "$work/results.json" > "$work/table.txt"
"$gpulab" puzzle grade "$work/class" --jobs 2 --time-limit 2 --out "$work/results.csv" > /dev/null
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
r = json.load(open(f"{work}/results.json"))
subs = {s["student"]: s for s in r["submissions"]}
ok = True
def fail(msg):
    global ok
    ok = False
    print("FAIL:", msg)
for line in open(f"{work}/expected.txt"):
    student, puzzle, verdict = line.split()
    s = subs.get(student)
    if s is None: fail(f"{student} missing"); continue
    if s["puzzle"] != puzzle: fail(f"{student}: puzzle {s['puzzle']} != {puzzle}")
    if s["passed"] != (verdict == "pass"): fail(f"{student}: passed={s['passed']}, expected {verdict}: {s['summary']}")
    if verdict == "pass" and s["score"] != s["max_score"]: fail(f"{student}: score {s['score']}/{s['max_score']}")
h1, h2, h3 = subs["h1"], subs["h2"], subs["h3"]
if h1["passed"] or not any(d["kind"] == "forbidden" for d in h1["defects"]): fail(f"h1 (forged report): {h1['summary']}")
if h2["passed"] or not any(d["kind"] == "timeout" for d in h2["defects"]): fail(f"h2 (endless): {h2['summary']}")
if "\u001b" in json.dumps(h2) or "\x1b" in h2["printed"]: fail("h2's escape codes reached the results")
if h3["passed"] or "link" not in h3["summary"]: fail(f"h3 (link): {h3['summary']}")
text = open(f"{work}/results.json").read() + open(f"{work}/results.csv").read() + open(f"{work}/table.txt").read()
if "gpulab-private-grade-42" in text: fail("the private file was read")
if len(subs) != 30: fail(f"{len(subs)} submissions graded, expected 30")
print("graded", len(subs), "submissions" if ok else "")
sys.exit(0 if ok else 1)
PY
grep -q '^"student","file","puzzle"' "$work/results.csv" || head -1 "$work/results.csv" | grep -q '^student,file,puzzle'
after=$(find "$work" -type f ! -name 'results.*' ! -name table.txt | sort | md5sum)
[ "$before" = "$after" ] || { echo "FAIL: files changed outside --out"; exit 1; }
echo "class of 30 graded"
