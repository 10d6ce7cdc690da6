#!/bin/sh
# SPDX-License-Identifier: MIT
# A pool of four threads reading a 256 MiB file with preadv(2), 1 MiB
# chunks taken in turn (a backup tool's, an image converter's), under run
# --via outside: no descriptor's position ever moves, only the kernel's
# page-cache events show the stream (issue 31).  The pool reads every
# byte (its sum is the file's), exits 0, the file keeps at most the budget
# cached after, and --stats has a line of the kernel view for it.
. "$(dirname "$0")/kview-harness.sh"
mkfile "$dir/a" 256
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- "$P" preadv-pool "$dir/a" 4 \
	>"$dir/out" 2>"$dir/err" || fail "the pool failed: $(cat "$dir/err")"
at_most "$dir/a"
kstats "$dir/a" 128
[ "$(cat "$dir/out")" = "$("$P" sum "$dir/a")" ] ||
	fail "the pool read other bytes: $(cat "$dir/out"), the file: $("$P" sum "$dir/a")"
echo "PASS: a preadv pool of 4 (cached after:$report; kernel view: $((kadded / MIB)) MiB added, $((kdropped / MIB)) dropped)"
