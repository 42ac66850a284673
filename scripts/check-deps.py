#!/usr/bin/env python3
"""Proves scripts/install-deps.sh against what a build really used, not against this machine.

A developer's machine hides a missing line in install-deps.sh: a package once installed by hand is
still there, the build is green, and a fresh machine fails (it happened with ocl-icd-opencl-dev,
which oneDNN's CMake config needs and libdnnl-dev only recommends). So after a build this script

  1. collects every file under /usr the build used: the headers ninja recorded (`ninja -t deps`),
     the programs and libraries on its command lines (`ninja -t commands`, -lNAME resolved the way
     the compiler does), and the paths CMakeCache.txt names;
  2. maps them to Debian packages with `dpkg -S`;
  3. fails, naming each package and one file it provided, when a package is neither in
     install-deps' list, nor pulled in by it through Depends/Pre-Depends (apt's resolver, simulated
     with --no-install-recommends on a database holding only the minimal system), nor part of a
     minimal Debian system (Essential: yes or Priority: required).

Files outside any Debian package (the optional CUDA Toolkit and cuDNN under /usr/local) are listed
but never fail the check.

  scripts/check-deps.py [BUILD_DIR]                 check (default: build)
  scripts/check-deps.py --without PKG [BUILD_DIR]   the same with PKG left out of install-deps' list:
                                                    shows the check catches a missing line
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def used_files(build):
    """Absolute paths under /usr that the build read or ran."""
    files = set()
    deps = run(["ninja", "-C", build, "-t", "deps"])
    if deps.returncode != 0:
        sys.exit(f"check-deps: `ninja -t deps` failed in {build}: {deps.stderr.strip()} (build with -G Ninja first)")
    for line in deps.stdout.splitlines():
        if line.startswith("    /usr/"):
            files.add(line.strip())
    commands = run(["ninja", "-C", build, "-t", "commands"]).stdout
    libs = set()
    for cmd in commands.splitlines():
        for part in cmd.split("&&"):  # the program of each step, found on PATH as the build found it
            words = part.split()
            if words and not words[0].startswith("/") and words[0] not in ("cd", ":"):
                prog = shutil.which(words[0])
                if prog and prog.startswith("/usr/"):
                    files.add(prog)
        for tok in cmd.replace("'", " ").replace('"', " ").split():
            if tok.startswith("/usr/") and (re.search(r"\.(so(\.\d+)*|a)$", tok) or os.access(tok, os.X_OK)):
                files.add(tok)
            elif tok.startswith("-l") and len(tok) > 2:
                libs.add(tok[2:])
    for lib in sorted(libs):  # where the compiler driver would find -lNAME
        for name in (f"lib{lib}.so", f"lib{lib}.a"):
            p = run(["cc", f"-print-file-name={name}"]).stdout.strip()
            if p.startswith("/"):
                files.add(os.path.normpath(p))
                break
    # Paths CMake found but nothing uses: FindOpenGL always looks for GLU, which gpulab never links.
    unused_cache_entries = {"OPENGL_glu_LIBRARY"}
    cache = os.path.join(build, "CMakeCache.txt")
    with open(cache, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"^([A-Za-z_][A-Za-z0-9_-]*):(?:FILEPATH|PATH|STRING|INTERNAL)=(.*)$", line.rstrip("\n"))
            if not m or m.group(1) in unused_cache_entries:
                continue
            for value in m.group(2).split(";"):
                if value.startswith("/usr/") and os.path.exists(value) and not os.path.isdir(value):
                    files.add(value)
                elif value.startswith("/usr/") and os.path.isdir(value) and value.endswith("/cmake/" + os.path.basename(value)):
                    files.add(value)  # a package's CMake config folder (dnnl_DIR, glfw3_DIR, ...)
    return {f for f in files if os.path.exists(f)}


def owners(paths):
    """{path: package} for the paths dpkg knows; the rest are not from a package."""
    result = {}
    candidates = {}
    for p in paths:
        forms = [p, os.path.realpath(p)]
        # Debian 12 has merged /usr, but dpkg may record /lib/... for files seen at /usr/lib/...
        forms += [f[4:] for f in list(forms) if f.startswith("/usr/lib") or f.startswith("/usr/bin") or f.startswith("/usr/sbin")]
        candidates[p] = list(dict.fromkeys(forms))
    pending = set(candidates)
    for attempt in range(3):
        batch = {candidates[p][attempt]: p for p in pending if attempt < len(candidates[p])}
        if not batch:
            break
        out = run(["dpkg-query", "-S", *batch.keys()]).stdout
        for line in out.splitlines():
            if line.startswith("diversion"):
                continue
            pkgs, _, path = line.partition(": ")
            if path in batch:
                orig = batch[path]
                result[orig] = pkgs.split(",")[0].strip().split(":")[0]
                pending.discard(orig)
    return result, pending


def minimal_system():
    """The installed packages a debootstrap minbase has: Essential or Priority: required, plus the
    libraries they depend on (libraries themselves are Priority: optional), closed over Depends and
    Pre-Depends as installed here."""
    fmt = "${Package}\t${Essential}\t${Priority}\t${Depends}, ${Pre-Depends}\t${Provides}\n"
    rows = [l.split("\t") for l in run(["dpkg-query", "-W", "-f", fmt]).stdout.splitlines()]
    installed = {r[0]: r for r in rows if len(r) == 5}
    provided = {}
    for name, r in installed.items():
        for prov in r[4].split(","):
            if prov.strip():
                provided.setdefault(prov.split()[0].split(":")[0], name)
    candidates = [n for n, r in installed.items() if r[1] == "yes" or r[2] == "required"]
    seen = set()
    while candidates:
        name = candidates.pop()
        if name in seen or name not in installed:
            continue
        seen.add(name)
        for group in installed[name][3].split(","):
            for alt in group.split("|"):  # the alternative that is installed here
                dep = alt.split()[0].split(":")[0] if alt.split() else ""
                dep = dep if dep in installed else provided.get(dep, "")
                if dep:
                    candidates.append(dep)
                    break
    return seen


def allowed_packages(without):
    """What a fresh machine has after install-deps: the minimal system plus what apt would install.

    apt's own resolver decides, in a simulation against a package database that holds only the
    minimal system (Essential: yes or Priority: required, as debootstrap's minbase), so alternatives
    ("A | B") and virtual packages resolve the way they would on a fresh machine: only the choice apt
    makes counts, not every package that could satisfy a dependency. (`apt-cache depends --recurse`
    follows every alternative and once let libopengl-dev pass unnoticed.)
    """
    listed = run([os.path.join(HERE, "install-deps.sh"), "--list"]).stdout.split()
    listed = [p for p in listed if p not in without]
    minimal = sorted(minimal_system())
    with tempfile.TemporaryDirectory() as tmp:
        status = os.path.join(tmp, "status")
        with open(status, "w") as f:
            f.write(run(["dpkg-query", "-s", *minimal]).stdout)
        sim = run(["apt-get", "-s", "-o", f"Dir::State::status={status}", "-o", "Debug::NoLocking=1",
                   "install", "--no-install-recommends", *listed])
    if sim.returncode != 0:
        sys.exit("check-deps: apt could not resolve install-deps' list on a minimal system:\n" + sim.stdout + sim.stderr)
    installed = {m.group(1).split(":")[0] for m in re.finditer(r"^Inst (\S+)", sim.stdout, re.M)}
    return listed, set(minimal) | installed | set(listed)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--without", action="append", default=[], metavar="PKG",
                    help="leave PKG out of install-deps' list (to see the check catch it)")
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.build, "CMakeCache.txt")):
        sys.exit(f"check-deps: {args.build} is not a configured build folder (run make build first)")
    files = used_files(args.build)
    owned, unowned = owners(files)
    listed, allowed = allowed_packages(set(args.without))
    used = {}
    for path, pkg in sorted(owned.items()):
        used.setdefault(pkg, path)
    missing = {pkg: path for pkg, path in used.items() if pkg not in allowed}
    outside = sorted({re.sub(r"^(/usr/local/[^/]+).*", r"\1", p) for p in unowned})
    print(f"check-deps: {len(files)} files under /usr used by {args.build}, from {len(used)} Debian packages; "
          f"install-deps lists {len(listed)} and pulls in {len(allowed)} with the minimal system")
    if outside:
        print("check-deps: not from a Debian package (optional, never required): " + ", ".join(outside))
    if missing:
        sys.stdout.flush()
        print(f"check-deps: FAIL: the build used {len(missing)} package(s) that scripts/install-deps.sh neither "
              "lists nor pulls in through Depends:", file=sys.stderr)
        for pkg, path in sorted(missing.items()):
            print(f"  {pkg}  (e.g. {path})", file=sys.stderr)
        print("check-deps: add them to scripts/install-deps.sh with a comment saying why", file=sys.stderr)
        return 1
    print("check-deps: ok: every package the build used is installed by scripts/install-deps.sh")
    return 0


if __name__ == "__main__":
    sys.exit(main())
