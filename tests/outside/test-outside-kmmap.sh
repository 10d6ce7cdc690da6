#!/bin/sh
# SPDX-License-Identifier: MIT
# A reader through a mapping (issue 31: git's packs, numpy memmap, LMDB;
# said in --stats, not acted on): a 256 MiB file mapped whole, WAY shared
# (read-only) or private (read-write, copy-on-write, only read), its
# descriptor closed at once, the mapping touched in order, under run --via
# outside.  The reader sees every byte (its sum is the file's), exits 0,
# the file keeps at most the budget cached after, and --stats has a line
# of the kernel view for it.
. "$(dirname "$0")/kview-harness.sh"
how=${1:?WAY: shared or private}
mkfile "$dir/a" 256
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- "$P" mmap "$dir/a" "$how" \
	>"$dir/out" 2>"$dir/err" || fail "the reader failed: $(cat "$dir/err")"
at_most "$dir/a"
kstats "$dir/a" 128
[ "$(cat "$dir/out")" = "$("$P" sum "$dir/a")" ] ||
	fail "the mapping held other bytes: $(cat "$dir/out"), the file: $("$P" sum "$dir/a")"
echo "PASS: a MAP_$(echo "$how" | tr a-z A-Z) reader (cached after:$report; kernel view: $((kadded / MIB)) MiB added, $((kdropped / MIB)) dropped)"
