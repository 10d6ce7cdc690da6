#!/bin/sh
# SPDX-License-Identifier: MIT
# Residency the kernel hides: nobody attaches to its own reader of root's
# file, which nobody may read but not write, so cachestat(2) refuses and
# nothing tells pages cached before from the reader's.  The watcher drops
# behind the reader all the same, its --stats line says "(residency
# unknown)", and the file stays within the budget.
. "$(dirname "$0")/harness.sh"
needs_root "to run as nobody"
P=${OUTSIDE_STATIC:-$OUTSIDE_PROG}
mkfile "$dir/src" 256
: > "$dir/stats" && : > "$dir/out" && : > "$dir/out.err" && chmod 666 "$dir/stats" "$dir/out" "$dir/out.err" || exit 1
setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c '
	"$1" read "$2/src" 128 > "$2/out" & r=$!
	sleep 0.3
	"$3" attach --stats="$2/stats" $r 2>"$2/out.err"
	wait $r' sh "$P" "$dir" "$PAGECLIFF" || fail "the reader or attach failed: $(cat "$dir/out.err" 2>/dev/null)"
grep -qx "$dir/src: $((256 * MIB)) bytes fd 3" "$dir/out" || fail "read: $(cat "$dir/out")"
grep -Eq "^pagecliff: $dir/src: .* [0-9]+ \(residency unknown\) bytes dropped" "$dir/stats" ||
	fail "no line saying residency is unknown: $(cat "$dir/stats")"
at_most "$dir/src"
echo "PASS: residency unknown said (cached after:$report)"
