#!/bin/bash
# SPDX-License-Identifier: MIT
# The LD_PRELOAD shim under faults: real programs (cat, dd, sha256sum, tar)
# read faultfs files that fail with EIO, reply short, or shrink mid-read,
# once plainly and once with the shim in each mode.  The program must see
# exactly the same: same exit status, same stderr, same output bytes.
set -u

[ -f "${SHIM:-}" ] || { echo "SKIP: \$SHIM does not name libpagecliff-preload.so"; exit 77; }
. "$(dirname "$0")/mount.sh"

failed=0 passed=0

# The command line of PROG reading NAME in the current folder, into $cmdline.
command_for() {
	case $1 in
	cat) cmdline=(cat "$2") ;;
	dd) cmdline=(dd "if=$2" bs=64k status=none) ;;
	sha256sum) cmdline=(sha256sum "$2") ;;
	tar) cmdline=(tar cf - "$2") ;;
	esac
}

# compare NAME MODE SPEC PROG: PROG on a fresh file of SPEC, plainly and with
# the shim in MODE, each in a folder of its own (faultfs remembers a shrink
# per path) under the same name.
compare() {
	local name=$1 mode=$2 spec=$3 prog=$4 cmdline
	command_for "$prog" "$spec"
	(cd "$mnt/dir-plain-$n" && timeout 30 "${cmdline[@]}") >"$work/p.out" 2>"$work/p.err"; prc=$?
	(cd "$mnt/dir-shim-$n" && PAGECLIFF_MODE=$mode LD_PRELOAD=$SHIM timeout 30 "${cmdline[@]}") \
		>"$work/s.out" 2>"$work/s.err"; src=$?
	if [ $prc != $src ]; then
		echo "FAIL: $prog $name shim $mode: exit $src, without the shim $prc"
	elif ! cmp -s "$work/p.out" "$work/s.out"; then
		echo "FAIL: $prog $name shim $mode: output differs ($(stat -c %s "$work/s.out") vs $(stat -c %s "$work/p.out") bytes)"
	elif ! cmp -s "$work/p.err" "$work/s.err"; then
		echo "FAIL: $prog $name shim $mode: stderr differs: '$(head -c 300 "$work/s.err")' vs '$(head -c 300 "$work/p.err")'"
	else
		passed=$((passed + 1))
		return
	fi
	failed=$((failed + 1))
}

n=0
# Every mode the shim acts with (direct never reads FUSE direct: a server
# that replies short ends a buffered read there, not a direct one).
modes=$("$PAGECLIFF" run --list-modes | grep -vx off) && [ -n "$modes" ] ||
	{ echo "FAIL: run --list-modes: exit $?"; exit 1; }
for mode in $modes; do
	for prog in cat dd sha256sum tar; do
		n=$((n + 1))
		compare eio "$mode" "size=24m,eio=10485883" "$prog"
		compare short "$mode" "size=12582917,short=4000" "$prog"
		compare shrink "$mode" "size=24m,shrink=4m:9437191" "$prog"
	done
done
# The failing runs did fail, so the comparison meant something.
cat "$mnt/dir-check/size=24m,eio=10485883" >/dev/null 2>&1 &&
	{ echo "FAIL: the eio file did not fail"; failed=$((failed + 1)); }

# And the shim was at work: it dropped what cat read before the error.
(cd "$mnt/dir-active" && PAGECLIFF_STATS="$work/stats" PAGECLIFF_MODE=dropbehind \
	LD_PRELOAD=$SHIM timeout 30 cat "size=24m,eio=10485883" >/dev/null 2>&1)
grep -q "size=24m,eio=10485883: 10485760 bytes read.* [1-9][0-9]* bytes dropped" "$work/stats" ||
	{ echo "FAIL: the shim did not drop behind cat: $(cat "$work/stats" 2>&1)"; failed=$((failed + 1)); }

echo "$passed passed, $failed failed"
[ $failed = 0 ]
