#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/at-scale.sh at small scale: 2 devices (bench's --testbed ram:2xSIZE)
# x 4 threads x 64 MiB; its folder has a report with all four modes that read
# every byte from one directory per device, the timeline and the chart, and
# nothing it made (loop devices, mounts, cgroup) is left; SIGTERM in the
# middle: exit 130, the report so far, nothing left.  Without root it refuses
# in one line.
set -u
. "$(dirname "$0")/harness.sh"
script=$(cd "$(dirname "$0")/../.." && pwd)/bench/at-scale.sh

out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$script" /nonexistent 2>&1)
rc=$?
[ $rc = 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [[ $out == *"needs root"* ]] ||
	fail "as nobody: exit $rc, output '$out'"

needs_root "for loop devices, mounts and a memory cgroup"
[ -e /dev/loop-control ] || skip "no loop devices"
command -v mkfs.xfs >/dev/null || command -v mkfs.ext4 >/dev/null || skip "no mkfs.xfs or mkfs.ext4"
tmpdir
AT_SCALE_DEVICES=2 AT_SCALE_SIZE=64m AT_SCALE_TIME=20s "$script" "$T/out" >"$T/log" 2>&1 ||
	fail "at-scale.sh failed: $(tail -n 3 "$T/log")"
python3 - "$T/out/report.json" <<'PY' || fail "report.json: see above"
import json, sys
r = json.load(open(sys.argv[1]))
modes = {m["mode"]: m for m in r["modes"]}
want = ["buffered", "direct", "auto", "dontcache"]
assert sorted(modes) == sorted(want), f"modes {sorted(modes)}"
assert r["job"]["threads"] == 8 and len(r["job"]["directories"]) == 2, r["job"]
for name in want:
    m = modes[name]
    assert m["error"] == 0, f"{name}: error {m['error']}"
    assert m["bytes"] == 8 * (64 << 20), f"{name}: read {m['bytes']} bytes"
    assert m["gbps_avg"] > 0, f"{name}: {m['gbps_avg']} GB/s"
PY
grep -q "<svg" "$T/out/chart.svg" || fail "chart.svg is no SVG"
for m in buffered direct auto dontcache; do
	grep -q "^$m," "$T/out/timeline.csv" || fail "timeline.csv has no $m interval"
done
grep -q "memory cap" "$T/out/machine.txt" || fail "machine.txt says no cap"
grep -q "ram:2x" "$T/out/command.txt" || fail "not the 2-device testbed: $(cat "$T/out/command.txt")"
# bench's run id, from its testbed line: only this run's remains are checked
# (others' runs on this machine, in other PID namespaces, are theirs)
run_id() { sed -n 's|^testbed: .* mounted at /run/pagecliff/testbed-\([0-9-]*\)/.*|\1|p' "$1"; }
id=$(run_id "$T/out/bench.log")
[ -n "$id" ] || fail "no testbed line in bench.log: $(cat "$T/out/bench.log")"
check_nothing_left "$id"

# SIGTERM once the phases run: bench's report so far, exit 130, nothing left.
AT_SCALE_DEVICES=2 AT_SCALE_SIZE=64m AT_SCALE_TIME=30s AT_SCALE_TIME_BASED=1 "$script" "$T/out2" >"$T/log2" 2>&1 &
pid=$!
wait_for $pid "$T/log2" grep -q "^memory cap:" "$T/out2/bench.log" 2>/dev/null
sleep 1
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 130 ] || fail "SIGTERM: exit $rc, want 130: $(tail -n 3 "$T/log2")"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["modes"][0]["bytes"] > 0' \
	"$T/out2/report.json" || fail "SIGTERM: no report of what was measured"
id=$(run_id "$T/out2/bench.log")
[ -n "$id" ] || fail "SIGTERM: no testbed line in bench.log: $(cat "$T/out2/bench.log")"
check_nothing_left "$id"
echo "at-scale: 4 modes x 512 MiB on 2 devices, report, timeline and chart written; SIGTERM: report so far; nothing left"
