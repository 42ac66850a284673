#!/usr/bin/env python3
"""Checks exported pictures for colours that carry meaning and merge under colour vision deficiency.

gpulab's colours that carry meaning (each backend's colour, ok / error / warning, the confusion
matrix's map, the two ends of the diverging map of signed values) are read from
app/widgets/palette_colours.h and app/render/diverging_ramp.h (the colour-blind palette) and
app/widgets/ui_helpers.h / app/views/timing_plot.cpp (the default palette). For every PNG given
(or found under a folder), the script

  1. decodes it (zlib and the PNG row filters; Python's standard library only, no PIL);
  2. finds which of those colours the picture shows: at least --min-pixels pixels within 6 levels
     per channel of the colour itself or of the colour at the opacities the plots draw it with
     (bars at 85 %, over the dark plot and window backgrounds). Found by colour alone: where one
     colour serves several roles (sky blue is cuda-kernel, "ok" and the pool layer), every role is
     listed, so a picture's pairs are a superset of what it really shows;
  3. for every pair of them that a reader must tell apart in that picture (two backends, ok and
     error, error and warning, the two ends of the confusion matrix's map, the negative and the
     positive end of the diverging map), simulates deuteranopia,
     protanopia and tritanopia (Machado, Oliveira and Fernandes 2009, severity 1.0, applied in
     linear RGB) and computes the CIE76 colour difference (delta E in L*a*b*, D65) of the two
     simulated colours; a pair under --threshold (default 20) is reported;
  4. also looks at every colour the picture shows in quantity (any saturated colour with at least
     --min-pixels pixels, not only the palette's) and reports pairs that differ clearly for normal
     vision (delta E >= 20) but merge under a simulation (delta E < 10): colours with meaning the
     palette does not know about.

The same simulation checks the palette's colours themselves in tests/test_palette_cvd.cpp.

  scripts/cvd-check.py [--palette colour-blind|normal] [--threshold 20] PNG_OR_DIR...
      exit 0: no palette pair under the threshold; 1: some; 2: bad arguments or unreadable PNG.

Export the pictures first, e.g.
  build/app/gpulab export --lesson train-small-cnn --all-steps --quick --palette colour-blind --out /tmp/cb
"""

import argparse
import collections
import itertools
import math
import os
import re
import struct
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Machado, Oliveira and Fernandes (2009), Table 1, severity 1.0; linear RGB in, linear RGB out.
SIMULATIONS = {
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}
IDENTITY = ((1, 0, 0), (0, 1, 0), (0, 0, 1))

# Backgrounds a bar or line is blended over: the plots' (timing_plot.cpp, sweep_plot.cpp,
# train_plot.cpp), the window's in both themes, and the presenter theme's black.
BACKGROUNDS = [(25, 27, 32), (22, 24, 29), (26, 27, 31), (0, 0, 0)]
OPACITIES = [1.0, 0.95, 0.85]


# [SECTION] PNG


def read_png(path):
    """(width, height, channels, bytes) of an 8-bit RGB or RGBA PNG, not interlaced."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError("only 8-bit RGB / RGBA, not interlaced (depth %d, colour type %d)" % (depth, colour))
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if width is None:
        raise ValueError("no IHDR")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    out = bytearray(height * stride)
    prev = bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        if ftype == 1:  # sub
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif ftype == 2:  # up
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif ftype == 3:  # average
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:  # Paeth
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = prev[i]
                c = prev[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        elif ftype != 0:
            raise ValueError("bad filter type %d in row %d" % (ftype, y))
        out[y * stride : (y + 1) * stride] = line
        prev = line
    return width, height, channels, bytes(out)


def colour_counts(path):
    """Counter of (r, g, b) over the picture's pixels."""
    w, h, ch, px = read_png(path)
    if ch == 3:
        return collections.Counter(zip(px[0::3], px[1::3], px[2::3]))
    return collections.Counter(zip(px[0::4], px[1::4], px[2::4]))


# [SECTION] colour science


def to_linear(c):
    v = c / 255.0
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def lab_of_linear(rgb):
    r, g, b = rgb
    x = 0.4124 * r + 0.3576 * g + 0.1805 * b
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = 0.0193 * r + 0.1192 * g + 0.9505 * b

    def f(t):
        return t ** (1.0 / 3.0) if t > 216.0 / 24389.0 else (24389.0 / 27.0 * t + 16.0) / 116.0

    fx, fy, fz = f(x / 0.95047), f(y), f(z / 1.08883)
    return (116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz))


def simulated_lab(rgb, m):
    lin = [to_linear(c) for c in rgb]
    return lab_of_linear([min(1.0, max(0.0, sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3)])


def delta_e(a, b, m):
    return math.dist(simulated_lab(a, m), simulated_lab(b, m))


# [SECTION] the app's colours, read from its sources


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def palette_colours(palette):
    """{name: (kind, rgb)}: kind is 'backend', 'status', 'layer', 'map' or 'diverging'."""
    header = read("app/widgets/palette_colours.h")
    # The diverging map of signed values lives one floor down, where the GL shader's caller reads it.
    ramps = read("app/render/diverging_ramp.h")
    named = {m.group(1): tuple(int(v) for v in m.group(2, 3, 4))
             for m in re.finditer(r"\b(k\w+)\{(\d+), (\d+), (\d+)\}", header + ramps)}
    for m in re.finditer(r"\b(k\w+) = (k\w+)", header):
        if m.group(2) in named:
            named[m.group(1)] = named[m.group(2)]
    out = {}
    if palette == "colour-blind":
        table = header[header.index("kColourBlindBackends[]"):]
        table = table[: table.index("};")]
        for m in re.finditer(r'\{"([\w-]+)", (k\w+)\}', table):
            out[m.group(1)] = ("backend", named[m.group(2)])
        for s in ("Ok", "Error", "Warn"):
            out[s.lower()] = ("status", named["kColourBlind" + s])
        layers = re.search(r"kColourBlindLayers\[\] = \{([^}]*)\}", header).group(1)
        for kind, ref in zip(("conv", "relu", "pool", "dense"), re.findall(r"k\w+", layers)):
            out["layer-" + kind] = ("layer", named[ref])
        out["matrix-low"] = ("map", named["kSequentialLow"])
        out["matrix-high"] = ("map", named["kSequentialHigh"])
        out["diverging-negative"] = ("diverging", named["kDivergingCbBlueDeep"])
        out["diverging-positive"] = ("diverging", named["kDivergingCbOrangeDeep"])
    else:
        src = read("app/views/timing_plot.cpp")
        for m in re.finditer(r'\{"([\w-]+)", \{([\d.]+)f, ([\d.]+)f, ([\d.]+)f, 1\}\}', src):
            out[m.group(1)] = ("backend", tuple(int(float(v) * 255.0 + 0.5) for v in m.group(2, 3, 4)))
        for s in ("Ok", "Error", "Warn"):
            out[s.lower()] = ("status", named["kDefault" + s])
        # The default confusion matrix: green diagonal, red elsewhere (train_results_panel.cpp).
        for kind, rgb in zip(("conv", "relu", "pool", "dense"), ((242, 148, 64), (115, 204, 115), (102, 166, 242), (191, 140, 242))):
            out["layer-" + kind] = ("layer", rgb)
        out["matrix-right"] = ("map", (64, 191, 89))
        out["matrix-wrong"] = ("map", (242, 89, 77))
        out["diverging-negative"] = ("diverging", named["kDivergingBlueDeep"])
        out["diverging-positive"] = ("diverging", named["kDivergingRedDeep"])
    return out


def must_differ(a, b, colours):
    """Pairs a reader must tell apart when both are on screen."""
    ka, kb = colours[a][0], colours[b][0]
    if ka == kb and ka in ("backend", "map", "layer", "diverging"):
        return True
    return {a, b} in ({"ok", "error"}, {"error", "warn"}, {"ok", "warn"})


def variants(rgb):
    out = set()
    for alpha in OPACITIES:
        for bg in BACKGROUNDS:
            out.add(tuple(int(alpha * c + (1 - alpha) * g + 0.5) for c, g in zip(rgb, bg)))
    return out


def present(counts, colours, min_pixels, tol=6):
    """{name: pixels} of the palette colours this picture shows."""
    found = {}
    for name, (_, rgb) in colours.items():
        targets = variants(rgb)
        n = 0
        for c, k in counts.items():
            if any(abs(c[0] - t[0]) <= tol and abs(c[1] - t[1]) <= tol and abs(c[2] - t[2]) <= tol for t in targets):
                n += k
        if n >= min_pixels:
            found[name] = n
    return found


def dominant_saturated(counts, min_pixels):
    """The picture's colours in quantity: the commonest colour of each 8-level bin with enough pixels."""
    bins = collections.defaultdict(list)
    for c, k in counts.items():
        if max(c) - min(c) < 50:  # greys, white text, dark backgrounds
            continue
        bins[(c[0] >> 3, c[1] >> 3, c[2] >> 3)].append((k, c))
    out = []
    for members in bins.values():
        total = sum(k for k, _ in members)
        if total >= min_pixels:
            out.append((max(members)[1], total))
    return out


# [SECTION] main


def show(path):
    """The path as given when it lies outside the working folder, else relative to it."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", help="PNG files or folders (searched for *-step-*.png and *.png)")
    ap.add_argument("--palette", choices=["colour-blind", "normal"], default="colour-blind",
                    help="which palette's colours to look for (the one the pictures were exported with)")
    ap.add_argument("--threshold", type=float, default=20.0, help="smallest delta E76 a pair may have (default 20)")
    ap.add_argument("--min-pixels", type=int, default=40, help="pixels a colour needs to count as shown (default 40)")
    ap.add_argument("--quiet", action="store_true", help="only the summary")
    args = ap.parse_args()

    files = []
    for p in args.paths:
        if os.path.isdir(p):
            for d, _, names in sorted(os.walk(p)):
                files += [os.path.join(d, n) for n in sorted(names) if n.endswith(".png")]
        else:
            files.append(p)
    if not files:
        print("cvd-check: no PNG given", file=sys.stderr)
        return 2
    colours = palette_colours(args.palette)

    print("palette %s, threshold delta E76 >= %.0f, simulations: Machado 2009 severity 1.0 in linear RGB"
          % (args.palette, args.threshold))
    print("the palette's pairs, whatever the pictures show:")
    sims = list(SIMULATIONS.items())
    print("  %-28s %8s %8s %8s %8s" % ("pair", "normal", "deutan", "protan", "tritan"))
    for a, b in itertools.combinations(colours, 2):
        if not must_differ(a, b, colours):
            continue
        d = [delta_e(colours[a][1], colours[b][1], m) for _, m in [("normal", IDENTITY)] + sims]
        flag = "  < threshold" if min(d[1:]) < args.threshold else ""
        print("  %-28s %8.1f %8.1f %8.1f %8.1f%s" % (a + " / " + b, *d, flag))

    worst = {}  # pair -> (min delta E over simulations, simulation, file)
    below = []
    merged = []
    for path in files:
        try:
            counts = colour_counts(path)
        except (OSError, ValueError, zlib.error) as e:
            print("cvd-check: %s: %s" % (path, e), file=sys.stderr)
            return 2
        shown = present(counts, colours, args.min_pixels)
        pairs = []
        for a, b in itertools.combinations(sorted(shown), 2):
            if not must_differ(a, b, colours):
                continue
            for sim, m in sims:
                d = delta_e(colours[a][1], colours[b][1], m)
                key = a + " / " + b
                if key not in worst or d < worst[key][0]:
                    worst[key] = (d, sim, path)
                pairs.append((d, sim, key))
                if d < args.threshold:
                    below.append((path, key, sim, d))
        # Any colours in quantity that merge under a simulation although they differ for normal vision.
        dom = dominant_saturated(counts, args.min_pixels * 5)
        found = []
        for (ca, na), (cb, nb) in itertools.combinations(dom, 2):
            if delta_e(ca, cb, IDENTITY) < 20.0:
                continue
            for sim, m in sims:
                d = delta_e(ca, cb, m)
                if d < 10.0:
                    found.append((d, sim, ca, cb, na, nb))
        merged += [(path,) + f for f in found]
        if not args.quiet:
            low = min(pairs)[0:3] if pairs else None
            print("%s: palette colours found for %s; %s; %d merging pair(s) of other colours" % (
                show(path), ", ".join(sorted(shown)) or "none",
                "closest pair %s under %s, delta E %.1f" % (low[2], low[1], low[0]) if low else "no pair to compare",
                len(found)))
            for d, sim, ca, cb, na, nb in sorted(found)[:3]:
                print("    merges under %s: rgb%s (%d px) and rgb%s (%d px), delta E %.1f" % (sim, ca, na, cb, nb, d))

    print("\n%d pictures; each pair shown in them, its smallest delta E76 under any simulation:" % len(files))
    for key, (d, sim, path) in sorted(worst.items(), key=lambda kv: kv[1][0]):
        print("  %-28s %6.1f  (%s, %s)" % (key, d, sim, show(path)))
    print("pairs under the threshold: %d" % len(below))
    for path, key, sim, d in below[:20]:
        print("  %s: %s under %s, delta E %.1f" % (show(path), key, sim, d))
    print("other colours that merge (normal delta E >= 20, simulated < 10): %d in %d pictures"
          % (len(merged), len({m[0] for m in merged})))
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
