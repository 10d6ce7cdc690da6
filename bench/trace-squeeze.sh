#!/bin/bash
# SPDX-License-Identifier: MIT
# Global memory pressure, no cgroup: a helper process locks (mlock) all but
# LEAVE of free memory beside the RAM testbed, then bench reads buffered with
# kernel-event tracing; the readers fall into direct (global) reclaim and
# kswapd wakes, which a memory cap alone never shows.  The locked memory goes
# back when the helper ends, on every path (it is killed at exit and on
# signals, and the OOM killer picks it first: oom_score_adj 1000).
#
# usage: sudo bench/trace-squeeze.sh
# env: SIZE per thread (1536m), JOBS (2), LEAVE free MiB (1024), RUNTIME (8),
#      PAGECLIFF
set -u
cd "$(dirname "$0")/.." || exit 1
SIZE=${SIZE:-1536m}
JOBS=${JOBS:-2}
LEAVE=${LEAVE:-1024}
RUNTIME=${RUNTIME:-8}
CAP=64m		# bench/lib.sh's cgroup and filler: unused here, kept small
NAME=trace-squeeze.sh
. bench/lib.sh
SQ=
trap 'cleanup_all' EXIT
cleanup_all() {
	[ -n "$SQ" ] && kill "$SQ" 2>/dev/null && wait "$SQ" 2>/dev/null
	cleanup
}
# Our own testbed with the data set laid out once (bench/lib.sh); the
# squeeze is taken after it, from what is free then.
prepare ram
for f in "${FILES[@]}" "$FILLER"; do dd if="$f" iflag=nocache count=0 status=none; done
free_m=$(( $(awk '/^MemFree:/ { print $2 }' /proc/meminfo) / 1024 ))
lock_m=$(( free_m - LEAVE ))
[ $lock_m -gt 0 ] || die "only $free_m MiB free: nothing to take away"

# The squeezer: lock lock_m MiB, say so, and hold it until killed.
ulimit -l unlimited 2>/dev/null
python3 - "$lock_m" "$W/locked" <<'PY' &
import ctypes, mmap, os, signal, sys
open("/proc/self/oom_score_adj", "w").write("1000")
n = int(sys.argv[1]) << 20
m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_POPULATE", 0x8000))
libc = ctypes.CDLL(None, use_errno=True)
c = ctypes.c_char.from_buffer(m)
if libc.mlock(ctypes.c_void_p(ctypes.addressof(c)), ctypes.c_size_t(n)):
    sys.exit("mlock: " + os.strerror(ctypes.get_errno()))
open(sys.argv[2], "w").write("%d\n" % n)
signal.pause()
PY
SQ=$!
for i in $(seq 600); do [ -s "$W/locked" ] && break; kill -0 $SQ 2>/dev/null || die "squeezer failed"; sleep 0.1; done
[ -s "$W/locked" ] || die "squeezer did not lock in 60 s"
echo "locked $lock_m MiB of $free_m MiB free; about $LEAVE MiB left" >&2
"$PC" bench --directory "$DIR" --keep --numjobs "$JOBS" --size "$SIZE" --mode buffered,direct \
	--runtime "$RUNTIME" --time_based -q --interval 500ms --output-format json \
	-o "$W/r.json" 2>"$W/err" || die "bench failed: $(cat "$W/err")"
kill $SQ; wait $SQ 2>/dev/null; SQ=
grep "no kernel-event" "$W/err" >&2
python3 - "$W/r.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for m in j["modes"]:
    print("%-9s %5.2f GB/s  direct reclaim %5.1f%%  memcg reclaim %4.1f%%  lock wait %4.1f%%  "
          "kswapd awake %5.1f%%  pgsteal_direct %.0f/s, pgsteal_kswapd %.0f/s (medians)" % (
        m["mode"], m["gbps_avg"], m["direct_reclaim_pct"] or 0, m["memcg_reclaim_pct"] or 0,
        m["lock_wait_pct"] or 0, m["kswapd_busy_pct"] or 0,
        sorted(i["pgsteal_direct_s"] or 0 for i in m["intervals"])[len(m["intervals"]) // 2],
        sorted(i["pgsteal_kswapd_s"] or 0 for i in m["intervals"])[len(m["intervals"]) // 2]))
    print("  top locks:", ", ".join("%s %.2f%%" % (t["lock"], t["pct"]) for t in m["top_locks"]))
    print("  verdict:", m["verdict"])
PY
