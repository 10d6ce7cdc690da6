#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Summarise bench/run.sh's raw rows: medians and min-max per contender, and
the ratios docs/PERFORMANCE.md's targets are stated in.

Rows (tab-separated): name, wall s, process CPU s, busy ticks (whole system),
kswapd ticks, peak bytes of the data set in the page cache, bytes read.
usage: summarize.py RAW.tsv CLK_TCK [CHART.svg]
"""
import statistics
import sys

GIB = 1 << 30


def load(path, hz):
    runs = {}
    for line in open(path):
        name, wall, cpu, busy, ksw, peak, nbytes = line.split("\t")
        gib = int(nbytes) / GIB
        runs.setdefault(name, []).append({
            "gbps": int(nbytes) / float(wall) / 1e9,
            "proc": float(cpu) / gib,
            "sys": int(busy) / hz / gib,
            "kswapd": int(ksw) / hz / gib,
            "peak": int(peak) / (1 << 20),
        })
    return runs


def med(rs, key):
    return statistics.median(r[key] for r in rs)


def table(runs):
    print("| contender | GB/s median (min-max) | process CPU s/GiB | system CPU s/GiB | kswapd CPU s/GiB | peak data set cached MiB |")
    print("|---|---|---|---|---|---|")
    for name, rs in runs.items():
        g = [r["gbps"] for r in rs]
        print(f"| {name} | {med(rs, 'gbps'):.2f} ({min(g):.2f}-{max(g):.2f}) | "
              f"{med(rs, 'proc'):.3f} | {med(rs, 'sys'):.3f} | {med(rs, 'kswapd'):.3f} | "
              f"{max(r['peak'] for r in rs):.0f} |")


def ratio(runs, a, b, key="gbps"):
    if a not in runs or b not in runs:
        return None
    return med(runs[a], key) / med(runs[b], key)


def targets(runs):
    checks = [
        ("cat-auto-copy", "fio-sync-direct", "gbps", ">=", 1.10),
        ("bench-auto-copy", "fio-sync-direct", "gbps", ">=", 1.10),
        ("cat-auto-copy", "fio-sync-buffered", "gbps", ">=", 1.5),
        ("bench-auto-copy", "fio-sync-buffered", "gbps", ">=", 1.5),
        ("cat-auto-copy", "fio-sync-direct", "proc", "<=", 1.0),
        ("bench-auto-copy", "fio-sync-direct", "proc", "<=", 1.0),
        ("bench-direct-zerocopy", "fio-uring-direct-qd16", "gbps", ">=", 1.0),
        ("cat-direct-zerocopy", "fio-uring-direct-qd16", "gbps", ">=", 1.0),
        ("bench-auto-copy", "bench-direct-copy", "gbps", ">=", 0.98),
        ("bench-auto-copy", "bench-direct-copy", "sys", "<=", 1.2),
    ]
    print("\n| ratio of medians | value | target | met |")
    print("|---|---|---|---|")
    for a, b, key, op, want in checks:
        r = ratio(runs, a, b, key)
        if r is None:
            continue
        ok = r >= want if op == ">=" else r <= want
        what = {"gbps": "GB/s", "proc": "process CPU/GiB", "sys": "system CPU/GiB"}[key]
        print(f"| {a} / {b} ({what}) | {r:.2f} | {op} {want} | {'yes' if ok else 'no'} |")


def chart(runs, path):
    """Horizontal bars: median GB/s per contender, min-max as a whisker."""
    names = list(runs)
    top = max(max(r["gbps"] for r in rs) for rs in runs.values()) * 1.1
    row, left, width = 22, 230, 520
    height = row * len(names) + 60
    scale = width / top
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 80}" '
           f'height="{height}" font-family="sans-serif" font-size="12">',
           f'<text x="{left}" y="16" font-weight="bold">GB/s, median of runs (line: min-max)</text>']
    for gb in range(0, int(top) + 1):
        x = left + gb * scale
        out.append(f'<line x1="{x:.1f}" y1="24" x2="{x:.1f}" y2="{height - 24}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{height - 8}" text-anchor="middle">{gb}</text>')
    for i, name in enumerate(names):
        rs = runs[name]
        y = 30 + i * row
        g = [r["gbps"] for r in rs]
        colour = "#888" if name.startswith("fio") else "#2a7ab0"
        out.append(f'<text x="{left - 6}" y="{y + 13}" text-anchor="end">{name}</text>')
        out.append(f'<rect x="{left}" y="{y + 3}" width="{med(rs, "gbps") * scale:.1f}" '
                   f'height="{row - 8}" fill="{colour}"/>')
        out.append(f'<line x1="{left + min(g) * scale:.1f}" y1="{y + row / 2:.1f}" '
                   f'x2="{left + max(g) * scale:.1f}" y2="{y + row / 2:.1f}" stroke="#000"/>')
        out.append(f'<text x="{left + med(rs, "gbps") * scale + 4:.1f}" y="{y + 13}">'
                   f'{med(rs, "gbps"):.2f}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    runs = load(sys.argv[1], int(sys.argv[2]))
    table(runs)
    targets(runs)
    if len(sys.argv) > 3:
        chart(runs, sys.argv[3])


if __name__ == "__main__":
    main()
