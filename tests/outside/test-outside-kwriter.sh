#!/bin/sh
# SPDX-License-Identifier: MIT
# A fast writer under run --via outside (issue 31: a static Go copy peaked
# at 152 MiB of its output cached, busybox cp at 75-139 MiB, the budget
# being 64): 256 MiB in 1 MiB write(2) calls at 128 MiB/s, its file's
# residency sampled every 20 ms while it runs (outside-peak).  Paced: a
# writer faster than its device fills the cache with dirty pages no one
# can drop before they are written, and how far it gets then depends on
# the watcher's share of the CPUs (a test must hold on a loaded machine);
# bench/outside.sh (pwrite) measures the unpaced peak.  It exits 0, the file holds its bytes (sha256 of the
# pattern), the file never held more than the budget and a batch cached
# while it ran nor after, and --stats has a measured line for it (the kernel
# view's, or the position writer's that owned it).
. "$(dirname "$0")/kview-harness.sh"
w=$dir/w
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- "$P" write "$w" 256 128 2>"$dir/err" & run=$!
bg=$run
peak_of $run "$w"
wait $run || fail "the writer failed: $(cat "$dir/err")"
bg=
p=$(peak "$w")
[ -n "$p" ] || fail "no peak: $(cat "$dir/peak")"
[ "$p" -le "$LIMIT" ] ||
	fail "$w: $((p / MIB)) MiB cached at the peak while the writer ran (at most $((LIMIT / MIB))): $(cat "$dir/peak")"
at_most "$w"
kstats_any "$w" 128
[ "$(sha256sum < "$w")" = "$("$P" write /dev/stdout 256 2>/dev/null | sha256sum)" ] ||
	fail "the file holds other bytes"
echo "PASS: a writer at 128 MiB/s peaked at $((p / MIB)) MiB ($(sed 's/.*, //' "$dir/peak")) (cached after:$report)"
