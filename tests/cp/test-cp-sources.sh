#!/bin/bash
# SPDX-License-Identifier: MIT
# Without -r, cp reads a source that is not a regular file as cp(1) does: a
# FIFO, /dev/stdin (a pipe and a redirected file) and, as root, a block
# device give their bytes, exit 0.  With -r a FIFO is still refused (named,
# exit 1), as pagecliff-cp(1) documents.
set -u
. "$(dirname "$0")/harness.sh"
make_tmpdir dir
cd "$dir" || exit 1
head -c 3000001 /dev/urandom >data

mkfifo fifo
for m in auto direct; do
	timeout 20 sh -c "cat data >fifo" &
	timeout 20 "$pc" cp --mode $m fifo from-fifo.$m 2>err || fail "$m: FIFO source: exit $? '$(cat err)'"
	wait
	same data from-fifo.$m "$m: FIFO source"
done
cat data | "$pc" cp /dev/stdin from-pipe 2>err || fail "/dev/stdin, a pipe: exit $? '$(cat err)'"
same data from-pipe "/dev/stdin, a pipe"
"$pc" cp /dev/stdin from-file <data 2>err || fail "/dev/stdin, a file: exit $? '$(cat err)'"
same data from-file "/dev/stdin, a file"

if [ "$(id -u)" = 0 ]; then
	head -c 4M /dev/urandom >img
	loop_attach loop img
	"$pc" cp "$loop" from-dev 2>err || fail "block device source: exit $? '$(cat err)'"
	same img from-dev "block device source"
fi

# -r copies trees; special files in them are refused, as documented.
"$pc" cp -r fifo fifo-r 2>err; rc=$?
[ $rc = 1 ] && grep -q "'fifo' is not a regular file, directory or symbolic link; not copied" err &&
	[ ! -e fifo-r ] || fail "-r FIFO: exit $rc '$(cat err)'"
echo "cp reads FIFOs, /dev/stdin and block devices without -r, as cp(1)"
