#!/bin/bash
# SPDX-License-Identifier: MIT
# pagecliff cat under valgrind memcheck, every mode, both APIs, with a read
# error in the middle too (a file truncated under it is not needed: the
# library's own error paths run on a directory and a missing file): no
# invalid access, no uninitialised use, no leak.
set -u
pc=${PAGECLIFF:?}
command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed"; exit 77; }
if grep -qa -e __asan_init -e __tsan_init "$pc"; then
	echo "SKIP: this build uses a sanitizer, whose runtime valgrind cannot run"
	exit 77
fi
. "$(dirname "$0")/../harness.sh"
make_tmpdir dir
head -c 5242883 /dev/urandom >"$dir/f"

vg() {
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		"$pc" "$@" 2>"$dir/vg.err"
}
modes=$("$pc" cat --list-modes) && [ -n "$modes" ] || fail "cat --list-modes: exit $?"
for m in $modes; do
	for api in "" --copy; do
		vg cat --mode $m $api "$dir/f" | cmp -s - "$dir/f" ||
			{ echo "FAIL: $m $api: output differs: $(cat "$dir/vg.err")"; exit 1; }
		[ "${PIPESTATUS[0]}" = 0 ] || { echo "FAIL: $m $api: $(cat "$dir/vg.err")"; exit 1; }
	done
done
vg cat "$dir/missing" "$dir" "$dir/f" >/dev/null
rc=$?
[ $rc = 1 ] || { echo "FAIL: error paths: exit $rc: $(cat "$dir/vg.err")"; exit 1; }
echo "cat clean under memcheck in every mode and API, and on its error paths"
