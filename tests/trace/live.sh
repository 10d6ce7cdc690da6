#!/bin/bash
# SPDX-License-Identifier: MIT
# Traced for real: on the RAM testbed under a 512 MiB memory cap, buffered
# spends measurable time in memory-cgroup reclaim and about none in direct
# (global) reclaim; direct reads spend about none in either.  The timeline
# CSV carries the same columns, the verdict quotes the shares.  The cap is
# under the 768 MiB read, and leaves room for bench itself: under
# AddressSanitizer a 256 MiB cap killed bench (exit 137) in 2 of 4 runs.
. "$(dirname "$0")/harness.sh"
need_trace
[ -e /dev/loop-control ] || skip "no loop devices"
tmpdir
# One bench run with its cap and testbed kept from start to end.
bench_once() {
	# A run whose cap or testbed another process took away while it ran (a
	# bench in another PID namespace clearing what it takes for a dead run's)
	# proves nothing either way: it is run again, three times at most.
	for try in 1 2 3; do
		"$PAGECLIFF" bench --testbed ram:1g --mem-limit 512m --numjobs 2 --size 384m \
			--runtime 3 --time_based --interval 250ms --mode buffered,direct -q \
			--output-format json -o "$T/r.json" --timeline "$T/t.csv" 2>"$T/err"
		rc=$?
		if [ $rc = 0 ] && python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(any(i["cache_limit_bytes"] is None for m in j["modes"] for i in m["intervals"]))' "$T/r.json"
		then
			break
		fi
		grep -q "No such file or directory" "$T/err" || [ $rc = 0 ] ||
			fail "bench: exit $rc: $(cat "$T/err")"
		echo "try $try: the cap or the testbed went away during the run; again" >&2
		[ $try = 3 ] && fail "three runs lost their cap or testbed: $(cat "$T/err")"
	done
	grep -q "no kernel-event tracing" "$T/err" && fail "not traced: $(cat "$T/err")"
}

# The shares of time are this machine's: a run in which buffered met its
# cap only in passing (under load, reclaim can be as little as 0.07% of the
# workers' time) says nothing either way; three runs must each miss to fail.
figures() {
	python3 - "$T" <<'PY'
import csv, json, sys
T = sys.argv[1]
j = json.load(open(T + "/r.json"))
assert j["job"]["kernel_tracing"] is True and j["job"]["kernel_tracing_why_not"] == ""
m = {x["mode"]: x for x in j["modes"]}
b, d = m["buffered"], m["direct"]
for x in (b, d):
    for i in x["intervals"]:
        for k in ("direct_reclaim_pct", "memcg_reclaim_pct", "lock_wait_pct",
                  "kswapd_busy_pct", "dirty_throttle_pct"):
            assert i[k] is not None and 0 <= i[k] <= 100.5, (x["mode"], k, i[k])
assert b["memcg_reclaim_pct"] > 0.1, b["memcg_reclaim_pct"]
assert sum(i["memcg_reclaim_pct"] > 0 for i in b["intervals"]) >= 3, b["intervals"]
assert b["direct_reclaim_pct"] < 1, b["direct_reclaim_pct"]
assert d["memcg_reclaim_pct"] < 1 and d["direct_reclaim_pct"] < 1, d
assert b["memcg_reclaim_pct"] > 5 * d["memcg_reclaim_pct"], (b, d)
if b["cliff"] or b["verdict"].find("held") >= 0:
    assert "memory-cgroup reclaim" in b["verdict"], b["verdict"]
rows = list(csv.DictReader(open(T + "/t.csv")))
assert len(rows) == len(b["intervals"]) + len(d["intervals"])
for k in ("direct_reclaim_pct", "memcg_reclaim_pct", "lock_wait_pct", "top_lock",
          "kswapd_busy_pct", "dirty_throttle_pct"):
    assert k in rows[0], k
csvsum = sum(float(r["memcg_reclaim_pct"]) for r in rows if r["mode"] == "buffered")
jsum = sum(i["memcg_reclaim_pct"] for i in b["intervals"])
assert abs(csvsum - jsum) < 0.01 * len(rows) + 1e-9, (csvsum, jsum)
print("buffered: memcg reclaim %.1f%%, direct %.2f%%; direct mode: memcg %.2f%%" % (
    b["memcg_reclaim_pct"], b["direct_reclaim_pct"], d["memcg_reclaim_pct"]))
print(b["verdict"])
PY
}

for fig_try in 1 2 3; do
	bench_once
	figures && break
	[ $fig_try = 3 ] && fail "traced figures, three runs"
	echo "figures try $fig_try did not hold; again" >&2
done
echo "PASS: traced reclaim under a memory cap"
