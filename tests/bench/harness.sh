# SPDX-License-Identifier: MIT
# Shared by the bench test scripts: skipping, failing, and checking that
# nothing a bench run makes (testbed, mount, loop device, cgroup, state) is left.
PAGECLIFF=${PAGECLIFF:?run through meson test}
. "$(dirname "$0")/../harness.sh"

# Drop from file $1 the lines in which a run says it removed what a killed
# run (another test's, on a shared machine) left: they are not the answer.
drop_cleanup_lines() {
	grep -v "^removed what a killed run left: " "$1" >"$1.kept"
	mv "$1.kept" "$1"
}

# A fresh directory $T, removed at exit.
tmpdir() { make_tmpdir T /var/tmp; }

# Whether the run bench_start() started has laid out its data.
laid_out() { grep -q "^laid out" "$T/err"; }

# bench_start DIR READY ARGS...: `bench -d DIR -q --no-trace ARGS` in the
# background (its output in $T/out and $T/err) until the function READY
# succeeds; sets PID.  Fails when the run ends or READY takes 12 s or more.
bench_start() {
	local dir=$1 until=$2
	shift 2
	: >"$T/err"	# now: the background job's own redirection may come late
	"$PAGECLIFF" bench -d "$dir" -q --no-trace "$@" >"$T/out" 2>"$T/err" &
	PID=$!
	for _ in $(seq 600); do
		"$until" && return
		kill -0 $PID 2>/dev/null || fail "bench ended early: $(cat "$T/err")"
		sleep 0.02
	done
	kill -KILL $PID
	fail "bench did not get there ($until): $(cat "$T/err")"
}

# expect_usage WANT ARGS...: `bench ARGS` exits 2 with one line on stderr
# holding WANT (grep $USAGE_GREP: -F, a fixed string, unless the test sets
# it), writes nothing to stdout and makes no data folder in $T.  Counts the
# checks in $n.
n=0
USAGE_GREP=-F
expect_usage() {
	local want="$1"; shift
	n=$((n + 1))
	"$PAGECLIFF" bench "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	drop_cleanup_lines "$T/err"
	[ $rc -eq 2 ] || fail "'$*' exited $rc, want 2: $(cat "$T/err")"
	[ ! -s "$T/out" ] || fail "'$*' wrote to stdout: $(cat "$T/out")"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "'$*' said $(wc -l <"$T/err") lines: $(cat "$T/err")"
	grep -q $USAGE_GREP -- "$want" "$T/err" || fail "'$*' said '$(cat "$T/err")', want '$want'"
	[ ! -e "$T/pagecliff-bench" ] || fail "'$*' created $T/pagecliff-bench"
}

# The memory cgroup directories where bench would put its cgroups.
cgroup_dirs() {
	local p
	p=$(sed -n 's/^[0-9]*:[^:]*memory[^:]*:\(.*\)$/\1/p' /proc/self/cgroup | head -1)
	if [ -n "$p" ]; then
		echo "/sys/fs/cgroup/memory$p"
	else
		p=$(sed -n 's/^0::\(.*\)$/\1/p' /proc/self/cgroup)
		echo "/sys/fs/cgroup$p" "$(dirname "/sys/fs/cgroup$p")"
	fi
}

# Fail when bench run $1 left something; without $1, when any bench run that
# is no longer alive did (runs of others still going are theirs).
check_nothing_left() {
	local pid d left="" p
	if [ -n "${1:-}" ]; then
		pids=$1
	else
		pids=$( (ls /run/pagecliff 2>/dev/null; for d in $(cgroup_dirs); do ls "$d"; done) |
			sed -n 's/^\(bench-\|testbed-\|pagecliff-\)\([0-9][0-9]*\).*/\2/p' | sort -u)
	fi
	for pid in $pids; do
		[ -z "${1:-}" ] && kill -0 "$pid" 2>/dev/null && continue
		for d in $(cgroup_dirs); do
			[ -d "$d/pagecliff-$pid" ] && left="$left cgroup:$d/pagecliff-$pid"
		done
		grep -q "/run/pagecliff/testbed-$pid/" /proc/mounts && left="$left mount:$pid"
		losetup -a 2>/dev/null | grep -q "/run/pagecliff/testbed-$pid/" && left="$left loop:$pid"
		[ -e "/run/pagecliff/testbed-$pid" ] && left="$left testbed-dir:$pid"
		[ -e "/run/pagecliff/bench-$pid.state" ] && left="$left state-file:$pid"
		for p in /run/pagecliff/bench-"$pid"-*.state; do
			[ -e "$p" ] && left="$left state-file:${p#/run/pagecliff/}"
		done
		[ -e "/run/pagecliff/bench-$pid.new" ] && left="$left state-file:$pid.new"
	done
	[ -z "$left" ] || fail "left behind:$left"
}
