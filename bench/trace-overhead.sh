#!/bin/bash
# SPDX-License-Identifier: MIT
# What kernel-event tracing costs: the same bench phase (buffered reads on the
# RAM testbed under a memory cap, where reclaim and lock events are most
# frequent) with tracing and with --no-trace, interleaved (on/off, then
# off/on, ...), so drift on the machine hits both alike.  Prints each run's
# GB/s and system CPU seconds per GiB, the medians, and traced/untraced;
# then one more traced run with the kernel's BPF run-time statistics on (a
# bpf(BPF_ENABLE_STATS) descriptor: off again when it is closed) for each
# program's events and nanoseconds per event.
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
# $W/RUN-NAME.json.  A run that fails (on a shared machine something else
# may kill it) is run again, up to four times; a failed run never counts.
one() {
	local name=$1 try; shift
	for try in 1 2 3 4; do
		sh -c "$(cg_script "$PC bench --directory $DIR --keep --numjobs $JOBS --size $SIZE \
			--mode $MODE --runtime $RUNTIME --time_based -q --output-format json \
			-o $W/$name.json $* 2>$W/$name.err")" && break
		echo "run $name failed (try $try): $(tail -1 "$W/$name.err")" >&2
		[ $try = 4 ] && die "bench failed: $(cat "$W/$name.err")"
	done
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
        res[k].append((m["gbps_avg"], m["cpu_s_per_gib_process"], m["cpu_s_per_gib_system"],
                       m.get("memcg_reclaim_pct"), m.get("lock_wait_pct")))
print("round   traced: GB/s  proc CPU s/GiB  sys CPU s/GiB  memcg%  lock%"
      "   untraced: GB/s  proc CPU s/GiB  sys CPU s/GiB")
for r in range(n):
    a, b = res["on"][r], res["off"][r]
    print("%5d  %14.2f  %14.3f  %13.3f  %6.1f  %5.2f  %16.2f  %14.3f  %13.3f" % (
        r + 1, a[0], a[1], a[2], a[3] or 0, a[4] or 0, b[0], b[1], b[2]))
med = {k: [statistics.median(x[i] for x in v) for i in range(3)] for k, v in res.items()}
for k, name in (("on", "traced"), ("off", "untraced")):
    print("median %-8s %.2f GB/s, process CPU %.3f s/GiB, system CPU %.3f s/GiB" % (
        name, *med[k]))
print("traced/untraced medians: throughput %.3f, process CPU per GiB %.3f, "
      "system CPU per GiB %.3f" % tuple(med["on"][i] / med["off"][i] for i in range(3)))
PY

# Per-event cost: hold a BPF_ENABLE_STATS descriptor while one traced run
# goes, and keep the last `bpftool prog show` of its pc_* programs.
command -v bpftool >/dev/null || { echo "no bpftool: per-event cost not measured"; exit 0; }
python3 - "$W" "$(cg_script "$PC bench --directory $DIR --keep --numjobs $JOBS --size $SIZE \
	--mode $MODE --runtime $RUNTIME --time_based -q -o /dev/null 2>$W/stats.err")" \
	"$((RUNTIME * JOBS))" <<'PY'
import ctypes, json, subprocess, sys, time
W, script = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
attr = ctypes.c_uint32(0)                        # BPF_STATS_RUN_TIME
fd = libc.syscall(321, 32, ctypes.byref(attr), 4)   # bpf(BPF_ENABLE_STATS)
if fd < 0:
    sys.exit("cannot enable BPF statistics: errno %d" % ctypes.get_errno())
p = subprocess.Popen(["sh", "-c", script])
last = {}
while p.poll() is None:
    out = subprocess.run(["bpftool", "prog", "show", "--json"], capture_output=True, text=True)
    progs = [x for x in json.loads(out.stdout or "[]") if x.get("name", "").startswith("pc_")]
    if progs:
        last = {x["name"]: (x.get("run_cnt", 0), x.get("run_time_ns", 0)) for x in progs}
    time.sleep(0.5)
secs = float(sys.argv[3]) if len(sys.argv) > 3 else 0
print("per-event cost (BPF run-time statistics, one traced run):")
tot_n = tot_ns = 0
for name, (n, ns) in sorted(last.items()):
    tot_n += n; tot_ns += ns
    print("  %-16s %10d events %8.0f ns/event" % (name, n, ns / n if n else 0))
print("  all: %d events, %.1f ms of CPU in the programs, %.2f%% of the readers' %g s" % (
    tot_n, tot_ns / 1e6, 100 * tot_ns / 1e9 / secs if secs else float("nan"), secs))
PY
