#!/bin/bash
# SPDX-License-Identifier: MIT
# A file bench did not make, where its data file goes, is refused and left
# byte for byte as it was; bench's own files are reused when they match and
# removed without --keep, while a foreign file beside them stays.
. "$(dirname "$0")/harness.sh"
tmpdir
mkdir "$T/pagecliff-bench"
printf 'precious data, not a bench file\n' >"$T/pagecliff-bench/job0.dat"
touch -d '2020-01-01 00:00' "$T/pagecliff-bench/job0.dat"
sum_before=$(sha256sum <"$T/pagecliff-bench/job0.dat")
mtime_before=$(stat -c %Y "$T/pagecliff-bench/job0.dat")

"$PAGECLIFF" bench -d "$T" --size 1m --mode buffered -q >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] || fail "exit $rc, want 2: $(cat "$T/err")"
grep -q "job0.dat' was not made by pagecliff bench" "$T/err" || fail "message: $(cat "$T/err")"
[ "$(sha256sum <"$T/pagecliff-bench/job0.dat")" = "$sum_before" ] || fail "foreign file changed"
[ "$(stat -c %Y "$T/pagecliff-bench/job0.dat")" = "$mtime_before" ] || fail "foreign file touched"
[ "$(ls "$T/pagecliff-bench")" = "job0.dat" ] || fail "bench created: $(ls "$T/pagecliff-bench")"

# A symlink where a data file goes is foreign too, even to a bench file.
mv "$T/pagecliff-bench/job0.dat" "$T/keep.dat"
ln -s "$T/keep.dat" "$T/pagecliff-bench/job0.dat"
"$PAGECLIFF" bench -d "$T" --size 1m --mode buffered -q >"$T/out" 2>"$T/err"
[ $? -eq 2 ] || fail "symlink accepted: $(cat "$T/err")"
rm "$T/pagecliff-bench/job0.dat"

# Bench's own file: made once with the header, reused the second time.
"$PAGECLIFF" bench -d "$T" --size 1m --mode buffered -q --keep >"$T/out" 2>"$T/err" ||
	fail "first run: $(cat "$T/err")"
grep -q "laying out" "$T/err" || fail "first run did not lay out"
head -c 29 "$T/pagecliff-bench/job0.dat" | grep -q "pagecliff-bench data file v1" || fail "no header"
[ "$(stat -c %s "$T/pagecliff-bench/job0.dat")" = 1048576 ] || fail "size $(stat -c %s "$T/pagecliff-bench/job0.dat")"
zeros=$(tr -d '\0' <"$T/pagecliff-bench/job0.dat" | wc -c)
[ "$zeros" = 1048576 ] || fail "data has $((1048576 - zeros)) zero bytes"
cp "$T/keep.dat" "$T/pagecliff-bench/notes.txt"
"$PAGECLIFF" bench -d "$T" --size 1m --mode buffered -q >"$T/out" 2>"$T/err" ||
	fail "second run: $(cat "$T/err")"
grep -q "laying out" "$T/err" && fail "second run laid out again instead of reusing"
[ ! -e "$T/pagecliff-bench/job0.dat" ] || fail "data file not removed without --keep"
[ "$(sha256sum <"$T/pagecliff-bench/notes.txt")" = "$sum_before" ] || fail "foreign notes.txt changed"
echo "PASS: foreign file refused and untouched; own file made, reused, removed"
