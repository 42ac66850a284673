#!/usr/bin/env python3
"""`gpulab train --workers` end to end, through Debian's mpirun (tests/mpi_tests.cmake). Standard library only.

    mpi_train_check.py match GPULAB WORKDIR [--hostfile FILE]
        trains --limit 256 once in one process and once in two MPI workers (the second one with a
        50 ms straggler), both saving their parameters; the weights must agree within float-sum tolerance,
        the losses and accuracies too, and the JSON must carry each worker's compute, wait and
        all-reduce times, the straggler's partner waiting longer than it.
    mpi_train_check.py kill GPULAB WORKDIR
        starts a long two-worker run, kills one worker with SIGKILL, and checks that gpulab ends
        with one sentence naming it and a non-zero exit, and that no process of the run is left.

Prints SKIPPED: ... (CTest counts it as skipped) where mpirun is not on PATH.
"""
import array
import json
import os
import shutil
import signal
import subprocess
import sys
import time

LIMIT = ["--limit", "256", "--batch", "32", "--epochs", "1", "--seed", "7"]


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(cmd, timeout=240):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}\n--- stdout ---\n{p.stdout}\n--- stderr ---\n{p.stderr}")
    return p


def read_floats(path):
    a = array.array("f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return a


def match(gpulab, work, hostfile):
    one_path, two_path = os.path.join(work, "one.params"), os.path.join(work, "two.params")
    one = json.loads(run([gpulab, "train", *LIMIT, "--json", "--save-params", one_path]).stdout)
    cmd = [gpulab, "train", *LIMIT, "--json", "--save-params", two_path, "--workers", "2", "--straggler-ms", "50"]
    if hostfile:
        cmd += ["--hostfile", hostfile]
    p = run(cmd)
    two = json.loads(p.stdout)
    if p.stderr.strip():
        fail("a successful run printed on stderr:\n" + p.stderr)
    a, b = read_floats(one_path), read_floats(two_path)
    if len(a) != len(b) or len(a) == 0:
        fail(f"parameter counts differ: {len(a)} and {len(b)}")
    scale = max(1.0, max(abs(x) for x in a))
    worst = max(abs(x - y) for x, y in zip(a, b))
    # 8 steps of SGD with momentum, each gradient summed in another order: float rounding, about
    # 1e-7 relative a step, grows a little; a wrong weighting of the slices is off by whole percents.
    if worst > 1e-4 * scale:
        fail(f"weights differ by up to {worst:g} (largest weight {scale:g})")
    r1, r2 = one[0], two[0]
    for key in ("loss", "train_accuracy", "test_accuracy"):
        if abs(r1[key] - r2[key]) > 1e-4 * max(1.0, abs(r1[key])):
            fail(f"{key}: one process {r1[key]}, two workers {r2[key]}")
    if r2["images"] != r1["images"] or r2["workers"] != 2 or len(r2["per_worker"]) != 2:
        fail("the two-worker record lacks its workers: " + json.dumps(r2))
    w0, w1 = r2["per_worker"]
    for w in (w0, w1):
        for key in ("compute_ms_per_step", "wait_ms_per_step", "allreduce_ms_per_step"):
            if not isinstance(w[key], (int, float)) or w[key] < 0:
                fail(f"worker {w['rank']}: {key} is {w[key]}")
    # Worker 1 sleeps 50 ms a step (counted in its compute): worker 0 waits for it. Medians, and a
    # delay well above a step's compute (15-30 ms here), so that a shared machine's hiccups (one
    # step where worker 0 lost its core) cannot turn the roles round.
    if w1["median_ms"]["compute"] < 50:
        fail(f"the straggler's compute should hold its 50 ms sleep: {w1}")
    if not (w0["median_ms"]["wait"] > 20 and w0["median_ms"]["wait"] > w1["median_ms"]["wait"]):
        fail(f"worker 0 should wait for the straggler: {w0} {w1}")
    print(f"ok: weights within {worst:.2e} (largest {scale:.3f}); loss {r1['loss']:.6f} and {r2['loss']:.6f}; "
          f"worker 0 waited {w0['median_ms']['wait']:.1f} ms a step (median)")


def processes_with(marker):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().split(b"\0")
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append((int(pid), [c.decode(errors="replace") for c in cmdline if c]))
    return found


def kill(gpulab, work):
    marker = os.path.join(work, f"kill-run-{os.getpid()}.params")  # names this run's processes only
    launcher = subprocess.Popen([gpulab, "train", "--limit", "256", "--batch", "32", "--epochs", "1000",
                                 "--workers", "2", "--save-params", marker],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    workers = []
    deadline = time.time() + 60
    while time.time() < deadline and len(workers) < 2:
        time.sleep(0.2)
        workers = [pid for pid, cmd in processes_with(marker) if "--rank-worker" in cmd]
        if launcher.poll() is not None:
            fail("gpulab ended before its workers were found: " + launcher.stderr.read())
    if len(workers) < 2:
        launcher.kill()
        fail("the two workers never appeared")
    time.sleep(2.0)  # into training: past MPI_Init and the data set
    os.kill(workers[-1], signal.SIGKILL)
    try:
        _, err = launcher.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        launcher.kill()
        fail("gpulab did not end within 60 s of a worker being killed")
    left = []
    for _ in range(50):  # mpirun's last processes may take a moment to be reaped
        left = [p for p in processes_with(marker) if p[0] != launcher.pid]
        if not left:
            break
        time.sleep(0.1)
    if left:
        for pid, _ in left:
            os.kill(pid, signal.SIGKILL)
        fail(f"processes left after the run: {left}")
    if launcher.returncode == 0:
        fail("gpulab exited 0 after a worker was killed")
    lines = [line for line in err.strip().splitlines() if line.strip()]
    if len(lines) != 1 or "was killed by signal 9" not in lines[0] or not lines[0].startswith("gpulab train: worker "):
        fail("expected one sentence naming the killed worker, got:\n" + err)
    print(f"ok: exit {launcher.returncode}, {lines[0]}")


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("match", "kill"):
        sys.exit(__doc__)
    mode, gpulab, work = sys.argv[1:4]
    if not shutil.which("mpirun"):
        print("SKIPPED: mpirun is not on PATH (install openmpi-bin)")
        return
    os.makedirs(work, exist_ok=True)
    if mode == "match":
        hostfile = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--hostfile" else None
        match(gpulab, work, hostfile)
    else:
        kill(gpulab, work)


if __name__ == "__main__":
    main()
