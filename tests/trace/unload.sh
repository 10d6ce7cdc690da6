#!/bin/bash
# SPDX-License-Identifier: MIT
# Everything bench and watch load is gone after SIGINT, SIGTERM, SIGKILL and
# an error exit: the pc_* programs and maps a run loaded (compared with
# `bpftool prog show`, `map show`, `link show` before, during and after) and
# nothing pinned under /sys/fs/bpf.
. "$(dirname "$0")/harness.sh"
need_trace
tmpdir
before=$(pc_objects | sort)

# Wait until process $1 has its 9 programs loaded; sets NEW to its objects.
wait_loaded() {
	local i
	for i in $(seq 200); do
		NEW=$(comm -13 <(echo "$before") <(pc_objects | sort))
		[ "$(echo "$NEW" | grep -c '^prog')" -ge 9 ] && return 0
		kill -0 "$1" 2>/dev/null || fail "process $1 ended before it loaded: $(cat "$T/err")"
		sleep 0.1
	done
	fail "process $1 did not load its programs in 20 s"
}

# After process $1 ($2 says how it ended) nothing of $NEW may be left.  The
# kernel frees programs after an RCU grace period and their maps after that,
# so what the exit released may show for a moment: up to 10 s is allowed.
check_gone() {
	local ids left i
	ids=$(echo "$NEW" | awk '$1 == "prog" { print $2 }')
	for i in $(seq 100); do
		left=$(comm -12 <(echo "$NEW") <(pc_objects | sort))
		[ -z "$left" ] && [ -z "$(links_of $ids)" ] && break
		sleep 0.1
	done
	[ -n "$(links_of $ids)" ] && fail "$2: links left: $(links_of $ids)"
	[ -z "$left" ] || fail "$2: left loaded: $left"
	if [ -d /sys/fs/bpf ] && find /sys/fs/bpf -name 'pc_*' | grep -q .; then
		fail "$2: pinned: $(find /sys/fs/bpf -name 'pc_*')"
	fi
	echo "$2: $(echo "$NEW" | wc -l) objects loaded, none left"
}

for sig in INT TERM KILL; do
	"$PAGECLIFF" bench -d "$T" --size 64m --numjobs 1 --mode buffered --runtime 120 \
		--time_based -q -o /dev/null 2>"$T/err" &
	pid=$!
	wait_loaded $pid
	[ "$(links_of $(echo "$NEW" | awk '$1 == "prog" { print $2 }') | wc -l)" -ge 9 ] ||
		fail "bench's programs are not attached"
	kill -$sig $pid
	wait $pid
	rc=$?
	case $sig in
	INT) [ $rc -eq 130 ] || fail "SIGINT: exit $rc: $(cat "$T/err")" ;;
	TERM) [ $rc -eq 143 ] || fail "SIGTERM: exit $rc: $(cat "$T/err")" ;;
	KILL) [ $rc -eq 137 ] || fail "SIGKILL: exit $rc" ;;
	esac
	check_gone $pid "bench SIGINT/SIGTERM/SIGKILL: SIG$sig"
done

# An error: watch cannot write its output (ENOSPC), so it stops and exits 1.
"$PAGECLIFF" watch --json --interval 1500ms --count 5 >/dev/full 2>"$T/err" &
pid=$!
wait_loaded $pid
wait $pid
rc=$?
[ $rc -eq 1 ] || fail "watch >/dev/full: exit $rc, want 1: $(cat "$T/err")"
check_gone $pid "watch write error"
# SIGTERM on watch, which has no handler (a script's background jobs ignore
# SIGINT): the kernel closes its descriptors
"$PAGECLIFF" watch --json --interval 1s --count 100 >/dev/null 2>"$T/err" &
pid=$!
wait_loaded $pid
kill -TERM $pid
wait $pid
check_gone $pid "watch SIGTERM"
echo "PASS: nothing left loaded"
