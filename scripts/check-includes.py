#!/usr/bin/env python3
"""Includes point one way: app -> kernels -> core, and inside each, down the floors that
docs/architecture.md lists in its "include order" block. Run by CTest (arch.include_order) and so
by CI on every submission.

The block lists floors, highest first, one per line; a line holds one or more rooms:
  app/views          the files directly in that folder
  kernels/*.h        the files directly in that folder whose names end so (the folder's public face)
  app/main.cpp       one file
A file belongs to the most specific room that names it. It may include a file of its own room or
of any room on a LOWER floor; never one on its own floor (two lessons' folders, say) or above.

Also refused, because the architecture says so:
  - an include that cannot be told apart: a path that names a file under two include roots;
  - a header in the same folder included by more than its name, or any "../" include;
  - core/ or app/ reaching a CUDA, cuDNN or cuBLAS header or a .cuh, directly or through the
    headers it includes (kernels' headers for others carry no CUDA types);
  - core/ including GL, GLFW, glad or ImGui.
Usage: scripts/check-includes.py [repo root]   (exit 1 and one line per problem when broken)
"""
import fnmatch
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
EXTS = (".h", ".hpp", ".cpp", ".cu", ".cuh")
LIBRARIES = ("app", "kernels", "core")  # include roots, in the order the build searches them
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
CUDA_SYSTEM = re.compile(r"^(cuda|cudnn|cublas|cufft|curand|nvrtc|nvml)[\w.]*\.h$|^thrust/|^cub/")
GL_SYSTEM = re.compile(r"^(GL|GLFW|glad|KHR|EGL)/|^imgui")


def read_floors():
    text = open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8").read()
    m = re.search(r"<!-- include order.*?-->\s*```[a-z]*\n(.*?)```", text, re.S)
    if not m:
        sys.exit("check-includes: docs/architecture.md has no '<!-- include order -->' block")
    floors = []
    for line in m.group(1).splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            floors.append(line.split())
    return floors


def source_files():
    out = []
    for lib in LIBRARIES:
        for d, _, names in os.walk(os.path.join(ROOT, lib)):
            out += [os.path.relpath(os.path.join(d, n), ROOT) for n in names if n.endswith(EXTS)]
    return sorted(out)


def room_of(path, rooms):
    """The most specific room naming `path`: a file, a glob in a folder, then the folder itself."""
    folder = os.path.dirname(path)
    if path in rooms:
        return path
    for r in rooms:
        if "*" in r and os.path.dirname(r) == folder and fnmatch.fnmatch(path, r):
            return r
    if folder in rooms:
        return folder
    return None


def main():
    floors = read_floors()
    floor_of = {room: i for i, line in enumerate(floors) for room in line}
    files = source_files()
    present = set(files)
    problems = []

    includes = {}  # file -> list of (kind, text, resolved path or None, line)
    for f in files:
        text = open(os.path.join(ROOT, f), encoding="utf-8", errors="replace").read()
        found = []
        for m in INCLUDE_RE.finditer(text):
            kind, name = m.group(1), m.group(2)
            line = text.count("\n", 0, m.start()) + 1
            resolved = None
            if kind == '"':
                if name.startswith("../") or "/../" in name:
                    problems.append(f'{f}:{line}: "{name}" climbs with ../; name the path from the library\'s folder')
                    continue
                same = os.path.normpath(os.path.join(os.path.dirname(f), name))
                under_roots = [os.path.join(lib, name) for lib in LIBRARIES if os.path.join(lib, name) in present]
                if same in present:
                    resolved = same
                elif len(under_roots) > 1:
                    problems.append(f'{f}:{line}: "{name}" names a file under more than one include root: {under_roots}')
                elif under_roots:
                    resolved = under_roots[0]
                if resolved and os.path.dirname(resolved) == os.path.dirname(f) and name != os.path.basename(name):
                    problems.append(f'{f}:{line}: "{name}" is in the same folder; include it by its name')
            found.append((kind, name, resolved, line))
        includes[f] = found

    for f in files:
        room = room_of(f, floor_of)
        if room is None:
            problems.append(f"{f}: its folder is in no floor of docs/architecture.md's include order")
            continue
        for kind, name, target, line in includes[f]:
            if kind == "<":
                if f.startswith("core/") and GL_SYSTEM.search(name):
                    problems.append(f"{f}:{line}: core/ includes <{name}>; GL, GLFW and ImGui belong to app/")
                continue
            if target is None:
                continue
            troom = room_of(target, floor_of)
            if troom is None or troom == room:
                continue
            if floor_of[troom] <= floor_of[room]:
                where = "the same floor as" if floor_of[troom] == floor_of[room] else "a floor above"
                problems.append(f'{f}:{line}: includes "{name}" from {troom}, {where} {room}')

    # CUDA headers reached from core/ or app/, through any chain of project headers.
    def cuda_chain(f, seen):
        if f in seen:
            return None
        seen.add(f)
        if f.endswith(".cuh"):
            return [f]
        for kind, name, target, _ in includes.get(f, []):
            if kind == "<" and CUDA_SYSTEM.search(name):
                return [f, f"<{name}>"]
            if target:
                chain = cuda_chain(target, seen)
                if chain:
                    return [f] + chain
        return None

    for f in files:
        if f.startswith(("core/", "app/")):
            chain = cuda_chain(f, set())
            if chain:
                problems.append(f"{f}: reaches a CUDA header: {' -> '.join(chain)}")

    if problems:
        print("\n".join(problems))
        print(f"check-includes: {len(problems)} include(s) against docs/architecture.md's order", file=sys.stderr)
        return 1
    print(f"check-includes: {len(files)} files, {sum(len(v) for v in includes.values())} includes, "
          f"{len(floors)} floors: every include points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
