#!/bin/sh
# SPDX-License-Identifier: MIT
# attach's operands (cli/cmd-attach.c): a pid is decimal digits, 1 to
# pid_max - 1; anything else (a word, 0, a sign, a blank, too large) is a
# bad command line: one line naming the operand, exit 2.  A process with
# nothing to follow is refused in one line, exit 1, as the other refusals
# are: a kernel thread (kthreadd, kswapd), a zombie, attach itself.  Before
# this, the bad operands exited 1, +5 and ' 5' were taken, and the others
# were followed without a word (or, itself, ended at once with exit 0).
set -u
pc=${PAGECLIFF:?PAGECLIFF is not set}
. "$(dirname "$0")/../harness.sh"
make_tmpdir tmp
n=0

# said RC WANT ARGS...: `pagecliff attach --for 2s ARGS` exits RC with
# nothing on stdout and exactly the line WANT on stderr
said() {
	rc=$1 want=$2
	shift 2
	n=$((n + 1))
	timeout 20 "$pc" attach --for 2s "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	[ $got = "$rc" ] || fail "attach $*: exit $got, want $rc ($(cat "$tmp/err"))"
	[ ! -s "$tmp/out" ] || fail "attach $*: wrote to stdout: $(head -c 200 "$tmp/out")"
	[ "$(cat "$tmp/err")" = "$want" ] || fail "attach $*: said '$(cat "$tmp/err")', want '$want'"
}

max=$(($(cat /proc/sys/kernel/pid_max) - 1))
for bad in abc 0 00 +5 " 5" "5 " "" 12x 0x10 1e3 "5 6" "$((max + 1))" 99999999999999999999; do
	said 2 "pagecliff: bad process id '$bad': a number from 1 to $max" "$bad"
done
# a bad one among good ones: refused before anything is followed
said 2 "pagecliff: bad process id '+1': a number from 1 to $max" $$ +1

# kernel threads: kthreadd (pid 2 where this pid namespace is the host's)
# and any other that /proc shows with PF_KTHREAD
kthreads=
for f in /proc/[0-9]*/stat; do
	flags=$(sed 's/.*) //' "$f" 2>/dev/null | cut -d' ' -f7) || continue
	[ -n "$flags" ] && [ $((flags & 0x200000)) != 0 ] && kthreads="$kthreads ${f#/proc/}"
done
kthreads=$(echo $kthreads | tr ' ' '\n' | sed 's|/stat||' | sort -n | head -n 3)
[ -n "$kthreads" ] || skip "no kernel thread in this pid namespace"
for k in $kthreads; do
	said 1 "pagecliff: error: cannot attach to process $k: it is a kernel thread: it has no files to follow" "$k"
done

# a zombie: a child whose parent never reaps it (perl does not reap unless
# asked; a shell may reap a background child before it execs)
perl -e 'my $p = fork() // die "fork: $!"; exit 0 unless $p;
	open(my $f, ">", "$ARGV[0].new") or die; print $f "$p\n"; close $f;
	rename("$ARGV[0].new", $ARGV[0]) or die; sleep 30' "$tmp/zpid" &
parent=$!
at_exit "kill $parent 2>/dev/null"
z=
for _ in $(seq 400); do
	z=$(cat "$tmp/zpid" 2>/dev/null)
	[ -n "$z" ] && [ "$(cut -d' ' -f3 "/proc/$z/stat" 2>/dev/null)" = Z ] && break
	z=
	sleep 0.05
done
[ -n "$z" ] || fail "no zombie to attach to"
said 1 "pagecliff: error: cannot attach to process $z: it is a zombie (it has exited, its parent has not reaped it): it has no files to follow" "$z"

# itself: the shell's pid becomes pagecliff's at exec
n=$((n + 1))
sh -c 'exec "$1" attach --for 2s $$' sh "$pc" >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
self=$(sed -n "s/^pagecliff: error: cannot attach to process \([0-9]*\): it is this pagecliff attach itself$/\1/p" "$tmp/err")
[ $rc = 1 ] && [ -n "$self" ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] ||
	fail "attach to itself: exit $rc, said '$(cat "$tmp/err")'"

echo "PASS: $n operands and refusals of attach"
