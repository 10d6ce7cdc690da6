#!/bin/sh
# SPDX-License-Identifier: MIT
# A dynamic program that reads and writes with raw system calls: the shim
# loads but sees nothing, nor can run tell.  --via outside and --via both
# make the watcher act: the copy is exact and both files stay within the
# budget; with both, the shim's presence changes nothing.  The program's
# descriptor limit is its own, and one that exits at once gets no message.
. "$(dirname "$0")/harness.sh"
P=$OUTSIDE_PROG

mkfile "$dir/src" 256
for via in outside both; do
	rm -f "$dir/dst"
	"$PAGECLIFF" run --via $via --stats="$dir/stats.$via" -- "$P" copy "$dir/src" "$dir/dst" \
		>/dev/null 2>"$dir/err" || fail "--via $via: copy failed: $(cat "$dir/err")"
	at_most "$dir/src"
	at_most "$dir/dst"
	cmp -s "$dir/src" "$dir/dst" || fail "--via $via: the copy differs"
	grep -q "^pagecliff: run via the .*watcher" "$dir/stats.$via" ||
		fail "--via $via: no line saying which way: $(cat "$dir/stats.$via")"
	grep -q "^pagecliff: $dir/src: .* mode dropbehind (outside" "$dir/stats.$via" ||
		fail "--via $via: no reader line: $(cat "$dir/stats.$via")"
	"$SHIM_PAGESTAT" evict "$dir/src"
done
# The program's own limits: the watcher raises its descriptor limit, not CMD's.
n=$( (ulimit -Sn 1024 && "$PAGECLIFF" run --via outside -- sh -c 'ulimit -Sn') )
[ "$n" = 1024 ] || fail "CMD's soft RLIMIT_NOFILE changed: $n"
"$PAGECLIFF" run --via outside -- true 2>"$dir/err" && [ ! -s "$dir/err" ] ||
	fail "a program that exits at once: $(cat "$dir/err")"
"$PAGECLIFF" run --via bogus -- true 2>/dev/null; [ $? -eq 2 ] || fail "bad --via: not 2"
echo "PASS: raw-syscall copy under --via outside and both (cached after:$report)"
