#!/bin/sh
# SPDX-License-Identifier: MIT
# watch's reclaim figures rise while a buffered read of a file larger than a
# memory cgroup's cap runs in that cgroup: a 256 MiB cap (v1 memory
# controller, else cgroup v2), a 640 MiB file, `pagecliff cat --mode
# buffered`.  Root only; the cgroup and file are removed on exit.
set -u
pc=${PAGECLIFF:?PAGECLIFF is not set}
. "$(dirname "$0")/../harness.sh"
needs_root "to create a memory cgroup"
command -v python3 >/dev/null || { echo "SKIP: no python3 to check JSON"; exit 77; }
name=pagecliff-test-$$
cg=""
make_tmpdir tmp "${TMPDIR:-/tmp}"
cleanup() {
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		# a reader still running (interrupted test) goes back to the parent
		for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do
			echo "$p" >"$(dirname "$cg")/cgroup.procs" 2>/dev/null
		done
		rmdir "$cg" 2>/dev/null || { sleep 1; rmdir "$cg" 2>/dev/null; }
	fi
	rm -rf "$tmp"
}
at_exit cleanup

cap=$((256 << 20))
if [ -w /sys/fs/cgroup/memory ] && [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
	cg=/sys/fs/cgroup/memory/$name
	mkdir "$cg" && echo $cap >"$cg/memory.limit_in_bytes" ||
		{ echo "FAIL: cannot make v1 memory cgroup $cg"; exit 1; }
else
	v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$v2" ] && grep -qw memory "$v2/cgroup.controllers" 2>/dev/null ||
		{ echo "SKIP: no memory cgroup controller (v1 or v2)"; exit 77; }
	echo +memory >"$v2/cgroup.subtree_control" 2>/dev/null
	cg=$v2/$name
	mkdir "$cg" && echo $cap >"$cg/memory.max" ||
		{ echo "FAIL: cannot make v2 memory cgroup $cg"; exit 1; }
fi

# the file bypasses the page cache as it is written: nothing of it is cached
dd if=/dev/zero of="$tmp/big" bs=1M count=640 oflag=direct status=none ||
	{ echo "SKIP: cannot write a 640 MiB file with O_DIRECT in $tmp"; exit 77; }

"$pc" watch --json --interval 250ms --count 20 --cgroup "$cg" >"$tmp/watch" 2>"$tmp/err" &
watch_pid=$!
sleep 0.6
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" cat --mode buffered "$3"' sh "$cg" "$pc" \
	"$tmp/big" >/dev/null || { echo "FAIL: buffered read in the cgroup failed"; exit 1; }
wait $watch_pid || { echo "FAIL: watch: $(cat "$tmp/err")"; exit 1; }

python3 - "$tmp/watch" "$cap" <<'PY' || exit 1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
if len(rows) != 20:
    sys.exit(f"FAIL: {len(rows)} intervals, want 20")
def scan(o):
    return sum(o[k] or 0 for k in ("pgscan_file_s", "pgscan_direct_s", "pgscan_kswapd_s"))
first, peak = scan(rows[0]), max(scan(o) for o in rows)
stolen = sum((o["pgsteal_file_s"] or 0) * o["interval_s"] for o in rows)
cgs = [o["cgroup"] for o in rows]
if any(c is None for c in cgs):
    sys.exit("FAIL: watch did not read the test cgroup")
print(f"reclaim scan: first interval {first:.0f} pages/s, peak {peak:.0f} pages/s; "
      f"file pages stolen {stolen:.0f} ({stolen * 4096 / 2**20:.0f} MiB); "
      f"cgroup v{cgs[0]['version']} limit {cgs[0]['limit_bytes']}")
if cgs[0]["limit_bytes"] != int(sys.argv[2]):
    sys.exit("FAIL: cgroup limit not seen")
if peak <= first or peak <= 0:
    sys.exit("FAIL: reclaim figures did not rise during the read")
# 640 MiB read through a 256 MiB cap: at least ~300 MiB must be reclaimed
if stolen * 4096 < 300 * 2**20:
    sys.exit(f"FAIL: only {stolen * 4096 / 2**20:.0f} MiB reclaimed")
PY
echo "watch reclaim: ok"
exit 0
