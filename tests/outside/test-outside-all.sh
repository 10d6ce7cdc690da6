#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff attach --all`, the host guard: a reader started after it is
# found among all the host's processes and followed; the guard stops after
# --for with exit 0, and of the file at most the budget stays cached beyond
# what the reader read before the guard found it.  It runs in a PID
# namespace, where "all" is the test's own processes.  The systemd unit
# that ships with it runs `pagecliff attach --all`.
. "$(dirname "$0")/harness.sh"
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
# Found up to a discovery (1 s) and a look late: what the reader read before
# the guard first saw it stays (whose pages those are the guard did not
# see); what it read after is dropped behind it.  "bytes read" counts what
# the guard saw the cursor pass, from its first look to its last: the rest
# of the file bounds what was read before it was seen.
seen=$(sed -n "s|^pagecliff: $dir/src: \([0-9]*\) bytes read, .*|\1|p" "$dir/stats")
before=$((256 * MIB - seen))
c=$(cached "$dir/src")
[ "$c" -le $((before + LIMIT)) ] ||
	fail "$((c / MIB)) MiB cached, the guard saw $((seen / MIB)) MiB read (at most $(((before + LIMIT) / MIB)) MiB)"
echo "PASS: the host guard followed a new reader ($((c / MIB)) MiB cached after; it saw $((seen / MIB)) MiB read)"
