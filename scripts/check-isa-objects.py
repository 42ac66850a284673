#!/usr/bin/env python3
"""The per-instruction-set objects keep their wide instructions to themselves (issue 45's review).

core/ compiles a few files with -mavx2, -mavx512f, -mavx512bf16 or -mamx-* (gemm_isa_*.cpp,
simd_isa_*.cpp, gemm_packed_isa_*.cpp, gemm_bf16_*.cpp, ...) and picks one at run time. Their own
functions sit in unnamed namespaces, but a standard-library template they use (std::vector's
members, say) is emitted as a weak symbol the linker may pick for the WHOLE program: a laptop
without AVX-512 would then crash in code that never asked for it. This check lists, in every such
object, the weak symbols whose code holds a VEX or EVEX instruction, and fails on any.
Usage: check-isa-objects.py OBJECT...   (objects whose names do not say an ISA are skipped)
"""
import re
import subprocess
import sys

ISA_NAME = re.compile(r"(avx2|avx512|amx|bf16)", re.I)
WIDE = re.compile(r"^\s+[0-9a-f]+:\s+(?:[0-9a-f]{2} )+\s*v[a-z]", re.M)


def weak_symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    return [line.split()[-1] for line in out.splitlines() if len(line.split()) == 3 and line.split()[1] in ("W", "V")]


def main(objects):
    checked, problems = 0, []
    for obj in objects:
        if not ISA_NAME.search(obj.rsplit("/", 1)[-1]):
            continue
        checked += 1
        for sym in weak_symbols(obj):
            dis = subprocess.run(["objdump", "-d", "--disassemble=" + sym, obj], capture_output=True, text=True).stdout
            if WIDE.search(dis):
                problems.append(f"{obj}: weak symbol {sym} holds wide instructions; the linker may use it everywhere")
    for p in problems:
        print(p)
    print(f"check-isa-objects: {checked} per-ISA objects, {len(problems)} weak symbols with wide instructions")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
