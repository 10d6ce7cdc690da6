#!/bin/bash
# SPDX-License-Identifier: MIT
# pagecliff cat of a log that grows while it is read prints what cat(1)
# prints: every line up to the end the file has when the read comes there
# (cat(1) reads until read(2) returns 0).  Made deterministic with a FIFO:
# cat has opened the cold file, read ahead and blocked on the full FIFO
# when another process appends lines (across page boundaries, many MiB);
# only then is the FIFO drained.  In auto mode cat reads this cold file
# direct, whose pipeline must not stop at the size it saw first.
set -u
pc=${PAGECLIFF:?}
. "$(dirname "$0")/../harness.sh"
make_tmpdir dir
pid=
at_exit '[ -n "$pid" ] && kill "$pid" 2>/dev/null'
cd "$dir" || exit 1
mkfifo fifo || exit 1

# Lines of 51 bytes: 90000 make 4.38 MiB, over auto's 4 MiB line for direct.
lines() { seq -f "%010g: a line of the log, read while it grows" "$1" "$2"; }

# run MODE APPEND_FROM APPEND_TO FIRST [cat options]: FIRST bytes of cat's
# output are taken before the append, 'tail' for all but the last 200 KB
# (then cat has its last chunk in hand, 136 KB more than the FIFO's 64 KiB).
run() {
	local mode=$1 from=$2 to=$3 first=$4 rc
	shift 4
	rm -f log out err
	lines 1 90000 >log
	sync log && dd if=log iflag=nocache count=0 status=none || fail "cannot evict log"
	timeout 60 "$pc" cat --stats --mode "$mode" "$@" log >fifo 2>err &
	pid=$!
	exec 3<fifo
	# cat has opened the file and is blocked on the full FIFO after this.
	[ "$first" = tail ] && first=$(($(stat -c %s log) - 200000))
	head -c "$first" <&3 >out
	lines "$from" "$to" >>log
	cat <&3 >>out
	exec 3<&-
	wait "$pid"
	rc=$?
	pid=
	[ $rc = 0 ] || fail "$mode $*: exit $rc: $(cat err)"
	[ "$mode" != auto ] || grep -q 'strategy direct' err ||
		fail "auto did not read the cold log direct: $(cat err)"
	if ! cmp -s out log; then
		fail "$mode $*: wrote $(stat -c %s out) bytes, the log has $(stat -c %s log) ($(cat err))"
	fi
	echo "$mode $first $*: $(stat -c %s out) bytes, as the log;" \
		"$(sed 's/.*strategy \([a-z]*\).*/\1/' err)"
}

for opt in --bs=1m --copy; do
	run auto 90001 90100 4096 $opt		# 5100 bytes: across a page boundary
	run auto 90001 90100 tail $opt
	run auto 90001 200000 4096 $opt		# 5.6 MB more
done
# every strategy by its name (auto is one of them at run time)
modes=$("$pc" cat --list-modes | grep -vx auto) && [ -n "$modes" ] || fail "cat --list-modes: exit $?"
for m in $modes; do
	run $m 90001 90100 tail
	run $m 90001 200000 4096 --copy
done
echo "cat of a growing log: every line, in every mode"
