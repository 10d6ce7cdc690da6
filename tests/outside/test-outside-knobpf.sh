#!/bin/sh
# SPDX-License-Identifier: MIT
# The watcher with BPF forbidden (PAGECLIFF_NO_BPF=1) falls back to
# following descriptors' positions (issue 31), and --stats says so: a
# line names "positions", no stream's line the kernel view.  A reader whose
# position never moves (pread, 256 MiB) reads every byte and exits 0;
# what stays of its file is reported, not bounded (positions do not show
# it).  A sequential read(2) reader, which positions do show, keeps at most
# the budget of its file cached after, with its --stats line.
. "$(dirname "$0")/kview-harness.sh"
export PAGECLIFF_NO_BPF=1
mkfile "$dir/a" 256
mkfile "$dir/b" 256
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- "$P" pread "$dir/a" 0 \
	>"$dir/out" 2>"$dir/err" || fail "the pread reader failed: $(cat "$dir/err")"
grep -q "^$dir/a: $((256 * MIB)) bytes fd " "$dir/out" || fail "the pread reader said: $(cat "$dir/out")"
grep -q positions "$dir/stats" || fail "--stats does not name positions: $(cat "$dir/stats")"
! grep -q "^pagecliff: $dir/a: .*kernel view" "$dir/stats" ||
	fail "--stats has a line of the kernel view without BPF: $(cat "$dir/stats")"
pa=$(cached "$dir/a")
rm -f "$dir/stats"
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- "$P" read "$dir/b" \
	>"$dir/out" 2>"$dir/err" || fail "the read reader failed: $(cat "$dir/err")"
grep -q "^$dir/b: $((256 * MIB)) bytes fd " "$dir/out" || fail "the read reader said: $(cat "$dir/out")"
grep -q positions "$dir/stats" || fail "--stats does not name positions: $(cat "$dir/stats")"
grep -q "^pagecliff: $dir/b: " "$dir/stats" || fail "no --stats line for $dir/b: $(cat "$dir/stats")"
at_most "$dir/b"
echo "PASS: without BPF, by positions: a sequential reader kept to the budget (cached after:$report), a pread reader left $((pa / MIB)) MiB"
