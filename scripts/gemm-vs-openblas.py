#!/usr/bin/env python3
"""Our FP32 matrix product against OpenBLAS's sgemm (the BLAS under numpy's float32 matmul on Debian)
and oneDNN's, side by side (issue 45: ours >= 1.0x both at 1024^3-4096^3 on 2 cores).

For each pair and size, in alternating order so neither side always runs on the warmer or quieter
machine: OpenBLAS's cblas_sgemm timed here through ctypes (row-major, C = A x B, the same warm-up and
sample rule as gpulab: 2 warm-ups, then at least 10 samples and 0.4 s), and
`gpulab bench --suite tensor --gemm-fp32-only --gemm-size N --json` (ours and cpu-onednn). Prints each
pair's GFLOP/s, then per size the median of the pairs, their spread and the ratios.

OpenBLAS 0.3.21 (Debian 12) takes some recent Xeons for a "Prescott" (docs/benchmarks.md), so its
kernel is named by openblas_get_corename() and set with OPENBLAS_CORETYPE: SkylakeX for --isa avx512,
Haswell for --isa avx2 (gpulab gets GPULAB_ISA the same), unless --openblas-core says otherwise.
Needs Debian's libopenblas0-pthread (or libopenblas-dev) and a built gpulab; not run by CI.
Usage: scripts/gemm-vs-openblas.py [--gpulab build/app/gpulab] [--sizes 1024 2048 4096] [--pairs 3]
                                   [--isa avx512|avx2] [--threads N] [--openblas-core NAME]"""
import argparse
import array
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time

CORE_FOR_ISA = {"avx512": "SkylakeX", "avx2": "Haswell"}


def load_openblas(core, threads):
    # Both are read when the library loads.
    os.environ["OPENBLAS_CORETYPE"] = core
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    for name in ("libopenblas.so.0", "libopenblas.so"):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            lib = None
    if lib is None:
        sys.exit("gemm-vs-openblas: no libopenblas.so.0 (apt install libopenblas0-pthread)")
    lib.openblas_get_corename.restype = ctypes.c_char_p
    lib.openblas_get_config.restype = ctypes.c_char_p
    lib.openblas_set_num_threads(threads)
    f = ctypes.c_float
    p = ctypes.c_void_p
    i = ctypes.c_int
    lib.cblas_sgemm.argtypes = [i, i, i, i, i, i, f, p, i, p, i, f, p, i]
    lib.cblas_sgemm.restype = None
    return lib


def matrix(n, seed):
    # Fixed numbers in [-1, 1): a short pattern repeated (the speed does not depend on the values).
    pattern = array.array("f", [((seed * 7919 + j * 104729) % 2000) / 1000.0 - 1.0 for j in range(4099)])
    values = pattern * (n * n // len(pattern) + 1)
    del values[n * n:]
    return values


def time_openblas(lib, n):
    a, b, c = matrix(n, 1), matrix(n, 2), array.array("f", bytes(4 * n * n))
    pa, pb, pc = (ctypes.c_void_p(x.buffer_info()[0]) for x in (a, b, c))

    def run():
        lib.cblas_sgemm(101, 111, 111, n, n, n, 1.0, pa, n, pb, n, 0.0, pc, n)  # row-major, no transposes

    for _ in range(2):
        run()
    samples, start = [], time.perf_counter()
    while len(samples) < 40 and (len(samples) < 10 or time.perf_counter() - start < 0.4):
        t0 = time.perf_counter()
        run()
        samples.append(time.perf_counter() - t0)
    exact = sum(float(a[k]) * float(b[k * n]) for k in range(n))  # C(0, 0), to be sure it computed
    assert abs(c[0] - exact) <= 1e-3 * max(1.0, abs(exact)), (c[0], exact)
    flops = 2.0 * n ** 3
    return flops / statistics.median(samples) / 1e9, flops / max(samples) / 1e9, flops / min(samples) / 1e9


def time_gpulab(gpulab, n, isa):
    env = dict(os.environ, OMP_WAIT_POLICY="passive")
    env.pop("OPENBLAS_CORETYPE", None)
    if isa:
        env["GPULAB_ISA"] = isa
    out = subprocess.run([gpulab, "bench", "--suite", "tensor", "--gemm-fp32-only", "--gemm-size", str(n), "--json"],
                         env=env, check=True, capture_output=True, text=True).stdout
    rows = {}
    for r in json.loads(out):
        if r.get("op") == "gemm" and r.get("inputs") == "fp32" and r.get("ran"):
            rows[r["backend"]] = (r["gflops"], r["gflops_min"], r["gflops_max"], r["path"])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpulab", default="build/app/gpulab")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--isa", choices=["avx512", "avx2"], default=None,
                    help="GPULAB_ISA, and OpenBLAS's kernel to match")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--openblas-core", default=None,
                    help="OPENBLAS_CORETYPE (default: SkylakeX, or Haswell with --isa avx2)")
    args = ap.parse_args()

    core = args.openblas_core or CORE_FOR_ISA[args.isa or "avx512"]
    lib = load_openblas(core, args.threads)
    print(f"OpenBLAS {lib.openblas_get_config().decode()}, kernel {lib.openblas_get_corename().decode()}, "
          f"{args.threads} threads; gpulab {args.gpulab}, GPULAB_ISA={args.isa or '(unset)'}")
    results = {n: {"openblas": [], "cpu-parallel": [], "cpu-onednn": []} for n in args.sizes}
    paths = {}
    for pair in range(args.pairs):
        for n in args.sizes:
            order = ["openblas", "gpulab"] if pair % 2 == 0 else ["gpulab", "openblas"]
            line = []
            for side in order:
                if side == "openblas":
                    g = time_openblas(lib, n)
                    results[n]["openblas"].append(g[0])
                    line.append(f"OpenBLAS {g[0]:.0f} ({g[1]:.0f}..{g[2]:.0f})")
                else:
                    for backend, (g, lo, hi, path) in time_gpulab(args.gpulab, n, args.isa).items():
                        results[n][backend].append(g)
                        paths[backend] = path
                        line.append(f"{backend} {g:.0f} ({lo:.0f}..{hi:.0f})")
            print(f"pair {pair + 1}, {n}^3: " + ", ".join(line), flush=True)
    for backend, path in paths.items():
        print(f"{backend}: {path}")
    print("\nsize    ours (pairs' median, min..max)   OpenBLAS          oneDNN            "
          "ours/OpenBLAS per pair   ours/oneDNN per pair")
    for n in args.sizes:
        r = results[n]

        def cell(xs):
            return f"{statistics.median(xs):.0f} ({min(xs):.0f}..{max(xs):.0f})" if xs else "-"

        def ratios(other):
            return " ".join(f"{o / t:.2f}x" for o, t in zip(r["cpu-parallel"], r[other]) if t > 0) or "-"

        print(f"{n:<7} {cell(r['cpu-parallel']):<32} {cell(r['openblas']):<17} {cell(r['cpu-onednn']):<17} "
              f"{ratios('openblas'):<24} {ratios('cpu-onednn')}")


if __name__ == "__main__":
    main()
