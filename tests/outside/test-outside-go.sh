#!/bin/sh
# SPDX-License-Identifier: MIT
# A Go program (built here with `go build`): it makes its own system calls,
# so run names it and the watcher acts.  io.Copy between files (read/write
# or copy_file_range) copies exactly, the exit status (3) passes through,
# source and destination stay within the budget.
. "$(dirname "$0")/harness.sh"
command -v go >/dev/null || skip "no go (setup.sh test packages: golang-go)"
: "${OUTSIDE_SRCDIR:?}"
export GOCACHE="${TMPDIR:-/var/tmp}/pagecliff-gocache-$(id -u)" GOFLAGS=-mod=mod GO111MODULE=off HOME="$dir"
go build -o "$dir/gocopy" "$OUTSIDE_SRCDIR/gocopy/main.go" 2>"$dir/err" || fail "go build: $(cat "$dir/err")"
mkfile "$dir/src" 256
out=$("$PAGECLIFF" run -- "$dir/gocopy" "$dir/src" "$dir/dst" 2>"$dir/err")
rc=$?
[ $rc -eq 3 ] || fail "exit status $rc, not 3: $(cat "$dir/err")"
[ "$out" = $((256 * MIB)) ] || fail "gocopy said '$out'"
grep -qxF "pagecliff: '$dir/gocopy' is a Go program (it makes its own system calls): the shim cannot act on it, the watcher acts from outside" "$dir/err" ||
	fail "no line: $(cat "$dir/err")"
at_most "$dir/src"
at_most "$dir/dst"
cmp -s "$dir/src" "$dir/dst" || fail "the copy differs"
echo "PASS: Go copy exact (cached after:$report)"
