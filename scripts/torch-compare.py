#!/usr/bin/env python3
"""gpulab's CPU training engines against PyTorch on the same model, weights and batches (issue 45 item 3).

Targets: training >= 1.5x and inference (batch 64) >= 2x a tuned PyTorch on 2 cores. The figures
and how they were taken are in docs/benchmarks.md, "PyTorch as the peer (CPU)".

The fairness rules, and why:
  * Same model: the article's CNN as gpulab builds it (core/train/model.h: valid 3x3 convolutions,
    ReLU, 2x2 max pooling that drops an odd last row, flatten in C,H,W order, dense layers, mean
    softmax cross-entropy), rebuilt layer for layer from the same spec string in torch.nn.
  * Same initial weights and batches: gpulab draws both from std::mt19937_64, which the C++ standard
    specifies bit for bit, and maps the draws to numbers with its own simple arithmetic
    (init_params in core/train/model.cpp, batch_order in core/train/trainer.cpp). This script
    repeats that arithmetic in Python, so no file passes between the two. It is checked twice: the
    ctest scripts.torch-compare.reproduces_gpulab (standard library only, no torch) compares the first
    batch's loss of a small model with `gpulab train`, and every comparison run first compares, with
    torch, one batch's loss (initial weights, model, pixel scaling) and two batches' mean loss (the
    batch order and the SGD update) with gpulab's, within 1e-4, and refuses to time anything if they
    differ.
  * Same SGD: gpulab's v = momentum * v - rate * g; w += v is torch.optim.SGD(momentum) (v' = m v' + g,
    w -= rate v') with v = -rate v': equal for a fixed rate.
  * Same timed work: gpulab's images/s are its epoch loop (gathering each batch from the bytes and
    scaling it to [0, 1], forward, backward, update); its inference is its test pass (batches of 64,
    forward and arg-max). The torch side times the same loops, the same way, from the first batch on
    (neither side gets a warm-up). Its inference is timed twice, under model.eval() and
    torch.inference_mode(): the eager model, then the model traced, frozen and optimised for inference
    by TorchScript (PyTorch's own fast path for CPU inference: weights packed once, ReLU fused).
    The targets are judged against the faster of the two.
  * Two threads each, waiting passively: torch.set_num_threads(2) and OMP_WAIT_POLICY=PASSIVE for
    torch's OpenMP (libgomp; its default spins for a while between parallel regions, which on a
    shared 2-core machine takes the other core from whoever else runs). gpulab sets
    OMP_WAIT_POLICY=passive itself for oneDNN's OpenMP (app/main.cpp); cpu-parallel's own pool spins
    for 100 us, then sleeps (core/runtime/thread_pool.h). torch's Linear layers call Debian's
    OpenBLAS (pthreads) with one thread (OPENBLAS_NUM_THREADS=1: its own threads would compete with
    OpenMP's; two measured no faster) and the kernel OpenBLAS picks for the CPU; --openblas-core
    names one (OPENBLAS_CORETYPE) where it picks badly.
  * PyTorch's allocator tuned: torch frees every activation and gradient after each operation and
    allocates them again for the next batch. Blocks above glibc's mmap threshold come as fresh
    mmaps, and freed memory at the heap's top is given back, so as installed pages fault in one by
    one on every batch (about 3,000 page faults a training batch of 64 here; 34 with glibc-keep).
    The usual advice is jemalloc or tcmalloc; glibc's own malloc does the same when told to keep
    freed memory (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_). --allocator picks one; --explore
    times them side by side (wall time, and CPU time and page faults, which the other load on a
    shared machine moves much less); the default, glibc-keep, spent the least CPU time here.
  * channels_last or not, oneDNN (mkldnn) on or off, OpenMP's waiting: --explore times them; the
    defaults (channels-last, oneDNN on, passive) were the faster here (docs/benchmarks.md).

Needs PyTorch: Debian's python3-torch (with python3-numpy), which installs for /usr/bin/python3; when
the Python running this script has no torch, the torch runs use /usr/bin/python3. Not part of
scripts/install-deps.sh (a developer's tool, not the build's); CI runs only its self-test (the
reproduced std::mt19937_64, weights and model against gpulab) and --help.

Usage: scripts/torch-compare.py [--gpulab build/app/gpulab] [--rounds 5] [--limit 10000] [--json]
       scripts/torch-compare.py --explore [--rounds 3]     (torch's settings against each other)
"""
import argparse
import ctypes
import gzip
import json
import math
import os
import resource
import statistics
import struct
import subprocess
import sys
import time

FASHION_MNIST = "/usr/share/datasets/fashion-mnist"  # train::kFashionMnistDir
DEFAULT_SPEC = "conv32,pool,conv64,pool,conv64,dense64,dense10"  # train::kDefaultModelSpec
ENGINES = ["cpu-parallel", "cpu-onednn"]
TORCH_MISSING = ("torch-compare: PyTorch is missing: install Debian's python3-torch "
                 "(sudo apt-get install python3-torch); the torch runs then use /usr/bin/python3.")
JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"

# The allocators --allocator and --explore know, as environment variables for the torch process
# (read when it starts, so they are set for a child process, never here).
ALLOCATORS = {
    # PyTorch as Debian installs it: glibc's malloc with its defaults.
    "as-installed": {},
    # glibc told to keep freed memory: blocks up to 32 MiB (the largest threshold glibc accepts on
    # 64-bit) come from the heap instead of a fresh mmap, and the heap's top is never given back.
    "glibc-keep": {"MALLOC_MMAP_THRESHOLD_": str(32 << 20), "MALLOC_TRIM_THRESHOLD_": str(1 << 40),
                   "MALLOC_TOP_PAD_": str(64 << 20)},
    # Only the mmap threshold (freed heap memory may still be trimmed).
    "glibc-mmap": {"MALLOC_MMAP_THRESHOLD_": str(32 << 20)},
    # The same, and the heap on transparent huge pages (glibc 2.35's tunable; 2 MiB pages fault 512x less).
    "glibc-keep-thp": {"MALLOC_MMAP_THRESHOLD_": str(32 << 20), "MALLOC_TRIM_THRESHOLD_": str(1 << 40),
                       "MALLOC_TOP_PAD_": str(64 << 20), "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"},
    # Debian's libjemalloc2 in place of malloc (its freed pages are kept for 10 s by default).
    "jemalloc": {"LD_PRELOAD": JEMALLOC},
}

MASK64 = (1 << 64) - 1


class Mt19937_64:
    """std::mt19937_64, bit for bit. The C++ standard fixes its 10,000th output from the default seed
    5489 at 9981545732273789042 (--self-test checks it)."""

    def __init__(self, seed):
        mt = [seed & MASK64]
        for i in range(1, 312):
            prev = mt[-1]
            mt.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & MASK64)
        self.mt = mt
        self.i = 312

    def _twist(self):
        mt = self.mt
        for i in range(312):
            y = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % 312] & 0x7FFFFFFF)
            v = mt[(i + 156) % 312] ^ (y >> 1)
            if y & 1:
                v ^= 0xB5026F5AA96619E9
            mt[i] = v
        self.i = 0

    def __call__(self):
        if self.i >= 312:
            self._twist()
        x = self.mt[self.i]
        self.i += 1
        x ^= (x >> 29) & 0x5555555555555555
        x ^= (x << 17) & 0x71D67FFFEDA60000
        x ^= (x << 37) & 0xFFF7EEE000000000
        return x ^ (x >> 43)


def make_model(spec, rows, cols, classes=10):
    """train::make_model: each layer's kind, shapes (c, h, w) and place in the flat parameters."""
    layers, shape, offset = [], (1, rows, cols), 0
    tokens = spec.split(",")
    for i, t in enumerate(tokens):
        c, h, w = shape
        if t.startswith("conv"):
            out = (int(t[4:]), h - 2, w - 2)
            layers.append({"kind": "conv", "in": shape, "out": out, "weights": out[0] * c * 9, "offset": offset})
        elif t == "pool":
            layers.append({"kind": "pool", "in": shape, "out": (c, h // 2, w // 2)})
        elif t.startswith("dense"):
            out = (int(t[5:]), 1, 1)
            layers.append({"kind": "dense", "in": shape, "out": out, "weights": out[0] * c * h * w, "offset": offset})
        else:
            sys.exit(f"torch-compare: unknown layer '{t}' in '{spec}'")
        layer = layers[-1]
        if "weights" in layer:
            offset += layer["weights"] + layer["out"][0]
        shape = layer["out"]
        if layer["kind"] != "pool" and i + 1 < len(tokens):
            layers.append({"kind": "relu", "in": shape, "out": shape})
    if layers[-1]["kind"] != "dense" or layers[-1]["out"][0] != classes:
        sys.exit(f"torch-compare: '{spec}' must end with dense{classes}")
    return layers, offset


def init_params(layers, count, seed):
    """train::init_params: He-uniform weights, +-sqrt(6 / fan_in) from 53 random bits each, biases 0.
    Doubles here; they become float32 (round to nearest, as static_cast<float>) where they are used."""
    p = [0.0] * count
    rng = Mt19937_64(seed)
    for layer in layers:
        if "weights" not in layer:
            continue
        fan_in = layer["weights"] // layer["out"][0]
        limit = math.sqrt(6.0 / fan_in)
        for i in range(layer["weights"]):
            u = (rng() >> 11) * 2.0 ** -53
            p[layer["offset"] + i] = (2.0 * u - 1.0) * limit
    return p


def batch_order(count, seed, epoch):
    """train::batch_order: gpulab's own Fisher-Yates loop on std::mt19937_64."""
    order = list(range(count))
    rng = Mt19937_64((seed * 0x9E3779B97F4A7C15 + epoch) & MASK64)
    for i in range(count - 1, 0, -1):
        j = rng() % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def read_idx(folder, stem, limit):
    """One IDX file of train::load_dataset (gzipped or not): (count, rows, cols, bytes)."""
    path = os.path.join(folder, stem + ".gz")
    opener = gzip.open if os.path.exists(path) else open
    if opener is open:
        path = os.path.join(folder, stem)
    with opener(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    count = min(shape[0], limit) if limit else shape[0]
    size = 1
    for d in shape[1:]:
        size *= d
    start = 4 + 4 * dims
    return count, (shape[1:] + (1, 1))[:2], data[start:start + count * size]


def load_set(folder, prefix, limit):
    count, (rows, cols), pixels = read_idx(folder, prefix + "-images-idx3-ubyte", limit)
    _, _, labels = read_idx(folder, prefix + "-labels-idx1-ubyte", limit)
    return count, rows, cols, pixels, labels


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


# --- the self-test: gpulab's arithmetic reproduced, checked with the standard library only ---------

def python_forward_loss(layers, params, images, labels, rows, cols):
    """Mean cross-entropy of a batch through the model, in plain Python (small models only)."""
    p = [f32(x) for x in params]
    total = 0.0
    for img, label in zip(images, labels):
        x = [[[f32(v * f32(1.0 / 255.0)) for v in img[r * cols:(r + 1) * cols]] for r in range(rows)]]
        for layer in layers:
            kind, (k, h, w) = layer["kind"], layer["out"]
            if kind == "conv":
                c, off = layer["in"][0], layer["offset"]
                wts, bias = p[off:off + layer["weights"]], p[off + layer["weights"]:off + layer["weights"] + k]
                y = []
                for o in range(k):
                    plane = []
                    for i in range(h):
                        row = []
                        for j in range(w):
                            s = bias[o]
                            for ci in range(c):
                                base = (o * c + ci) * 9
                                for r in range(3):
                                    xr = x[ci][i + r]
                                    s += wts[base + 3 * r] * xr[j] + wts[base + 3 * r + 1] * xr[j + 1] + \
                                        wts[base + 3 * r + 2] * xr[j + 2]
                            row.append(s)
                        plane.append(row)
                    y.append(plane)
                x = y
            elif kind == "relu":
                x = [[[max(v, 0.0) for v in row] for row in plane] for plane in x]
            elif kind == "pool":
                x = [[[max(pl[2 * i][2 * j], pl[2 * i][2 * j + 1], pl[2 * i + 1][2 * j], pl[2 * i + 1][2 * j + 1])
                       for j in range(w)] for i in range(h)] for pl in x]
            else:  # dense: flatten in C,H,W order
                flat = [v for plane in x for row in plane for v in row]
                off, n = layer["offset"], len(flat)
                y = []
                for o in range(k):
                    wr = p[off + o * n:off + (o + 1) * n]
                    y.append(p[off + layer["weights"] + o] + sum(a * b for a, b in zip(wr, flat)))
                x = [[[v]] for v in y]
        logits = [plane[0][0] for plane in x]
        top = max(logits)
        total += top + math.log(sum(math.exp(v - top) for v in logits)) - logits[label]
    return total / len(labels)


def self_test(gpulab, data):
    rng = Mt19937_64(5489)
    for _ in range(9999):
        rng()
    if rng() != 9981545732273789042:
        sys.exit("torch-compare self-test: Mt19937_64 is not std::mt19937_64 (10,000th output of seed 5489)")
    print("torch-compare self-test: Mt19937_64 matches the C++ standard's 10,000th output")
    if not gpulab:
        return
    # The article's layer structure, narrow enough for plain Python; one batch of 8 images, so gpulab's
    # epoch loss is the first batch's loss, before any update: the initial weights, the model and the
    # pixel scaling are what it checks.
    spec, limit, seed = "conv4,pool,conv6,pool,conv6,dense8,dense10", 8, 3
    out = subprocess.run([gpulab, "train", "--backend", "cpu-scalar", "--model", spec, "--limit", str(limit),
                          "--batch", str(limit), "--seed", str(seed), "--data", data, "--json"],
                         check=True, capture_output=True, text=True).stdout
    theirs = json.loads(out)[0]["loss"]
    count, rows, cols, pixels, labels = load_set(data, "train", limit)
    layers, n = make_model(spec, rows, cols)
    params = init_params(layers, n, seed)
    order = batch_order(count, seed, 1)
    images = [pixels[i * rows * cols:(i + 1) * rows * cols] for i in order]
    ours = python_forward_loss(layers, params, images, [labels[i] for i in order], rows, cols)
    print(f"torch-compare self-test: first batch's loss, {spec}, seed {seed}: gpulab {theirs:.6g}, "
          f"reproduced {ours:.6g}")
    if abs(ours - theirs) > 1e-4 * max(1.0, abs(theirs)):
        sys.exit("torch-compare self-test: the reproduced initial weights or model differ from gpulab's")
    print("torch-compare self-test: ok")


# --- the torch side: runs in its own process, with the environment chosen by the parent ------------

def torch_worker(a):
    import numpy as np
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(a.threads)
    torch.backends.mkldnn.enabled = a.mkldnn == "on"
    t_load = time.perf_counter()
    train = load_set(a.data, "train", a.limit)
    test = load_set(a.data, "t10k", a.limit)
    count, rows, cols = train[0], train[1], train[2]
    layers, n = make_model(a.model, rows, cols)
    params = np.asarray(init_params(layers, n, a.seed), dtype=np.float32)
    order = torch.tensor(batch_order(count, a.seed, 1), dtype=torch.int64)

    modules = []
    for layer in layers:
        kind, (k, _, _) = layer["kind"], layer["out"]
        if kind == "conv":
            m = torch.nn.Conv2d(layer["in"][0], k, 3)
        elif kind == "dense":
            if not any(isinstance(x, torch.nn.Flatten) for x in modules):
                modules.append(torch.nn.Flatten())  # N,C,H,W -> N,(C*H*W): gpulab's C,H,W order
            m = torch.nn.Linear(layer["in"][0] * layer["in"][1] * layer["in"][2], k)
        elif kind == "relu":
            m = torch.nn.ReLU()
        else:
            m = torch.nn.MaxPool2d(2)  # floor: 11x11 -> 5x5, as gpulab and Keras
        if "weights" in layer:
            off, wn = layer["offset"], layer["weights"]
            with torch.no_grad():
                m.weight.copy_(torch.from_numpy(params[off:off + wn]).view_as(m.weight))
                m.bias.copy_(torch.from_numpy(params[off + wn:off + wn + k]))
        modules.append(m)
    model = torch.nn.Sequential(*modules)
    fmt = torch.channels_last if a.layout == "channels-last" else torch.contiguous_format
    model = model.to(memory_format=fmt)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=a.momentum)

    def tensors(s):
        imgs = torch.frombuffer(bytearray(s[3]), dtype=torch.uint8).view(s[0], 1, s[1], s[2])
        return imgs, torch.frombuffer(bytearray(s[4]), dtype=torch.uint8).to(torch.int64)

    train_x, train_y = tensors(train)
    test_x, test_y = tensors(test)
    scale = 1.0 / 255.0  # applied in float32: 1.0f / 255.0f, as gpulab's gather_batch

    def gather(x, y, idx):
        return (x[idx].to(torch.float32).mul_(scale).contiguous(memory_format=fmt), y[idx])

    load_s = time.perf_counter() - t_load

    class Meter:
        """Wall time, and this process's CPU time and page faults (what the allocator changes)."""

        def __enter__(self):
            self.t, self.r = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
            return self

        def __exit__(self, *exc):
            r = resource.getrusage(resource.RUSAGE_SELF)
            self.wall = time.perf_counter() - self.t
            self.cpu = r.ru_utime + r.ru_stime - self.r.ru_utime - self.r.ru_stime
            self.sys = r.ru_stime - self.r.ru_stime
            self.faults = r.ru_minflt + r.ru_majflt - self.r.ru_minflt - self.r.ru_majflt

    # Training: gpulab's epoch loop, timed the same way (batch preparation included).
    model.train()
    losses, correct = [], 0
    with Meter() as train_m:
        for first in range(0, count, a.batch):
            x, y = gather(train_x, train_y, order[first:first + a.batch])
            opt.zero_grad(set_to_none=True)
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
            correct += int((logits.argmax(1) == y).sum())
    # Inference: gpulab's test pass (batches of --batch in order, forward, arg-max), twice: the eager
    # model, and the model traced, frozen and optimised for inference by TorchScript (its convolutions
    # on oneDNN with weights packed once, ReLU fused): PyTorch's own fast path for CPU inference.
    model.eval()
    results = {}
    with torch.inference_mode():
        example = gather(test_x, test_y, torch.arange(min(a.batch, test[0])))[0]
        frozen = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(model, example)))
        for name, net in (("eager", model), ("frozen", frozen)):
            test_correct = 0
            with Meter() as m:
                for first in range(0, test[0], a.batch):
                    x, y = gather(test_x, test_y, torch.arange(first, min(first + a.batch, test[0])))
                    test_correct += int((net(x).argmax(1) == y).sum())
            results[name] = (m, test_correct / test[0])
    per_k = 1000.0 / count
    try:  # the kernel torch's OpenBLAS runs (the library is loaded already: the same handle)
        blas = ctypes.CDLL("libopenblas.so.0")
        blas.openblas_get_corename.restype = ctypes.c_char_p
        blas_core = blas.openblas_get_corename().decode()
    except (OSError, AttributeError):
        blas_core = "?"
    print(json.dumps({"openblas_core": blas_core,
        "torch": torch.__version__, "threads": torch.get_num_threads(), "load_s": load_s,
        "first_loss": losses[0], "loss": sum(losses) / len(losses), "train_accuracy": correct / count,
        "test_accuracy": results["eager"][1], "test_accuracy_frozen": results["frozen"][1],
        "images": count, "test_images": test[0], "train_images_per_s": count / train_m.wall,
        "train_cpu_s_per_1000": train_m.cpu * per_k, "train_sys_s_per_1000": train_m.sys * per_k,
        "train_faults_per_batch": train_m.faults * a.batch / count,
        "infer_images_per_s": test[0] / results["eager"][0].wall,
        "infer_faults_per_batch": results["eager"][0].faults * a.batch / test[0],
        "frozen_images_per_s": test[0] / results["frozen"][0].wall,
    }))


# --- the parent: the runs, interleaved ---------------------------------------------------------------

def torch_python(asked):
    """A Python that imports torch: --torch-python, else this one, else Debian's /usr/bin/python3; None if none."""
    for py in [asked] if asked else dict.fromkeys([sys.executable, "/usr/bin/python3"]):
        if os.path.exists(py) and subprocess.run([py, "-c", "import torch, numpy"], capture_output=True).returncode == 0:
            return py
    return None


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def openblas_core_for_cpu():
    """The OpenBLAS kernel for this CPU's vector instructions. OpenBLAS 0.3.21 (Debian 12) does not know
    recent Xeons (family 6, model 207 here) and falls back to its 2004 "Prescott" SSE3 kernels."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return None
    for flag, core in (("avx512_bf16", "Cooperlake"), ("avx512f", "SkylakeX"), ("avx2", "Haswell")):
        if flag in flags:
            return core
    return None


def torch_env(v, threads):
    env = dict(os.environ)
    for name in ("LD_PRELOAD", "MALLOC_CONF", "OPENBLAS_CORETYPE") + tuple(k for a in ALLOCATORS.values() for k in a):
        env.pop(name, None)
    env.update(ALLOCATORS[v["allocator"]])
    env.update(OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(v["openblas_threads"]))
    core = openblas_core_for_cpu() if v["openblas_core"] == "auto" else v["openblas_core"]
    if core and core != "own":
        env["OPENBLAS_CORETYPE"] = core
    if v["wait"]:
        env["OMP_WAIT_POLICY"] = v["wait"]
    else:
        env.pop("OMP_WAIT_POLICY", None)
    return env


def torch_setting(a, **change):
    """The torch settings of the command line, with some changed (--explore)."""
    v = {"allocator": a.allocator, "layout": a.layout, "mkldnn": a.mkldnn, "wait": "PASSIVE",
         "openblas_threads": a.openblas_threads, "openblas_core": a.openblas_core}
    v.update(change)
    return v


def describe(v):
    return (f"{v['allocator']}, {v['layout']}, oneDNN {v['mkldnn']}, "
            f"OMP_WAIT_POLICY={v['wait'] or '(unset)'}, OpenBLAS {v['openblas_threads']} thread"
            f"{'s' if v['openblas_threads'] != 1 else ''}, "
            f"{'kernel ' + str(openblas_core_for_cpu()) if v['openblas_core'] == 'auto' else v['openblas_core'] + ' kernel'}")


def run_torch(py, a, limit, v):
    cmd = [py, os.path.abspath(__file__), "--worker", "--limit", str(limit), "--seed", str(a.seed),
           "--batch", str(a.batch), "--lr", str(a.lr), "--momentum", str(a.momentum), "--data", a.data,
           "--model", a.model, "--threads", str(a.threads), "--layout", v["layout"], "--mkldnn", v["mkldnn"]]
    p = subprocess.run(cmd, env=torch_env(v, a.threads), capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"torch-compare: the torch run failed:\n{p.stderr}")
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["load"] = load_average()
    return r


def run_gpulab(a, engine, limit):
    cmd = [a.gpulab, "train", "--backend", engine, "--limit", str(limit), "--seed", str(a.seed), "--batch",
           str(a.batch), "--lr", str(a.lr), "--momentum", str(a.momentum), "--data", a.data, "--model", a.model,
           "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"torch-compare: {' '.join(cmd)} failed:\n{p.stderr}")
    g = json.loads(p.stdout)[0]
    test_images = min(limit, 10000)  # Fashion-MNIST's test set, cut by --limit as the training set
    return {"loss": g["loss"], "train_accuracy": g["train_accuracy"], "test_accuracy": g["test_accuracy"],
            "train_images_per_s": g["images_per_s"], "infer_images_per_s": test_images * 1e9 / g["test_ns"],
            "cpu_isa": g.get("cpu_isa"), "load": load_average()}


def check_agreement(py, a, engines):
    """One batch (initial weights, model, scaling) and two (batch order, SGD update) against gpulab."""
    lines, ok = [], True
    for limit, what in ((a.batch, "first batch's loss"), (2 * a.batch, "two batches' mean loss")):
        t = run_torch(py, a, limit, torch_setting(a))
        for engine in engines:
            g = run_gpulab(a, engine, limit)
            # gpulab prints 6 significant figures
            good = abs(g["loss"] - t["loss"]) <= 1e-4 * max(1.0, abs(g["loss"]))
            ok = ok and good
            lines.append(f"  {what}: {engine} {g['loss']:.6g}, torch {t['loss']:.6g}: {'equal' if good else 'DIFFERENT'}")
    return ok, lines


def spread(xs):
    return statistics.median(xs), min(xs), max(xs)


def fmt(xs, digits=0, suffix=""):
    m, lo, hi = spread(xs)
    return f"{m:.{digits}f}{suffix} ({lo:.{digits}f}-{hi:.{digits}f})"


def compare(py, a):
    ok, lines = check_agreement(py, a, a.engines)
    if not a.json:
        print("agreement with gpulab (within 1e-4):")
        print("\n".join(lines), flush=True)
    if not ok:
        sys.exit("torch-compare: torch does not train the same model from the same weights and batches as "
                 "gpulab; nothing timed")
    runs = {name: [] for name in a.engines + ["torch"]}
    for r in range(a.rounds):
        # Alternating order, so neither side always runs first (or on the quieter minute).
        sides = a.engines + ["torch"] if r % 2 == 0 else ["torch"] + a.engines[::-1]
        for side in sides:
            x = run_torch(py, a, a.limit, torch_setting(a)) if side == "torch" else run_gpulab(a, side, a.limit)
            runs[side].append(x)
            if not a.json:
                frozen = f" (frozen {x['frozen_images_per_s']:.0f})" if side == "torch" else ""
                print(f"round {r + 1}: {side:<12} train {x['train_images_per_s']:5.0f} img/s, inference "
                      f"{x['infer_images_per_s']:5.0f}{frozen} img/s, loss {x['loss']:.4f}, test accuracy "
                      f"{x['test_accuracy']:.4f}, load {x['load']:.2f}", flush=True)
    t = runs["torch"]
    rows = []
    for name in a.engines + ["torch"]:
        rs = runs[name]
        row = {"engine": name, "train_images_per_s": [x["train_images_per_s"] for x in rs],
               "infer_images_per_s": [x["infer_images_per_s"] for x in rs], "load": [x["load"] for x in rs],
               "loss": [x["loss"] for x in rs], "test_accuracy": [x["test_accuracy"] for x in rs]}
        if name == "torch":
            row["frozen_images_per_s"] = [x["frozen_images_per_s"] for x in rs]
        else:  # each round's ratio to that round's torch run
            row["train_ratio"] = [x["train_images_per_s"] / y["train_images_per_s"] for x, y in zip(rs, t)]
            row["infer_ratio"] = [x["infer_images_per_s"] / y["infer_images_per_s"] for x, y in zip(rs, t)]
            row["frozen_ratio"] = [x["infer_images_per_s"] / y["frozen_images_per_s"] for x, y in zip(rs, t)]
        rows.append(row)
    setting = {"torch": t[0]["torch"], "threads": a.threads, **torch_setting(a),
               "allocator_env": ALLOCATORS[a.allocator], "limit": a.limit, "batch": a.batch, "rounds": a.rounds,
               "gpulab_isa": runs[a.engines[0]][0]["cpu_isa"], "openblas_kernel": t[0]["openblas_core"]}
    if a.json:
        print(json.dumps({"setting": setting, "agreement": lines, "rows": rows, "runs": runs}, indent=1))
        return
    print(f"\ntorch {setting['torch']}, {a.threads} threads, {describe(torch_setting(a))} (OpenBLAS ran "
          f"{setting['openblas_kernel']}); gpulab "
          f"{setting['gpulab_isa']}; {a.limit} training and {min(a.limit, 10000)} test images, batch {a.batch}, "
          f"{a.rounds} rounds")
    print("median (min-max) over the rounds; ratios: each round's gpulab / that round's torch; inference vs "
          "torch eager and vs torch frozen (TorchScript); load: 1-minute load average after each run (the "
          "run itself adds up to 2)")
    print(f"{'engine':<13} {'train img/s':<19} {'inference img/s':<19} {'train vs torch':<19} "
          f"{'infer vs eager':<19} {'infer vs frozen':<19} {'load':<18} test accuracy")
    for row in rows:
        cells = [fmt(row[k], 2, "x") if k in row else "-" for k in ("train_ratio", "infer_ratio", "frozen_ratio")]
        print(f"{row['engine']:<13} {fmt(row['train_images_per_s']):<19} {fmt(row['infer_images_per_s']):<19} "
              f"{cells[0]:<19} {cells[1]:<19} {cells[2]:<19} {fmt(row['load'], 2):<18} "
              f"{fmt(row['test_accuracy'], 4)}")
        if "frozen_images_per_s" in row:
            print(f"{'torch frozen':<13} {'-':<19} {fmt(row['frozen_images_per_s']):<19}")


def explore(py, a):
    """torch's settings against each other, interleaved: each differs from the command line's in one thing.
    Besides images/s, each run's CPU seconds and page faults: on a shared machine the wall clock moves
    with the other load, the CPU time spent and the faults much less."""
    variants = [torch_setting(a, allocator=name) for name in ALLOCATORS]
    variants += [torch_setting(a, layout="channels-last" if a.layout == "contiguous" else "contiguous"),
                 torch_setting(a, mkldnn="off"), torch_setting(a, wait=None),
                 torch_setting(a, openblas_threads=3 - a.openblas_threads if a.openblas_threads in (1, 2) else 1),
                 torch_setting(a, openblas_core="own" if a.openblas_core == "auto" else "auto")]
    variants = list({describe(v): v for v in variants}.values())  # the command line's own once
    results = [[] for _ in variants]
    for r in range(a.rounds):
        for i in range(len(variants)) if r % 2 == 0 else reversed(range(len(variants))):
            x = run_torch(py, a, a.limit, variants[i])
            results[i].append(x)
            if not a.json:
                print(f"round {r + 1}: {describe(variants[i]):<100} train {x['train_images_per_s']:5.0f} img/s "
                      f"({x['train_cpu_s_per_1000']:.2f} CPU s, {x['train_sys_s_per_1000']:.2f} sys, "
                      f"{x['train_faults_per_batch']:.0f} faults a batch), inference {x['infer_images_per_s']:5.0f} "
                      f"(frozen {x['frozen_images_per_s']:5.0f}), load {x['load']:.2f}", flush=True)
    if a.json:
        print(json.dumps([{"setting": v, "runs": xs} for v, xs in zip(variants, results)], indent=1))
        return
    print(f"\ntorch's settings, {a.limit} training and {min(a.limit, 10000)} test images, {a.rounds} rounds: "
          "median (min-max); CPU and sys seconds per 1,000 training images, page faults per training batch")
    print(f"{'setting':<100} {'train img/s':<18} {'CPU s':<17} {'sys s':<17} {'faults':<16} "
          f"{'eager img/s':<18} {'frozen img/s':<20} load")
    for v, xs in zip(variants, results):
        def col(k, d=0):
            return fmt([x[k] for x in xs], d)
        print(f"{describe(v):<100} {col('train_images_per_s'):<18} {col('train_cpu_s_per_1000', 2):<17} "
              f"{col('train_sys_s_per_1000', 2):<17} {col('train_faults_per_batch'):<16} "
              f"{col('infer_images_per_s'):<18} {col('frozen_images_per_s'):<20} {col('load', 2)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpulab", help="the gpulab to time (default build/app/gpulab)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of interleaved runs (default 5)")
    ap.add_argument("--limit", type=int, default=10000,
                    help="training images, and test images up to 10,000, per run (default 10000; 60000: an epoch)")
    ap.add_argument("--json", action="store_true", help="print the runs and the table as JSON")
    ap.add_argument("--engines", nargs="+", default=ENGINES, choices=ENGINES, help="gpulab's engines to time")
    ap.add_argument("--allocator", choices=sorted(ALLOCATORS), default="glibc-keep",
                    help="torch's malloc (default glibc-keep: glibc told to keep freed memory)")
    ap.add_argument("--layout", choices=["contiguous", "channels-last"], default="channels-last",
                    help="torch's memory format (default channels-last, N,H,W,C in memory: faster here)")
    ap.add_argument("--mkldnn", choices=["on", "off"], default="on", help="torch's oneDNN convolutions")
    ap.add_argument("--openblas-core", default="auto",
                    help="OPENBLAS_CORETYPE for torch's Linear layers: auto (default: Cooperlake, SkylakeX or Haswell "
                         "by the CPU's flags), own (OpenBLAS's own choice), or a name")
    ap.add_argument("--openblas-threads", type=int, default=1,
                    help="OPENBLAS_NUM_THREADS for torch's Linear layers (default 1)")
    ap.add_argument("--threads", type=int, default=2, help="torch's threads (default 2; gpulab's engines use every core, 2 here)")
    ap.add_argument("--explore", action="store_true", help="time torch's settings against each other instead")
    ap.add_argument("--self-test", action="store_true",
                    help="check the reproduced std::mt19937_64 and, with --gpulab, weights and model against gpulab")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--data", default=FASHION_MNIST)
    ap.add_argument("--model", default=DEFAULT_SPEC)
    ap.add_argument("--torch-python", help="a Python with torch (default: this one, else /usr/bin/python3)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        return torch_worker(a)
    if a.self_test:
        return self_test(a.gpulab, a.data)
    py = torch_python(a.torch_python)
    if py is None:
        sys.exit(TORCH_MISSING)
    if not os.path.isdir(a.data):
        sys.exit(f"torch-compare: no data set at {a.data}: install Debian's dataset-fashion-mnist, or pass --data")
    a.gpulab = a.gpulab or "build/app/gpulab"
    if a.explore:
        return explore(py, a)
    if not os.access(a.gpulab, os.X_OK):
        sys.exit(f"torch-compare: no gpulab at {a.gpulab}: build it (make) or pass --gpulab PATH")
    compare(py, a)


if __name__ == "__main__":
    main()
