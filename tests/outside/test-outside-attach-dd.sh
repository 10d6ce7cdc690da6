#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff attach` to two dd already half-way: one reads a file into a
# pipe, one writes a file from a pipe, paced in between.  attach ends when
# they exit; the copy is exact, every exit status 0.  The source's first 64
# MiB (and the readahead past them) were cached before dd started: they stay.  What dd itself read before
# attach (counted by its read_bytes) is dropped, as is what it reads after;
# the writer made its file, so all it wrote is dropped.
. "$(dirname "$0")/harness.sh"
mkfile "$dir/src" 384
WARM=$((64 * MIB))
warm "$dir/src" 0 $WARM head -c $WARM "$dir/src" >/dev/null
[ "$(cached "$dir/src" 0 $WARM)" -eq $WARM ] || skip "the source's first 64 MiB would not stay cached"
WARM=$(cached "$dir/src")	# with head's readahead: a prefix
mkfifo "$dir/f1" "$dir/f2" || fail "mkfifo"
dd if="$dir/src" of="$dir/f1" bs=1M status=none & rd=$!
"$OUTSIDE_PROG" copy "$dir/f1" "$dir/f2" 192 >/dev/null & mid=$!
dd if="$dir/f2" of="$dir/dst" bs=1M status=none & wr=$!
bg="$rd $mid $wr"
i=0
while [ "$(pos_of $rd 0)" -lt $((192 * MIB)) ]; do
	i=$((i + 1)); [ $i -lt 2000 ] || fail "dd did not get half-way"
	sleep 0.01
done
p=$(pos_of $rd 0)
p=$((p / 4096 * 4096))
c=$(cached "$dir/src" 0 $WARM)
own=$(cached "$dir/src" $WARM $((p - WARM)))
"$PAGECLIFF" attach --stats="$dir/stats" $rd $wr 2>"$dir/err" & at=$!
bg="$bg $at"
wait $rd || fail "reading dd failed"
wait $mid || fail "the pacer failed"
wait $wr || fail "writing dd failed"
wait $at; rc=$?
[ $rc -eq 0 ] || fail "attach exited $rc: $(cat "$dir/err")"
[ ! -s "$dir/err" ] || fail "attach said: $(cat "$dir/err")"
kept=$(cached "$dir/src" 0 $WARM)
[ "$kept" -eq "$c" ] || fail "of the $((c / MIB)) MiB cached before dd started $((kept / MIB)) MiB are left"
left=$(cached "$dir/src" $WARM $((p - WARM)))
[ "$left" -le $((4 * MIB)) ] ||
	fail "of the $((own / MIB)) MiB dd read before attach $((left / MIB)) MiB stay cached"
after=$(cached "$dir/src" $p $((384 * MIB - p)))
[ "$after" -le "$LIMIT" ] || fail "$((after / MIB)) MiB read after attach stay cached (at most $((LIMIT / MIB)))"
at_most "$dir/dst"
cmp -s "$dir/src" "$dir/dst" || fail "the copy differs"
grep -q "^pagecliff: $dir/src: .* mode dropbehind (outside, pid $rd)" "$dir/stats" || fail "stats: $(cat "$dir/stats")"
grep -q "^pagecliff: $dir/dst: .* mode writebehind (outside, pid $wr)" "$dir/stats" || fail "stats: $(cat "$dir/stats")"
echo "PASS: attach half-way (src: $((c / MIB)) MiB cached before dd kept, $((left / MIB)) of the $((own / MIB)) MiB dd read before attach and $((after / MIB)) MiB of what followed left; cached after:$report)"
