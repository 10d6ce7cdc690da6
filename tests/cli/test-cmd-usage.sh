#!/bin/sh
# SPDX-License-Identifier: MIT
# The command table (engine/cmd.c): every command answers -h, --help and
# `pagecliff help CMD` with the same text on stdout and exit 0, and refuses
# an unknown option, a missing or unwanted value and a wrong operand count
# with exactly one line on stderr and exit 2, worded the same for all.  The
# mode names in messages are the library's, and --help lists each of them.
set -u
pc=${PAGECLIFF:?PAGECLIFF is not set}
. "$(dirname "$0")/../harness.sh"
make_tmpdir tmp
n=0

# refused WANT ARGS...: exit 2, nothing on stdout, stderr exactly WANT
refused() { refused_with 2 "$@"; }
# refused_with RC WANT ARGS...: the same with exit RC
refused_with() {
	want_rc=$1 want=$2; shift 2
	n=$((n + 1))
	(cd "$tmp" && "$pc" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null)
	rc=$?
	[ $rc = "$want_rc" ] || fail "pagecliff $*: exit $rc, want $want_rc ($(cat "$tmp/err"))"
	[ ! -s "$tmp/out" ] || fail "pagecliff $*: wrote to stdout: $(head -c 200 "$tmp/out")"
	[ "$(cat "$tmp/err")" = "$want" ] ||
		fail "pagecliff $*: said '$(cat "$tmp/err")', want '$want'"
}

for c in bench cat cp doctor watch run; do
	"$pc" "$c" --help >"$tmp/long" 2>"$tmp/err" || fail "$c --help: exit $?"
	"$pc" "$c" -h >"$tmp/short" 2>>"$tmp/err" || fail "$c -h: exit $?"
	"$pc" help "$c" >"$tmp/help" 2>>"$tmp/err" || fail "help $c: exit $?"
	[ ! -s "$tmp/err" ] || fail "$c --help wrote to stderr: $(cat "$tmp/err")"
	cmp -s "$tmp/long" "$tmp/short" || fail "$c: -h and --help differ"
	cmp -s "$tmp/long" "$tmp/help" || fail "$c: 'help $c' and --help differ"
	head -n 1 "$tmp/long" | grep -q "^usage: pagecliff $c " || fail "$c --help: $(head -n 1 "$tmp/long")"
	tail -n 1 "$tmp/long" | grep -q . || fail "$c --help ends in an empty line"
	grep -q '^  -h, --help  *this text$' "$tmp/long" || fail "$c --help does not list -h, --help"
	# every listed option is known to the parser: refused for its value or
	# for the operand after it (so that nothing runs), never for its name
	extra=; case $c in bench|doctor|watch) extra=extra-operand;; esac
	for opt in $(grep -o '^ *\(-[a-zA-Z], \)*--[a-z_-]*' "$tmp/long" | sed 's/.*--/--/'); do
		[ "$opt" = --help ] && continue
		(cd "$tmp" && "$pc" "$c" "$opt=x" $extra </dev/null >/dev/null 2>"$tmp/err")
		rc=$?
		[ $rc -ne 0 ] && ! grep -q "unknown option" "$tmp/err" ||
			fail "$c: listed $opt: exit $rc: $(cat "$tmp/err")"
	done
	n=$((n + 1))

	see="see 'pagecliff $c --help'"
	refused "pagecliff: unknown option '--bogus'; $see" "$c" --bogus
	refused "pagecliff: unknown option '--bogus'; $see" "$c" --bogus=1
	refused "pagecliff: unknown option '-Z'; $see" "$c" -Z
	refused "pagecliff: option '--help' takes no value; $see" "$c" --help=1
done

refused "pagecliff: option '--mode' needs a value; see 'pagecliff cat --help'" cat --mode
refused "pagecliff: option '-b' needs a value; see 'pagecliff cat --help'" cat -b
refused "pagecliff: option '-m' needs a value; see 'pagecliff cp --help'" cp -r -m
refused "pagecliff: option '--stats' takes no value; see 'pagecliff cat --help'" cat --stats=1
refused "pagecliff: option '--interval' needs a value; see 'pagecliff watch --help'" watch --interval
refused "pagecliff: option '--sample-ms' needs a value; see 'pagecliff doctor --help'" doctor --sample-ms
refused "pagecliff: option '--size' needs a value; see 'pagecliff bench --help'" bench --size
# -Z inside a group is named, not the word before it
refused "pagecliff: unknown option '-Z'; see 'pagecliff bench --help'" bench --quiet -Zq
refused "pagecliff: unexpected argument 'x'; see 'pagecliff watch --help'" watch x
refused "pagecliff: unexpected argument 'x'; see 'pagecliff doctor --help'" doctor --json x
refused "pagecliff: unexpected argument 'x'; directories go in --directory" bench x
# cp's missing operands exit 1, as cp(1)'s do
refused_with 1 "pagecliff: missing file operand; see 'pagecliff cp --help'" cp
refused_with 1 "pagecliff: missing file operand; see 'pagecliff cp --help'" cp -R
refused_with 1 "pagecliff: missing destination file operand after 'one'" cp one
refused "pagecliff: no command to run; see 'pagecliff run --help'" run --mode off
refused "pagecliff: unknown command 'nope'; see 'pagecliff --help'" nope
refused "pagecliff: unknown command 'nope'; see 'pagecliff --help'" help nope
refused "pagecliff: unexpected argument 'x'; see 'pagecliff --help'" help cat x

# run's options end at CMD: CMD's own options are not run's
"$pc" run --mode off -- sh -c 'exit 7' --bogus; rc=$?
[ $rc = 7 ] || fail "run: CMD's options were parsed as run's (exit $rc)"
"$pc" run --mode off sh -c 'exit 8' -Z; rc=$?
[ $rc = 8 ] || fail "run without --: CMD's options were parsed as run's (exit $rc)"
# cp's -R is -r
mkdir -p "$tmp/src/sub" && echo data >"$tmp/src/sub/f"
"$pc" cp -R "$tmp/src" "$tmp/dst" || fail "cp -R: exit $?"
[ "$(cat "$tmp/dst/sub/f")" = data ] || fail "cp -R did not copy the tree"
n=$((n + 2))

# The library's mode names, in its order: the same in cat's, cp's and bench's
# messages; run's are the shim's (auto, dontcache, dropbehind, direct) and off.
names="auto, buffered, dontcache, dropbehind, direct"
refused "pagecliff: unknown mode 'fast' (auto, buffered, dontcache, dropbehind, direct)" cat --mode fast
refused "pagecliff: unknown mode 'fast' (auto, buffered, dontcache, dropbehind, direct)" cp -m fast a b
refused "pagecliff: unknown mode 'fast' in --mode (auto, buffered, dontcache, dropbehind, direct)" \
	bench --mode buffered,fast
refused "pagecliff: unknown mode 'buffered' (auto, dontcache, dropbehind, direct, off)" run --mode buffered true
for c in cat cp bench; do
	"$pc" "$c" --help >"$tmp/long"
	for m in $(echo "$names" | tr -d ,); do
		grep -q -w "$m" "$tmp/long" || fail "$c --help does not name mode $m"
	done
done
# --list-modes: the same names, one a line, for the scripts that loop over
# them; doctor, without --mode, has none
for c in cat cp bench run; do
	"$pc" "$c" --list-modes >"$tmp/list" 2>"$tmp/err" || fail "$c --list-modes: exit $?"
	[ ! -s "$tmp/err" ] || fail "$c --list-modes wrote to stderr: $(cat "$tmp/err")"
	want=$names; [ "$c" = run ] && want="auto, dontcache, dropbehind, direct, off"
	[ "$(paste -s -d, "$tmp/list" | sed 's/,/, /g')" = "$want" ] ||
		fail "$c --list-modes: $(paste -s -d' ' "$tmp/list"), want $want"
done
refused "pagecliff: unknown option '--list-modes'; see 'pagecliff doctor --help'" \
	doctor --list-modes
for m in $("$pc" run --list-modes); do
	"$pc" run --help | grep -q -w "$m" || fail "run --help does not name mode $m"
	"$pc" run --mode "$m" -- true || fail "run --mode $m: exit $?"
done
n=$((n + 1))
echo "PASS: $n checks of help, bad options, operands and mode names"
