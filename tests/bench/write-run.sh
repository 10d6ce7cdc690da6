#!/bin/bash
# SPDX-License-Identifier: MIT
# pagecliff bench --rw write: each mode writes fresh files (2 x 24 MiB + 5
# bytes here, an odd size) and fdatasyncs them inside the phase; the bytes
# written per phase are numjobs x size; the files are gone after the run;
# the JSON (rw, end_fsync), the CSV report and the timeline carry the write
# fields (fdatasync seconds, dirty and writeback, throttling shares, known
# as root); the text report says that the flush is counted; bad --rw and
# --time_based with writes are usage errors that make nothing.
. "$(dirname "$0")/harness.sh"
tmpdir
size=25165829
"$PAGECLIFF" bench --rw write -d "$T" --numjobs 2 --size $size --bs 1m \
	--mode buffered,dontcache,dropbehind,direct,auto --interval 100ms -q \
	--output-format json -o "$T/r.json" --timeline "$T/t.csv" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || fail "exit $rc: $(cat "$T/err")"
[ ! -e "$T/pagecliff-bench" ] || fail "left behind: $(ls -la "$T/pagecliff-bench")"
python3 - "$T" $size "$(id -u)" <<'PY' || fail "report checks"
import csv, json, sys
T, size, uid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
j = json.load(open(T + "/r.json"))
assert j["job"]["rw"] == "write" and j["job"]["end_fsync"] is True, j["job"]
modes = [m["mode"] for m in j["modes"]]
assert modes == ["buffered", "dontcache", "dropbehind", "direct", "auto"], modes
for m in j["modes"]:
    assert m["bytes"] == 2 * size, (m["mode"], m["bytes"])
    assert m["error"] == 0, m
    assert m["fdatasync_seconds"] is not None and 0 <= m["fdatasync_seconds"] <= m["seconds"], m
    assert m["peak_dirty_bytes"] is not None and m["peak_writeback_bytes"] is not None, m
    for k in ("stack_throttled_pct", "stack_reclaim_wait_pct", "stack_reclaim_pct"):
        if uid == 0:
            assert m[k] is not None and 0 <= m[k] <= 100, (m["mode"], k, m[k])
    assert "peak dirty" in m["verdict"] or "unknown" in m["verdict"], m["verdict"]
    assert m["intervals"][-1]["bytes_total"] == 2 * size, m["intervals"][-1]
    for r in m["intervals"]:
        for k in ("dirty_bytes", "writeback_bytes", "stack_throttled_pct", "stack_reclaim_wait_pct",
                  "stack_reclaim_pct", "threads_flushing"):
            assert k in r, k
with open(T + "/t.csv") as f:
    t = list(csv.DictReader(f))
for k in ("dirty_bytes", "writeback_bytes", "stack_throttled_pct", "stack_reclaim_wait_pct", "flushing"):
    assert k in t[0], k
last = {r["mode"]: float(r["gib"]) for r in t}	# bytes so far, in GiB
assert sorted(last) == sorted(modes) and all(abs(g - 2 * size / 2**30) < 1e-4 for g in last.values()), last
PY
"$PAGECLIFF" bench --rw write -d "$T" --numjobs 1 --size 8m --mode direct --api zerocopy --interval 100ms \
	-q --output-format csv -o "$T/r.csv" 2>"$T/err" || fail "csv run: $(cat "$T/err")"
python3 - "$T" <<'PY' || fail "csv checks"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/r.csv")))
assert len(rows) == 1 and rows[0]["bytes"] == str(8 << 20), rows
for k in ("fdatasync_seconds", "peak_dirty_bytes", "peak_writeback_bytes", "stack_throttled_pct"):
    assert rows[0][k] != "", k
PY
"$PAGECLIFF" bench --rw write -d "$T" --numjobs 1 --size 8m --mode buffered --interval 100ms \
	-q >"$T/out.txt" 2>"$T/err" || fail "text run: $(cat "$T/err")"
grep -q "writes (end_fsync=1)" "$T/out.txt" && grep -q "counted in the phase (fio's end_fsync=1)" "$T/out.txt" ||
	fail "text report: $(cat "$T/out.txt")"
"$PAGECLIFF" bench --rw readwrite -d "$T" 2>"$T/err"
[ $? -eq 2 ] && grep -q "unknown --rw 'readwrite'" "$T/err" || fail "bad --rw: $(cat "$T/err")"
"$PAGECLIFF" bench --rw write --runtime 2 --time_based -d "$T" 2>"$T/err"
[ $? -eq 2 ] && grep -q "time_based" "$T/err" || fail "--time_based with writes: $(cat "$T/err")"
[ ! -e "$T/pagecliff-bench" ] || fail "left behind after the runs"
echo "bench --rw write: bytes, flush, write fields, files removed"
