#!/bin/sh
# SPDX-License-Identifier: MIT
# A whole file copied in ONE system call, with `pagecliff attach` half-way
# through it (issue 31): WAY is cat (coreutils `cat a > b`: one
# copy_file_range), sendfile or cfr (outside-prog: one sendfile(2), one
# copy_file_range(2)), or go (io.Copy in a Go program: copy_file_range
# from the runtime).  The descriptors' positions move only when the call
# returns, so only the kernel's page-cache events say what the copier
# added.  Reads are held to 24 MiB/s (a blkio throttle on a loop device of
# the test's own: the 256 MiB call lasts 11 s) and attach starts once 48
# MiB of the source are cached.  The copier's exit status and its copy are
# exact; the source and the copy each keep at most the budget cached after,
# the part read before attach included (the copier's own pages, not pages
# cached before); --stats has a line of the kernel view for each, of the
# copier's pid.  (The issue measured 1-2 GiB files; 256 MiB here.)
. "$(dirname "$0")/kview-harness.sh"
way=${1:?WAY: cat, sendfile, cfr or go}
want_rc=0
case $way in
cat)
	v=$(cat --version 2>/dev/null | sed -n '1s/^cat (GNU coreutils) \([0-9]*\).*/\1/p')
	[ -n "$v" ] && [ "$v" -ge 9 ] || skip "cat is not GNU cat 9 or later (one copy_file_range)" ;;
sendfile | cfr) ;;
go)
	command -v go >/dev/null || skip "no go (setup.sh test packages: golang-go)"
	: "${OUTSIDE_SRCDIR:?}"
	export GOCACHE="${TMPDIR:-/var/tmp}/pagecliff-gocache-$(id -u)" GOFLAGS=-mod=mod GO111MODULE=off HOME="$dir"
	go build -o "$dir/gocopy" "$OUTSIDE_SRCDIR/gocopy/main.go" 2>"$dir/err" ||
		fail "go build: $(cat "$dir/err")"
	want_rc=3 ;;
*) fail "unknown WAY $way" ;;
esac
slowfs "$dir/fs"
src=$dir/fs/src dst=$dir/fs/dst
mkfile "$src" 256
slow 24
case $way in
cat) cat "$src" > "$dst" 2>"$dir/out" & ;;
sendfile | cfr) "$P" "$way" "$src" "$dst" > "$dir/out" 2>&1 & ;;
go) "$dir/gocopy" "$src" "$dst" > "$dir/out" 2>&1 & ;;
esac
pid=$!
bg=$pid
half_way $pid "$src" 48
before=$(cached "$src")
"$PAGECLIFF" attach --stats="$dir/stats" $pid 2>"$dir/err"
rc=$?
wait $pid
prc=$?
bg=
slow 0
[ $prc -eq $want_rc ] || fail "$way exited $prc, not $want_rc: $(cat "$dir/out")"
[ $rc -eq 0 ] || fail "attach exited $rc: $(cat "$dir/err")"
case $way in
sendfile | cfr) grep -q "^$src: $((256 * MIB)) bytes in " "$dir/out" ;;
go) [ "$(cat "$dir/out")" = $((256 * MIB)) ] ;;
esac || fail "$way said: $(cat "$dir/out")"
at_most "$src"
at_most "$dst"
cmp -s "$src" "$dst" || fail "the copy differs"
kstats "$src" 32 $pid
kstats_any "$dst" 32 $pid
echo "PASS: $way, attached with $((before / MIB)) MiB of the source cached: copy exact (cached after:$report)"
