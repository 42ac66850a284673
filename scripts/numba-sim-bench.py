#!/usr/bin/env python3
"""numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) on the map puzzle's kernel, for the side-by-side
in docs/benchmarks.md against `gpulab bench --suite puzzles` (issue 28's target: gpulab's checked
simulator at least 100x numba's in simulated threads per CPU-second, same kernel, same machine).
Needs Debian's python3-numba (apt install python3-numba); not run by CI.
Usage: scripts/numba-sim-bench.py [N] [REPEATS]   (default 16384 elements, 3 repeats)"""
import os
import statistics
import sys
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402


@cuda.jit
def map_kernel(a, out, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        out[i] = a[i] + 10


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 16384
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    blocks = (n + 255) // 256
    threads = blocks * 256
    walls, cpus = [], []
    for _ in range(repeats):
        a = np.random.rand(n).astype(np.float32)
        out = np.zeros(n, dtype=np.float32)
        w0, c0 = time.perf_counter(), time.process_time()
        map_kernel[blocks, 256](a, out, n)
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
        assert np.allclose(out, a + 10)
    w, c = statistics.median(walls), statistics.median(cpus)
    print(f"numba {getattr(sys.modules['numba'], '__version__', '?')} CUDA simulator, map kernel, {threads} threads "
          f"({blocks} blocks of 256), median of {repeats}: wall {w:.3f} s ({threads / w:.0f} threads/s), "
          f"CPU {c:.3f} s ({threads / c:.0f} threads per CPU-second); walls {[round(x, 3) for x in walls]}")


if __name__ == "__main__":
    main()
