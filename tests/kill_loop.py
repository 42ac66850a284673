#!/usr/bin/env python3
"""Kill gpulab at random moments while it writes, then look at what is under the final names
(issue 31, item 1): every file there must be complete and valid, and a SIGINT or SIGTERM must
leave no temporary file behind (a SIGKILL cannot be caught: its temporary may stay, under a dot
name, and is counted). Standard library only.

    kill_loop.py GPULAB WORKDIR [--apply-kills 200] [--export-kills 20]

`apply relu` writes a 16 MiB .npy: checked for its header, its size and sampled values. `export
--quick` writes PNGs, CSVs and a JSON: each PNG must end with its IEND chunk, each CSV and the JSON
with a newline. Exit 0 when nothing cut was found, else 1 with each bad file named.
"""
import argparse
import os
import random
import signal
import struct
import subprocess
import sys
import time

N = 1 << 22  # floats in the input: 16 MiB in, 16 MiB out


def value(i):
    # The input, known without reading it back: a saw of both signs.
    return float((i * 7919) % 2001 - 1000) / 250.0


def write_input(path):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % N
    pad = (64 - (10 + len(header) + 1) % 64) % 64
    header += " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        chunk = 1 << 16
        for start in range(0, N, chunk):
            f.write(struct.pack("<%df" % chunk, *(value(i) for i in range(start, start + chunk))))


def npy_problem(path, rng):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x93NUMPY\x01\x00":
        return "no .npy magic"
    hlen = struct.unpack("<H", data[8:10])[0]
    if "(%d,)" % N not in data[10:10 + hlen].decode(errors="replace"):
        return "header does not name the shape"
    body = 10 + hlen
    if len(data) != body + 4 * N:
        return "%d bytes, expected %d" % (len(data), body + 4 * N)
    for i in [0, N - 1] + [rng.randrange(N) for _ in range(16)]:
        got = struct.unpack("<f", data[body + 4 * i:body + 4 * i + 4])[0]
        want = max(value(i), 0.0)
        if abs(got - want) > 1e-6:
            return "element %d is %g, relu gives %g" % (i, got, want)
    return ""


def export_problems(folder):
    bad = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.startswith("."):
            continue
        with open(path, "rb") as f:
            data = f.read()
        if name.endswith(".png") and not data.endswith(b"IEND\xaeB`\x82"):
            bad.append("%s: PNG without its end chunk (%d bytes)" % (name, len(data)))
        if (name.endswith(".csv") or name.endswith(".json")) and not data.endswith(b"\n"):
            bad.append("%s: does not end with a line end (%d bytes)" % (name, len(data)))
    return bad


def temporaries(folder):
    return [n for n in os.listdir(folder) if n.startswith(".") and n.endswith(".tmp")]


def kill_at_random(cmd, env, rng, longest):
    """Starts cmd, sends a random signal after a random delay; returns (signal name, exit code)."""
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(rng.uniform(0.0, longest))
    sig = rng.choice([signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
    if p.poll() is None:
        p.send_signal(sig)
    rc = p.wait()
    return sig, rc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpulab")
    ap.add_argument("workdir")
    ap.add_argument("--apply-kills", type=int, default=200)
    ap.add_argument("--export-kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.workdir, exist_ok=True)
    env = dict(os.environ, DISPLAY="", WAYLAND_DISPLAY="")
    problems = []

    inp, out = os.path.join(a.workdir, "in.npy"), os.path.join(a.workdir, "out.npy")
    for stale in [out] + [os.path.join(a.workdir, t) for t in temporaries(a.workdir)]:
        if os.path.exists(stale):
            os.remove(stale)
    write_input(inp)
    apply = [a.gpulab, "apply", "relu", "--input", inp, "--output", out]
    # One whole run first: how long one takes sets the range of the random delays.
    t0 = time.monotonic()
    if subprocess.run(apply, env=env, stdout=subprocess.DEVNULL).returncode != 0:
        print("kill_loop: the first apply run failed")
        return 1
    whole = time.monotonic() - t0
    killed = finished = kill_leftovers = 0
    for i in range(a.apply_kills):
        sig, rc = kill_at_random(apply, env, rng, whole * 1.2)
        finished += rc == 0
        killed += rc != 0
        left = temporaries(a.workdir)
        if left and sig != signal.SIGKILL and rc != 0:
            problems.append("apply run %d: %s left %s" % (i, signal.Signals(sig).name, ", ".join(left)))
        kill_leftovers += len(left)
        for t in left:
            os.remove(os.path.join(a.workdir, t))
        if not os.path.exists(out):
            problems.append("apply run %d: out.npy is gone (the earlier whole file must stay)" % i)
            continue
        why = npy_problem(out, rng)
        if why:
            problems.append("apply run %d (%s): out.npy %s" % (i, signal.Signals(sig).name, why))
    print("kill_loop: apply relu, %d runs: %d killed, %d finished first; one whole run %.2f s; %d temporaries "
          "left by SIGKILL" % (a.apply_kills, killed, finished, whole, kill_leftovers))

    folder = os.path.join(a.workdir, "export")
    export = [a.gpulab, "export", "--lesson", "elementwise-activations", "--quick", "--out", folder]
    t0 = time.monotonic()
    first = subprocess.run(export, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    whole = time.monotonic() - t0
    if first.returncode != 0:
        if b"no offscreen OpenGL context" in first.stderr:
            print("kill_loop: export skipped: no offscreen OpenGL context")
            a.export_kills = 0
        else:
            print("kill_loop: the first export failed: " + first.stderr.decode(errors="replace"))
            return 1
    for i in range(a.export_kills):
        sig, rc = kill_at_random(export, env, rng, whole * 1.2)
        left = temporaries(folder)
        if left and sig != signal.SIGKILL and rc != 0:
            problems.append("export run %d: %s left %s" % (i, signal.Signals(sig).name, ", ".join(left)))
        for t in left:
            os.remove(os.path.join(folder, t))
        problems += ["export run %d (%s): %s" % (i, signal.Signals(sig).name, p) for p in export_problems(folder)]
    if a.export_kills:
        print("kill_loop: export --quick, %d runs killed at random (one whole run %.2f s)" % (a.export_kills, whole))

    for p in problems:
        print("kill_loop: " + p)
    print("kill_loop: %s" % ("no cut file under a final name" if not problems else "%d problems" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
