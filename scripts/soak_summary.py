#!/usr/bin/env python3
"""Reads a soak's rss.csv and stats.csv (scripts/soak.sh) and prints what the run showed: RSS after the
warm-up, GL objects held, frame times, exports written. Exits 1 when a bound is broken (see soak.sh)."""
import argparse
import csv
import pathlib
import sys

KINDS = ["textures", "buffers", "vaos", "programs", "shaders", "framebuffers", "queries"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--warmup-seconds", type=float, default=60)
    ap.add_argument("--rss-growth-mb", type=float, default=64)
    ap.add_argument("--quiet-frame-ms", type=float, default=0)
    ap.add_argument("--smoke", action="store_true", help="report RSS and GL growth without failing on them")
    a = ap.parse_args()
    failed = []
    growth_failed = []  # with --smoke, reported only

    rss = list(csv.DictReader(open(a.out / "rss.csv")))
    warm = [r for r in rss if float(r["seconds"]) >= a.warmup_seconds]
    if not warm:
        print("soak: no RSS sample after the warm-up; run longer")
        return 1
    mib = [int(r["rss_kib"]) / 1024 for r in warm]
    loads = [float(r["load1"]) for r in rss]
    # RSS swings with the lesson on screen (each allocates its buffers for a run), so a leak shows as
    # peaks that keep rising: the second half's peak is compared with the first half's.
    half = max(1, len(mib) // 2)
    growth = max(mib[half:] or mib) - max(mib[:half])
    print(f"soak: {len(rss)} RSS samples; after the warm-up ({a.warmup_seconds:.0f} s): first {mib[0]:.0f} MiB, "
          f"min {min(mib):.0f}, max {max(mib):.0f}, last {mib[-1]:.0f}; peak of the second half vs the first "
          f"{growth:+.0f} MiB (bound +{a.rss_growth_mb:.0f})")
    print(f"soak: load average (1 min) during the run: min {min(loads):.1f}, mean {sum(loads)/len(loads):.1f}, "
          f"max {max(loads):.1f}")
    if growth > a.rss_growth_mb:
        growth_failed.append("RSS grew past the bound")

    rows = list(csv.DictReader(open(a.out / "stats.csv")))
    if len(rows) < 2:
        print("soak: the app wrote no stats lines")
        return 1
    *lines, teardown = rows
    after = [r for r in lines if float(r["seconds"]) >= a.warmup_seconds] or lines
    totals = [sum(int(r[k]) for k in KINDS) for r in after]
    third = max(1, len(totals) // 3)
    held = {k: (min(int(r[k]) for r in after), max(int(r[k]) for r in after)) for k in KINDS}
    print("soak: GL objects held after the warm-up (min-max): " +
          ", ".join(f"{k} {lo}-{hi}" if lo != hi else f"{k} {lo}" for k, (lo, hi) in held.items()))
    print(f"soak: GL objects in all: first third's peak {max(totals[:third])}, last third's peak {max(totals[-third:])}")
    if max(totals[-third:]) > max(totals[:third]):
        growth_failed.append("GL objects grew after the warm-up")
    left = {k: int(teardown[k]) for k in KINDS if int(teardown[k]) != 0}
    print("soak: GL objects alive after the teardown: " + (", ".join(f"{k} {n}" for k, n in left.items()) or "none"))
    if left:
        failed.append("GL objects left after the teardown")

    frames = sum(int(r["frames"]) for r in after)
    quiet = sum(int(r["quiet_frames"]) for r in after)
    quiet_max = max(float(r["quiet_max_ms"]) for r in after)
    over = sum(int(r["quiet_over_100ms"]) for r in after)
    other_max = max(float(r["other_max_ms"]) for r in after)
    span = float(after[-1]["seconds"]) - float(after[0]["seconds"]) + 10
    worst = max(after, key=lambda r: float(r["quiet_max_ms"]))
    print(f"soak: frames after the warm-up: {frames} ({frames / span:.1f}/s), {quiet} quiet; longest quiet frame "
          f"{quiet_max:.0f} ms (at {float(worst['seconds']):.0f} s), {over} quiet frames over 100 ms; longest frame "
          f"with a job or an export {other_max:.0f} ms")
    if a.quiet_frame_ms > 0 and quiet_max > a.quiet_frame_ms:
        failed.append(f"a quiet frame took {quiet_max:.0f} ms (bound {a.quiet_frame_ms:.0f})")

    log = (a.out / "app.log").read_text(errors="replace")
    pngs = len(list(a.out.rglob("*.png")))
    csvs = len([p for p in a.out.rglob("*.csv") if p.name not in ("rss.csv", "stats.csv")])
    print(f"soak: exports: {log.count('gpulab: exported')} reported, {pngs} PNG and {csvs} CSV files written; "
          f"comparisons loaded: {log.count(': loaded')}, refused: {log.count('gpulab: compare ') - log.count(': loaded')}")
    if a.smoke:
        for f in growth_failed:
            print("soak: (smoke run, not failed) " + f)
    else:
        failed += growth_failed
    for f in failed:
        print("soak: FAILED: " + f)
    print("soak: " + ("failed" if failed else "passed") + f" ({a.out})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
