#!/bin/sh
# SPDX-License-Identifier: MIT
# A writer at disk speed under run --via outside (issue 31: a static Go
# copy peaked at 152 MiB of its output cached, busybox cp at 75-139 MiB,
# the budget being 64): 256 MiB in 1 MiB write(2) calls, as fast as they
# go, its file's residency sampled every 20 ms while it runs
# (outside-peak).  It exits 0, the file holds its bytes (sha256 of the
# pattern), the file never held more than the budget and a batch cached
# while it ran nor after, and --stats has a line of the kernel view for it.
. "$(dirname "$0")/klib.sh"
w=$dir/w
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- "$P" write "$w" 256 2>"$dir/err" & run=$!
bg=$run
peak_of $run "$w"
wait $run || fail "the writer failed: $(cat "$dir/err")"
bg=
p=$(peak "$w")
[ -n "$p" ] || fail "no peak: $(cat "$dir/peak")"
[ "$p" -le "$LIMIT" ] ||
	fail "$w: $((p / MIB)) MiB cached at the peak while the writer ran (at most $((LIMIT / MIB))): $(cat "$dir/peak")"
at_most "$w"
kstats "$w" 128
[ "$(sha256sum < "$w")" = "$("$P" write /dev/stdout 256 2>/dev/null | sha256sum)" ] ||
	fail "the file holds other bytes"
echo "PASS: a writer at disk speed peaked at $((p / MIB)) MiB ($(sed 's/.*, //' "$dir/peak")) (cached after:$report)"
