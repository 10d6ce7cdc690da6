#!/bin/bash
# SPDX-License-Identifier: MIT
# pagecliff cat behaves as cat(1) where a shell puts it: it refuses to read
# the file it writes to (cat f >> f would grow f without end), leaves a
# seekable stdin's offset at the end of what it read, fails on a closed or
# failing stdout once, naming the output, and quotes odd file names in its
# messages so that one message stays one line.
set -u
pc=${PAGECLIFF:?}
. "$(dirname "$0")/../harness.sh"
make_tmpdir dir
cd "$dir" || exit 1

# 1. input file is output file: refused, the next file still written, rc 1
printf 'hello' >f
printf 'tiny' >g
timeout 20 "$pc" cat f g >>f 2>err
rc=$?
[ $rc = 1 ] || fail "cat f g >> f: exit $rc, want 1"
[ "$(cat f)" = hellotiny ] || fail "cat f g >> f: f is $(stat -c %s f) bytes, want 'hellotiny'"
[ "$(cat err)" = "pagecliff: error: 'f': input file is output file" ] ||
	fail "cat f >> f: message '$(cat err)'"
printf 'hello' >f
timeout 20 "$pc" cat - <f >>f 2>err
rc=$?
[ $rc = 1 ] && [ "$(cat f)" = hello ] &&
	[ "$(cat err)" = "pagecliff: error: standard input: input file is output file" ] ||
	fail "cat - < f >> f: exit $rc, f '$(cat f)', message '$(cat err)'"
timeout 20 "$pc" cat f 1<>f 2>err
rc=$?
[ $rc = 1 ] && [ "$(cat f)" = hello ] || fail "cat f 1<>f: exit $rc, f '$(cat f)'"
# an output truncated first (cat f > f) is empty: nothing to loop on, as cat(1)
"$pc" cat f >f 2>err
rc=$?
[ $rc = 0 ] && [ ! -s f ] && [ ! -s err ] || fail "cat f > f: exit $rc, '$(cat err)'"

# 2. a seekable stdin is left at the end of what was read
head -c 300000 /dev/urandom >big
modes=$("$pc" cat --list-modes) && [ -n "$modes" ] || fail "cat --list-modes: exit $?"
for m in $modes; do
	out=$({ "$pc" cat --mode $m >/dev/null; cat; } <big | wc -c)
	[ "$out" = 0 ] || fail "$m: { pagecliff cat; cat; } < big: cat read $out bytes again"
	out=$("$pc" cat --mode $m - - <big | wc -c)
	[ "$out" = 300000 ] || fail "$m: pagecliff cat - - < big wrote $out bytes, want 300000"
done
printf 'hello' >f
out=$({ read -r -N 2 _; "$pc" cat; printf '|'; cat; } <f)
[ "$out" = 'llo|' ] || fail "read 2 bytes, pagecliff cat, cat: '$out', want 'llo|'"

# 3. a closed stdout: one line naming it, rc 1, even for an empty file
: >empty
"$pc" cat empty >&- 2>err
rc=$?
[ $rc = 1 ] || fail "cat empty >&-: exit $rc, want 1"
[ "$(cat err)" = "pagecliff: fatal: cannot write standard output: Bad file descriptor" ] ||
	fail "cat empty >&-: message '$(cat err)'"
# a failing stdout: reported once, naming the output, not the input; stop there
"$pc" cat big big empty >/dev/full 2>err
rc=$?
[ $rc = 1 ] || fail "cat > /dev/full: exit $rc, want 1"
[ "$(cat err)" = "pagecliff: error: cannot write standard output: No space left on device" ] ||
	fail "cat > /dev/full: message '$(cat err)'"
"$pc" cat empty >/dev/full 2>err
rc=$?
[ $rc = 0 ] && [ ! -s err ] || fail "cat empty > /dev/full: exit $rc, '$(cat err)' (cat(1): 0)"

# 4. odd names are quoted as GNU tools quote them: one message, one line
"$pc" cat $'a\nb' $'x\001y' "it's" g >out 2>err
rc=$?
[ $rc = 1 ] && [ "$(cat out)" = tiny ] || fail "odd names: exit $rc, out '$(cat out)'"
want="pagecliff: error: cannot open 'a'\$'\\n''b': No such file or directory
pagecliff: error: cannot open 'x'\$'\\001''y': No such file or directory
pagecliff: error: cannot open 'it'\\''s': No such file or directory"
[ "$(cat err)" = "$want" ] || fail "odd names: messages
$(cat err)
want
$want"
# 5. --stats on a pipe: no page cache to count, said so, not 0
printf 'tiny' | "$pc" cat --stats --mode buffered >out 2>err
grep -q "strategy buffered (not a regular file: plain read(2)), page cache unknown (unknown cached before, unknown after), 0 pages dropped" err ||
	fail "stats on a pipe: '$(cat err)'"
echo "cat refuses its own output, advances stdin, reports the output once, quotes names"
