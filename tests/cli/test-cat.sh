#!/bin/bash
# SPDX-License-Identifier: MIT
# pagecliff cat reproduces files byte for byte in every mode, from files and
# from standard input; a file it cannot open is named, the others are still
# written, and the exit status is 1; bad options exit 2; --stats reports the
# strategy and the page-cache pages added.
set -u
pc=${PAGECLIFF:?}
. "$(dirname "$0")/../harness.sh"
make_tmpdir dir

head -c 10485763 /dev/urandom >"$dir/a"
printf 'tiny' >"$dir/b"
: >"$dir/empty"
modes=$("$pc" cat --list-modes) && [ -n "$modes" ] || fail "cat --list-modes: exit $?"
for m in $modes; do
	for f in a b empty; do
		"$pc" cat --mode $m "$dir/$f" | cmp -s - "$dir/$f" || fail "$m: $f differs"
		"$pc" cat --copy --bs 4k --mode $m "$dir/$f" | cmp -s - "$dir/$f" ||
			fail "$m --copy --bs 4k: $f differs"
	done
	"$pc" cat --mode $m <"$dir/a" | cmp -s - "$dir/a" || fail "$m: stdin file differs"
	cat "$dir/a" | "$pc" cat --mode $m - | cmp -s - "$dir/a" || fail "$m: stdin pipe differs"
done
cat "$dir/a" "$dir/b" >"$dir/ab"
"$pc" cat "$dir/a" "$dir/b" | cmp -s - "$dir/ab" || fail "two files not concatenated"

# A missing file: named, the next file still written, exit 1.
out=$("$pc" cat "$dir/missing" "$dir/b" 2>"$dir/err")
rc=$?
[ $rc = 1 ] || fail "missing file: exit $rc, want 1"
[ "$out" = tiny ] || fail "missing file: the next file was not written ('$out')"
grep -q "cannot open '$dir/missing': No such file or directory" "$dir/err" ||
	fail "missing file: message was '$(cat "$dir/err")'"
"$pc" cat "$dir" >/dev/null 2>"$dir/err"
[ $? = 1 ] && grep -q "Is a directory" "$dir/err" || fail "directory: '$(cat "$dir/err")'"

# Bad options: one line, exit 2.
"$pc" cat --mode fast "$dir/b" >/dev/null 2>"$dir/err"
[ $? = 2 ] && [ "$(wc -l <"$dir/err")" = 1 ] && grep -q "unknown mode 'fast'" "$dir/err" ||
	fail "bad mode: '$(cat "$dir/err")'"
"$pc" cat --bs 0 "$dir/b" >/dev/null 2>"$dir/err"
[ $? = 2 ] && grep -q "bad --bs '0'" "$dir/err" || fail "bad bs: '$(cat "$dir/err")'"

# --stats: dontcache/direct add no pages to the cache on a real file system.
# The file is written back first, so that the drop leaves nothing cached
# (dirty pages stay) that reclaim could take during the run ("-N pages").
if [ "$(stat -f -c %T "$dir")" != tmpfs ]; then
	for m in direct dropbehind; do
		python3 -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.fdatasync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$dir/a"
		"$pc" cat --stats --mode $m "$dir/a" 2>"$dir/err" >/dev/null
		grep -q "10485763 bytes" "$dir/err" || fail "$m stats: '$(cat "$dir/err")'"
		grep -Eq "strategy $m \(requested[;)]" "$dir/err" || fail "$m stats: '$(cat "$dir/err")'"
		grep -q "page cache +0 pages" "$dir/err" || fail "$m left pages: '$(cat "$dir/err")'"
	done
fi
echo "cat exact in every mode; errors named; stats counted"
