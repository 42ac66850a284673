#!/usr/bin/env python3
# Writes the small float32 .npy matrices tests/cli_tests.cmake gives `gpulab apply matmul`
# (NumPy's .npy version 1.0 by hand: no NumPy needed). Run from this folder; the files are committed.
# With --big DIR it writes two large ones into DIR instead (the tests do that at run time).
import math
import os
import struct
import sys


def write_npy(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else ""))
    # magic (6) + version (2) + length (2) + header, padded with spaces to a multiple of 64, ending in \n
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * (pad % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


def matrix(rows, cols, f):
    return [f(i, j) for i in range(rows) for j in range(cols)]


if len(sys.argv) == 3 and sys.argv[1] == "--big":
    # Two 2048 x 2048 matrices (16 MiB each), written at test time into the build folder: a product
    # of 2^33 multiply-adds, for the "would take minutes" refusal.
    for name in ("a_2048x2048.npy", "b_2048x2048.npy"):
        write_npy(os.path.join(sys.argv[2], name), (2048, 2048), [0.5] * (2048 * 2048))
    sys.exit(0)

a = matrix(3, 5, lambda i, j: math.sin(1.0 + i * 5 + j) * 1.5)
b = matrix(5, 4, lambda i, j: math.cos(0.5 + i * 4 + j) * 0.75)
write_npy("a_3x5.npy", (3, 5), a)
write_npy("b_5x4.npy", (5, 4), b)
write_npy("b_4x2.npy", (4, 2), matrix(4, 2, lambda i, j: 1.0))
a_nan = list(a)
a_nan[1 * 5 + 2] = float("nan")
write_npy("a_3x5_nan.npy", (3, 5), a_nan)
a_big = list(a)
a_big[0] = 1.0e5  # beyond FP16's 65,504
write_npy("a_3x5_big.npy", (3, 5), a_big)
write_npy("cube_2x2x2.npy", (2, 2, 2), [1.0] * 8)
# A wider K, for the FP64 agreement: 16 x 300 times 300 x 8.
write_npy("a_16x300.npy", (16, 300), matrix(16, 300, lambda i, j: math.sin(0.1 * i + 0.37 * j)))
write_npy("b_300x8.npy", (300, 8), matrix(300, 8, lambda i, j: math.cos(0.21 * i - 0.5 * j)))
sys.exit(0)
