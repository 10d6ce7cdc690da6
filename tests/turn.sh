#!/bin/bash
# SPDX-License-Identifier: MIT
# A test's turn on the machine.  tests/run.sh runs every test through this
# wrapper (meson test --wrapper) with PAGECLIFF_TURNS naming its list of the
# tests that take the machine alone (is_parallel: false in meson.build: they
# measure the machine's figures, CPU time or a time ratio, or act on every
# process) and of those that take no turn (the guests, whose page cache and
# memory are their own).  Every other test shares the machine with the rest.
# Two locks in /run/lock (PAGECLIFF_TURN_DIR), machine-wide, so that the
# suites of several build folders run side by side: the machine, shared or
# exclusive for the whole test, and the gate, held only while a test waits
# for the machine, so that a test that wants it alone is not starved by a
# stream of shared ones.  The test itself holds neither descriptor: a daemon
# it leaves behind cannot keep the lock.
# With PAGECLIFF_CPULOG, a line per test is appended to that file: the
# test's turn, the CPU seconds (user, system) of the processes it waited
# for, its wall seconds, when it ended (seconds since the epoch) and its
# command: where a run's time goes.
#   PAGECLIFF_TURNS=FILE tests/turn.sh COMMAND [ARG]...
# FILE has one line a test, "alone COMMAND ARG..." or "none COMMAND ARG...".
set -u
dir=${PAGECLIFF_TURN_DIR:-/run/lock}
[ -d "$dir" ] && [ -w "$dir" ] || dir=${TMPDIR:-/tmp}
turn=shared
if [ -n "${PAGECLIFF_TURNS:-}" ]; then
	grep -qxF "alone $*" "$PAGECLIFF_TURNS" && turn=alone
	grep -qxF "none $*" "$PAGECLIFF_TURNS" && turn=none
fi
# cpulog RC: the line of PAGECLIFF_CPULOG, then exit RC.
cpulog() {
	local rc=$1 t
	shift
	times >"$PAGECLIFF_CPULOG.$$"	# here: a subshell's times are its own
	t=$(tail -n 1 "$PAGECLIFF_CPULOG.$$" | sed 's/m/ /g; s/s//g; s/,/./g' |
		awk '{ printf "%.2f\t%.2f", $1 * 60 + $2, $3 * 60 + $4 }')
	rm -f "$PAGECLIFF_CPULOG.$$"
	printf '%s\t%s\t%d\t%s\t%s\n' "$turn" "$t" $((SECONDS - t0)) "$(date +%s)" "$*" >>"$PAGECLIFF_CPULOG"
	exit "$rc"
}
t0=$SECONDS
case $turn in
none) [ -n "${PAGECLIFF_CPULOG:-}" ] || exec "$@"; "$@"; cpulog $? "$@" ;;
alone) how=-x ;;
shared) how=-s ;;
esac
# Made readable and writable by every user, opened read-only (flock needs
# no more): the suite of a user and root's share the same turns.
for f in gate machine; do
	[ -e "$dir/pagecliff-tests.$f" ] || (umask 0 && : >>"$dir/pagecliff-tests.$f") 2>/dev/null
done
exec 8<"$dir/pagecliff-tests.gate" 9<"$dir/pagecliff-tests.machine" ||
	{ echo "turn.sh: cannot open the locks in $dir" >&2; exit 2; }
flock -x 8 && flock "$how" 9 && flock -u 8 || { echo "turn.sh: no turn in $dir" >&2; exit 2; }
exec 8>&-
# A child, not exec: this shell keeps the lock until the test ends; meson's
# signals on a timeout reach the whole process group, this shell too.
"$@" 9>&-
rc=$?
[ -n "${PAGECLIFF_CPULOG:-}" ] && cpulog $rc "$@"
exit $rc
