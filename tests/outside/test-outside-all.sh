#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff attach --all`, the host guard: a reader started after it is
# found among all the host's processes and followed; the guard stops after
# --for with exit 0, and the file stays within the budget.  It runs in a PID
# namespace, where "all" is the test's own processes.  The systemd unit
# that ships with it runs `pagecliff attach --all`.
. "$(dirname "$0")/lib.sh"
needs_root "to follow every process of the host"
P=${OUTSIDE_STATIC:-$OUTSIDE_PROG}
: "${PAGECLIFF_BUILDDIR:?}"
unit=$PAGECLIFF_BUILDDIR/outside/pagecliff-guard.service
grep -q "^ExecStart=/.*/pagecliff attach --all$" "$unit" || fail "the unit does not run attach --all: $unit"
mkfile "$dir/src" 256
# In a PID namespace of its own, so that "all" is this test's processes
# and not the other programs of the machine.
command -v unshare >/dev/null || skip "no unshare (util-linux)"
unshare --pid --fork --mount-proc sh -c '
	"$1" attach --all --for 5s --stats="$2/stats" 2>"$2/err" & at=$!
	sleep 1
	"$3" read "$2/src" 128 >"$2/out" || exit 3
	wait $at' sh "$PAGECLIFF" "$dir" "$P"
rc=$?
[ $rc -ne 3 ] || fail "the reader failed"
[ $rc -eq 0 ] || fail "attach --all exited $rc: $(cat "$dir/err")"
grep -qx "$dir/src: $((256 * MIB)) bytes fd 3" "$dir/out" || fail "read: $(cat "$dir/out")"
grep -q "^pagecliff: $dir/src: .* mode dropbehind (outside" "$dir/stats" || fail "no line: $(cat "$dir/stats")"
at_most "$dir/src"
echo "PASS: the host guard followed a new reader (cached after:$report)"
