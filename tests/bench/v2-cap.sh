#!/bin/bash
# SPDX-License-Identifier: MIT
# bench --mem-limit on cgroup v2 with the memory controller (the VM suite's
# guests; a host with memory on v1 skips).  Started alone in a cgroup OWN
# below the root: bench makes OWN/pagecliff-PID/{leader,workers} and nothing
# elsewhere, itself (the sampler) in the leader, the workers' child process
# alone in "workers" under memory.max, the page cache counted from that
# cgroup's memory.stat; refused in one line when OWN holds another process;
# SIGINT undoes everything; after SIGKILL `bench --cleanup` does; `watch`
# shows a v2 cgroup's figures.
. "$(dirname "$0")/harness.sh"
needs_root "for the memory cgroup"
needs_memcg_v2 mnt
command -v python3 >/dev/null || skip "no python3 to read the report"
make_tmpdir T /tmp
own=$mnt/pc-v2cap-$$
mkdir "$own" || fail "mkdir $own"
cleanup() {
	local f p
	for f in $(find "$own" -name cgroup.procs 2>/dev/null); do
		for p in $(cat "$f"); do kill -9 "$p" 2>/dev/null; done
	done
	sleep 0.2
	find "$own" -depth -type d -exec rmdir {} \; 2>/dev/null
}
at_exit cleanup
cap=$((48 << 20))

# bench started as the only process of $own, in place of the calling (sub)shell:
# run it with & or in ( ); $! is bench's pid.
bench_in_own() {
	exec sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$own" "$PAGECLIFF" bench -d "$T" \
		--numjobs 1 --size 128m --mem-limit 48m --mode buffered --interval 200ms -q "$@"
}

# Wait until run $1 has workers in its capped cgroup; their pids in $workers.
# wait_workers PID: the pid in its workers cgroup, and that process's parent
# read at once (a phase's workers process ends with the phase: read late,
# its /proc entry may be gone).
wait_workers() {
	workers="" wppid=""
	for ((i = 0; i < 600; i++)); do
		workers=$(cat "$own/pagecliff-$1/workers/cgroup.procs" 2>/dev/null)
		[ -n "$workers" ] &&
			wppid=$(awk '/^PPid:/ {print $2}' "/proc/$workers/status" 2>/dev/null)
		[ -n "$wppid" ] && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

nothing_left() {
	local left
	left=$(find "$own" -mindepth 1 -type d)
	[ -z "$left" ] || fail "$1: left below $own: $left"
	! grep -qw memory "$own/cgroup.subtree_control" ||
		fail "$1: memory left enabled in $own/cgroup.subtree_control"
	[ -z "$(find "$mnt" -maxdepth 1 -name 'pagecliff-*')" ] ||
		fail "$1: a pagecliff cgroup at the hierarchy's root: $(ls -d "$mnt"/pagecliff-*)"
}

# 1. A capped run: placement, the workers alone in the cap, cache from memory.stat.
# (time-based: a phase of 128 MiB ends in under a tenth of a second on a
# quick guest, between two looks for its workers)
bench_in_own --time_based --runtime 2 --output-format json -o "$T/r.json" 2>"$T/err" &
pid=$!
wait_workers "$pid" || fail "no workers seen in $own/pagecliff-$pid/workers: $(cat "$T/err")"
leader=$(cat "$own/pagecliff-$pid/leader/cgroup.procs")
max=$(cat "$own/pagecliff-$pid/workers/memory.max")
at_root=$(find "$mnt" -maxdepth 1 -name "pagecliff-$pid*")
wait "$pid"
rc=$?
[ $rc -eq 0 ] || fail "capped run: exit $rc: $(cat "$T/err")"
[ "$leader" = "$pid" ] || fail "leader holds '$leader', want bench ($pid) alone"
[ "$(echo "$workers" | wc -w)" = 1 ] && [ "$workers" != "$pid" ] ||
	fail "workers cgroup holds '$workers': want one process, not bench ($pid)"
[ "$wppid" = "$pid" ] || fail "the workers' process $workers is a child of '$wppid', not bench"
[ "$max" = "$cap" ] || fail "memory.max $max, want $cap"
[ -z "$at_root" ] || fail "made at the root: $at_root"
nothing_left "capped run"
grep -q "memory cap: 48.0 MiB (cgroup v2 $own/pagecliff-$pid/workers)" "$T/err" ||
	fail "no memory cap line naming the workers' cgroup: $(cat "$T/err")"
python3 - "$T/r.json" "$cap" <<'PY' || fail "report checks"
import json, sys
j = json.load(open(sys.argv[1]))
cap = int(sys.argv[2])
assert j["job"]["cgroup_version"] == 2 and j["job"]["mem_limit"] == cap, j["job"]
m = j["modes"][0]
assert m["bytes"] >= 128 << 20 and m["error"] == 0, (m["bytes"], m["error"])
# the cgroup's file pages: filled to near the cap, never the system's cache
peak = m["peak_page_cache_bytes"]
assert cap // 4 < peak <= cap, f"peak page cache {peak} for a cap of {cap}"
print(f"capped run: {m['bytes'] >> 20} MiB read, peak cgroup cache {peak >> 20} MiB of {cap >> 20}")
PY

# 2. Another process in own: refused in one line, nothing made.
sleep 60 &
other=$!
echo "$other" >"$own/cgroup.procs" || fail "cannot move sleep into $own"
(bench_in_own -o "$T/r2.txt") 2>"$T/err2"
rc=$?
kill "$other"
wait "$other" 2>/dev/null
[ $rc -eq 2 ] || fail "with a neighbour: exit $rc, want 2: $(cat "$T/err2")"
drop_cleanup_lines "$T/err2"
[ "$(wc -l <"$T/err2")" = 1 ] || fail "refusal is not one line: $(cat "$T/err2")"
grep -q "holds process $other (sleep), which is not this one's own tree" "$T/err2" &&
	grep -q "systemd as PID 1 with systemd-run" "$T/err2" ||
	fail "refusal says neither why nor what to do: $(cat "$T/err2")"
nothing_left "refused run"

# 3. SIGINT while the workers run: everything undone.
bench_in_own --time_based --runtime 120 -o "$T/r3.txt" 2>"$T/err3" &
pid=$!
wait_workers "$pid" || fail "SIGINT run: no workers: $(cat "$T/err3")"
kill -INT "$pid"
wait "$pid"
rc=$?
[ $rc -eq 130 ] || fail "SIGINT run: exit $rc, want 130: $(cat "$T/err3")"
nothing_left "SIGINT run"

# 4. SIGKILL: the workers die with bench, `bench --cleanup` removes the tree.
bench_in_own --time_based --runtime 120 -o "$T/r4.txt" 2>"$T/err4" &
pid=$!
wait_workers "$pid" || fail "SIGKILL run: no workers: $(cat "$T/err4")"
w4=$workers
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null	# without bash's "Killed" notice
for ((i = 0; i < 50; i++)); do
	kill -0 "$w4" 2>/dev/null || break
	sleep 0.1
done
! kill -0 "$w4" 2>/dev/null || fail "the workers' process $w4 outlived bench"
[ -d "$own/pagecliff-$pid" ] || fail "SIGKILL run: its cgroup is already gone"
"$PAGECLIFF" bench --cleanup 2>"$T/err5" || fail "bench --cleanup: $(cat "$T/err5")"
grep -q "removed what a killed run left: cgroup $own/pagecliff-$pid\$" "$T/err5" ||
	fail "--cleanup did not say it removed $own/pagecliff-$pid: $(cat "$T/err5")"
left=$(find "$own" -mindepth 1 -type d)
[ -z "$left" ] || fail "after --cleanup, left below $own: $left"

# 5. watch on v2: the figures of a cgroup with memory.max.
grep -qw memory "$own/cgroup.subtree_control" || echo "+memory" >"$own/cgroup.subtree_control" ||
	fail "cannot enable memory in $own"
mkdir "$own/w" && echo $((64 << 20)) >"$own/w/memory.max" || fail "cannot make $own/w"
sh -c 'echo $$ >"$0/cgroup.procs" && dd if=/dev/zero of="$1/fill" bs=1M count=24 2>/dev/null &&
	cat "$1/fill" >/dev/null' "$own/w" "$T" || fail "cannot fill the watched cgroup"
"$PAGECLIFF" watch --cgroup "$own/w" --count 1 --interval 200ms --json >"$T/w.json" 2>"$T/werr" ||
	fail "watch: $(cat "$T/werr")"
python3 - "$T/w.json" "$own/w" <<'PY' || fail "watch checks: $(cat "$T/w.json")"
import json, sys
o = json.loads(open(sys.argv[1]).read().splitlines()[0])
cg = o["cgroup"]
assert cg and cg["version"] == 2 and cg["dir"] == sys.argv[2], cg
assert cg["limit_bytes"] == 64 << 20, cg
assert 16 << 20 <= cg["file_bytes"] <= 64 << 20, cg
print(f"watch: v2 cgroup {cg['file_bytes'] >> 20} MiB of file pages under {cg['limit_bytes'] >> 20} MiB")
PY
rmdir "$own/w" && echo "-memory" >"$own/cgroup.subtree_control"
echo "PASS: cgroup v2 cap inside $own, workers apart from the sampler, undone on SIGINT and by --cleanup"
