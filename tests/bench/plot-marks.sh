#!/bin/bash
# SPDX-License-Identifier: MIT
# The chart's marks agree with the verdict, on recorded timelines: a cliff
# mark only where the mode's own line falls (the mark's x between the last
# point before the fall and the first after it, and the line's level after
# the mark under DETECT_FALL_SHARE of its level before), no cliff mark on the
# run with no cliff, and its gap drawn as a bracket from the mode's level up
# to the best mode's.
set -u
tv=${1:?usage: plot-marks.sh TEST_VERDICT}
. "$(dirname "$0")/../harness.sh"
command -v python3 >/dev/null || skip "no python3 to parse the SVG"
make_tmpdir T /tmp
for fx in synthetic-seed-traced issue-2cpu-gap; do
	"$tv" --svg "$fx" "$T/$fx.svg" || fail "chart of $fx"
done
python3 - "$T" <<'PY' || exit 1
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"

def load(name):
    root = ET.parse(f"{sys.argv[1]}/{name}.svg").getroot()
    lines = {p.get("data-mode"): [tuple(map(float, xy.split(","))) for xy in p.get("points").split()]
             for p in root.iter(ns + "polyline") if p.get("class") == "throughput"}
    cliffs = [l for l in root.iter(ns + "line") if l.get("class") == "cliff-mark"]
    gaps = [g for g in root.iter(ns + "path") if g.get("class") == "gap-mark"]
    return lines, cliffs, gaps

def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2

# A fall: the cliff mark of buffered sits where its line drops.
lines, cliffs, gaps = load("synthetic-seed-traced")
assert len(cliffs) == 1 and cliffs[0].get("data-mode") == "buffered", [c.attrib for c in cliffs]
x = float(cliffs[0].get("x1"))
pts = lines["buffered"]
before = [y for px, y in pts if px < x]
after = [y for px, y in pts if px > x]
assert before and after, (x, pts[:3])
# SVG y grows downwards: the bottom of the panel is 0 GB/s
bottom = 330.0
lvl_before, lvl_after = bottom - median(before), bottom - median(after)
assert lvl_after < 0.8 * lvl_before, ("the line does not fall at the mark", lvl_before, lvl_after)
# the mark lies between the last high point and the first low point
high = [px for px, y in pts if bottom - y > 0.9 * lvl_before]
low = [px for px, y in pts if bottom - y < 1.1 * lvl_after]
assert max(high) <= x + 0.5 and x <= min(p for p in low if p > max(high)) + 0.5, (x, max(high))
print(f"seed: cliff mark at x={x:.1f}, level {lvl_before:.0f} -> {lvl_after:.0f} px")

# No cliff: the run quoted by a user, where buffered rises after the first
# touch; no cliff mark, and its gap to auto as a bracket from its level to auto's.
lines, cliffs, gaps = load("issue-2cpu-gap")
assert not cliffs, ("a cliff mark on a run with no cliff", [c.attrib for c in cliffs])
assert len(gaps) == 1 and gaps[0].get("data-mode") == "buffered", [g.attrib for g in gaps]
d = gaps[0].get("d").replace("M", "").replace("L", "").split()
ys = [float(p.split(",")[1]) for p in d]
buf = median([y for _, y in lines["buffered"][-10:]])
auto = median([y for _, y in lines["auto"]])
assert abs(max(ys) - buf) < 2 and abs(min(ys) - auto) < 2, (ys, buf, auto)
print(f"issue run: no cliff mark; gap bracket from y={max(ys):.1f} (buffered) to {min(ys):.1f} (auto)")
PY
echo "PASS: chart marks agree with the timelines"
