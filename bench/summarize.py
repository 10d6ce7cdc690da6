#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Summarise bench/run.sh's raw rows: medians and min-max per contender, and
the ratios docs/PERFORMANCE.md's targets are stated in.

Rows (tab-separated): name, wall s, process CPU s, busy ticks (whole system),
kswapd ticks, peak bytes of the data set in the page cache, bytes read.
usage: summarize.py RAW.tsv CLK_TCK
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


def main():
    runs = load(sys.argv[1], int(sys.argv[2]))
    table(runs)
    targets(runs)


if __name__ == "__main__":
    main()
