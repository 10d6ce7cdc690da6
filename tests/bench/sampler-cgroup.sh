#!/bin/bash
# SPDX-License-Identifier: MIT
# Where a capped run's threads live on cgroup v1: the leader and every worker
# in the cap (v1 charges the process's page cache and anonymous memory to the
# leader's cgroup), the sampler alone in the caller's own cgroup, so that the
# kernel memory of its /proc and cgroup reads is not charged to a cap full of
# page cache.  v2 keeps a process's threads in one cgroup: skipped there.
. "$(dirname "$0")/harness.sh"
needs_root "for the testbed and the memory cgroup"
[ -e /dev/loop-control ] || skip "no loop devices"
own=$(sed -n 's/^[0-9]*:\([^:]*,\)\{0,1\}memory\(,[^:]*\)\{0,1\}:\(.*\)$/\3/p' /proc/self/cgroup | head -1)
[ -n "$own" ] || skip "no cgroup v1 memory controller: on v2 the whole process is in the cap"
home=/sys/fs/cgroup/memory${own%/}
[ -d "$home" ] || skip "v1 memory hierarchy not at /sys/fs/cgroup/memory"
tmpdir

# The memory cgroup of thread $1 of process $2, as a path below the mount.
memcg_of() {
	sed -n 's/^[0-9]*:\([^:]*,\)\{0,1\}memory\(,[^:]*\)\{0,1\}:\(.*\)$/\3/p' \
		"/proc/$2/task/$1/cgroup" 2>/dev/null
}

"$PAGECLIFF" bench --testbed ram:512m --mem-limit 128m --numjobs 2 --size 64m --mode buffered \
	--time_based --runtime 4 -q -o "$T/r.txt" 2>"$T/err" &
pid=$!
cap="${own%/}/pagecliff-$pid"
seen=""
for ((i = 0; i < 150; i++)); do
	[ -z "$seen" ] || break
	sleep 0.1
	in_cap=0 out=() leader=""
	for t in /proc/$pid/task/*; do
		tid=${t##*/}
		cg=$(memcg_of "$tid" "$pid")
		[ "$tid" = "$pid" ] && leader=$cg
		if [ "$cg" = "$cap" ]; then
			in_cap=$((in_cap + 1))
		elif [ -n "$cg" ]; then
			out+=("$tid:$cg")
		fi
	done
	# leader, two workers in the cap, the sampler out: the phase is running
	[ "$leader" = "$cap" ] && [ "$in_cap" -ge 3 ] && [ ${#out[@]} -ge 1 ] &&
		seen="$in_cap in the cap, outside: ${out[*]}"
done
wait "$pid"
rc=$?
[ $rc -eq 0 ] || fail "exit $rc: $(cat "$T/err")"
[ -n "$seen" ] || fail "never saw the leader and two workers in $cap with the sampler outside"
[ ${#out[@]} -eq 1 ] || fail "more than the sampler outside the cap: ${out[*]}"
[ "${out[0]#*:}" = "$own" ] || fail "the sampler is in ${out[0]#*:}, not the caller's $own"
[ "${out[0]%%:*}" != "$pid" ] || fail "the leader left the cap"
check_nothing_left "$pid"
echo "PASS: sampler outside the cap ($seen)"
