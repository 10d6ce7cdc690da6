#!/bin/bash
# SPDX-License-Identifier: MIT
# Phases end together.  Ranks with data sets of 8, 118 and 228 MiB ({rank}
# in --size), read 4 KiB at a time direct: without --stonewall every rank
# reads all of its own and the phase lasts until the last is done (the rank
# done early adds no intervals while it waits); with --stonewall the phase
# ends on every rank when rank 0 finishes, the others stopped part-way.
. "$(dirname "$0")/harness.sh"
tmpdir
for r in 0 1 2; do mkdir -p "$T/d$r"; done
args=(-d "$T/d{rank}" --size '{rank}{rank}8m' -m direct --bs 4k --ioengine sync
      -q --no-trace --output-format json)

check() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); stonewall = sys.argv[2] == "1"
size = [8 << 20, 118 << 20, 228 << 20]
ph = [h["modes"][0] for h in d["hosts"]]
got = [p["bytes"] for p in ph]
rows = [len(p["intervals"]) for p in ph]
assert [h["job"]["size"] for h in d["hosts"]] == size, [h["job"]["size"] for h in d["hosts"]]
assert got[0] == size[0], got
if stonewall:
    assert got[2] < size[2], ("rank 2 read all of its data set", got)
    assert max(rows) <= rows[0] + 1, ("the phase went on after rank 0 finished", rows)
else:
    assert got == size, ("a rank did not read all of its data set", got)
    # every byte in some row, on every host: a short tail folded into the last row
    # reaches rank 0 too
    inrows = [sum(i["bytes"] for i in p["intervals"]) for p in ph]
    assert inrows == got, ("rows do not add up to the bytes", inrows, got)
    assert rows[0] < rows[2], rows
    # rank 0's own time ends when its reads did, not when it stopped waiting
    secs = [p["seconds"] for p in ph]
    assert secs[0] < secs[2] / 2, ("rank 0's seconds count its wait", secs)
assert d["total"][0]["bytes"] == sum(got), (d["total"][0]["bytes"], got)
print("stonewall" if stonewall else "all done", "bytes", got, "intervals", rows,
      "seconds", [p["seconds"] for p in ph])
PY
}

# 400 ms: a rank's reads often end within a quarter interval of a row, and
# that tail is folded into the row rank 0 already has
mpirun_np 3 180 "${args[@]}" --interval 400ms -o "$T/all.json" 2>"$T/err" ||
	fail "exit $?: $(tail -5 "$T/err")"
check "$T/all.json" 0 || fail "without --stonewall"
mpirun_np 3 180 --stonewall "${args[@]}" --interval 100ms -o "$T/wall.json" 2>"$T/err" ||
	fail "--stonewall: exit $?: $(tail -5 "$T/err")"
check "$T/wall.json" 1 || fail "with --stonewall"
echo "ok"
