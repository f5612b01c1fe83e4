#!/usr/bin/env python3
"""Folded stacks ("root;...;leaf weight" lines, as --supervisor-stacks
writes them) -> a flame graph as a plain SVG: roots at the bottom, each
frame as wide as its share of the weight, a tooltip with its weight.

    scripts/flamegraph-svg.py STACKS.folded > flame.svg [--title TEXT]
"""
import argparse
import html
import sys

WIDTH, ROW, MIN_PX = 1200, 18, 0.5


def parse(lines):
    root = {"children": {}, "weight": 0}
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        if not line:
            continue
        text, _, weight = line.rpartition(" ")
        if not text or not weight.isdigit():
            sys.exit(f"flamegraph-svg: line {n}: not 'frames weight': {line[:80]!r}")
        node = root
        node["weight"] += int(weight)
        for frame in text.split(";"):
            node = node["children"].setdefault(frame, {"children": {}, "weight": 0})
            node["weight"] += int(weight)
    return root


def color(name):
    h = sum(name.encode()) % 60
    kernel = name.endswith("_[k]")
    return f"hsl({30 + h if not kernel else 190 + h // 2},75%,{60 if kernel else 55}%)"


def frames(node, depth, x, scale, out):
    for name, child in sorted(node["children"].items()):
        w = child["weight"] * scale
        if w >= MIN_PX:
            out.append((name, depth, x, w, child["weight"]))
            frames(child, depth + 1, x, scale, out)
        x += w
    return out


def depth_of(node):
    return 1 + max((depth_of(c) for c in node["children"].values()), default=0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folded")
    ap.add_argument("--title", default="supervisor off-CPU stacks (--supervisor-stacks)")
    a = ap.parse_args()
    with open(a.folded, encoding="utf-8") as f:
        root = parse(f)
    if not root["weight"]:
        sys.exit("flamegraph-svg: no stacks")
    levels = depth_of(root) - 1
    height = (levels + 2) * ROW + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'font-family="monospace" font-size="11">',
           f'<rect width="100%" height="100%" fill="#fff"/>',
           f'<text x="{WIDTH / 2}" y="14" text-anchor="middle" font-size="13">'
           f'{html.escape(a.title)} — {root["weight"] / 1e6:.1f} ms blocked</text>']
    for name, depth, x, w, weight in frames(root, 0, 0.0, WIDTH / root["weight"], []):
        y = height - (depth + 1) * ROW
        label = name if w > 7 * len(name) else name[: int(w / 7) - 2] + ".." if w > 30 else ""
        tip = f"{name} {weight / 1e6:.3f} ms ({100 * weight / root['weight']:.1f}%)"
        out.append(f'<g><title>{html.escape(tip)}</title><rect x="{x:.1f}" y="{y}" '
                   f'width="{max(w - 0.5, 0.1):.1f}" height="{ROW - 1}" fill="{color(name)}"/>'
                   f'<text x="{x + 3:.1f}" y="{y + ROW - 5}">{html.escape(label)}</text></g>')
    out.append("</svg>")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
