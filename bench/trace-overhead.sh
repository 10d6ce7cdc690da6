#!/bin/bash
# SPDX-License-Identifier: MIT
# What kernel-event tracing costs: the same bench phase (buffered reads on the
# RAM testbed under a memory cap, where reclaim and lock events are most
# frequent) with tracing and with --no-trace, interleaved (on/off, then
# off/on, ...), so drift on the machine hits both alike.  Prints each run's
# GB/s and system CPU seconds per GiB, the medians, and traced/untraced.
#
# usage: sudo bench/trace-overhead.sh [ROUNDS]
# env: SIZE per thread (1g), JOBS (2), CAP (256m), RUNTIME seconds (6),
#      MODE (buffered), PAGECLIFF
set -u
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-5}
SIZE=${SIZE:-1g}
JOBS=${JOBS:-2}
CAP=${CAP:-256m}
RUNTIME=${RUNTIME:-6}
MODE=${MODE:-buffered}
NAME=trace-overhead.sh
. bench/lib.sh
# Our own testbed and cgroup (bench/lib.sh), the data set laid out once:
# each run only reads, inside the cgroup, with the same cold start.
prepare ram

# one RUN-NAME [--no-trace]: one bench run in the cgroup; its JSON in
# $W/RUN-NAME.json.
one() {
	local name=$1; shift
	sh -c "$(cg_script "$PC bench --directory $DIR --keep --numjobs $JOBS --size $SIZE \
		--mode $MODE --runtime $RUNTIME --time_based -q --output-format json \
		-o $W/$name.json $* 2>$W/$name.err")" || die "bench failed: $(cat "$W/$name.err")"
	if [ $# = 0 ] && grep -q "no kernel-event tracing" "$W/$name.err"; then
		die "tracing is not available: $(grep "no kernel-event" "$W/$name.err")"
	fi
}

for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then one "on-$r"; one "off-$r" --no-trace
	else one "off-$r" --no-trace; one "on-$r"; fi
	echo "round $r of $ROUNDS done" >&2
done
python3 - "$W" "$ROUNDS" <<'PY'
import json, statistics, sys
W, n = sys.argv[1], int(sys.argv[2])
res = {"on": [], "off": []}
for r in range(1, n + 1):
    for k in res:
        m = json.load(open("%s/%s-%d.json" % (W, k, r)))["modes"][0]
        res[k].append((m["gbps_avg"], m["cpu_s_per_gib_system"], m.get("memcg_reclaim_pct"),
                       m.get("lock_wait_pct")))
print("round  traced GB/s  sys CPU s/GiB  memcg%%  lock%%   untraced GB/s  sys CPU s/GiB")
for r in range(n):
    a, b = res["on"][r], res["off"][r]
    print("%5d  %11.2f  %13.3f  %6.1f  %5.2f   %13.2f  %13.3f" % (
        r + 1, a[0], a[1], a[2] or 0, a[3] or 0, b[0], b[1]))
med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v))
       for k, v in res.items()}
print("median traced %.2f GB/s %.3f s/GiB, untraced %.2f GB/s %.3f s/GiB" % (
    med["on"][0], med["on"][1], med["off"][0], med["off"][1]))
print("traced/untraced: throughput %.3f, system CPU per GiB %.3f" % (
    med["on"][0] / med["off"][0], med["on"][1] / med["off"][1]))
PY
