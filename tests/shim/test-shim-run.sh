#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff run`: exit status passed through, 127 for a missing command,
# 2 for bad options, LD_PRELOAD appended to (not replacing) the caller's,
# the environment settings, --stats to a file, and static programs simply
# run unaffected.
set -u
: "${PAGECLIFF:?}"
fail() { echo "FAIL: $*"; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/pagecliff-shimtest-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

"$PAGECLIFF" run -- sh -c 'exit 42'; [ $? -eq 42 ] || fail "exit status not passed through"
"$PAGECLIFF" run -- sh -c 'kill -TERM $$' 2>/dev/null; [ $? -eq 143 ] || fail "signal death not passed through"
"$PAGECLIFF" run -- /nonexistent/cmd 2>"$dir/err"; [ $? -eq 127 ] || fail "missing command: not 127"
grep -q "cannot run '/nonexistent/cmd'" "$dir/err" || fail "no clear message for a missing command"
"$PAGECLIFF" run --mode bogus -- true 2>/dev/null; [ $? -eq 2 ] || fail "bad --mode: not 2"
"$PAGECLIFF" run --min-size 12q -- true 2>/dev/null; [ $? -eq 2 ] || fail "bad --min-size: not 2"
"$PAGECLIFF" run 2>/dev/null; [ $? -eq 2 ] || fail "no command: not 2"
"$PAGECLIFF" run --help | grep -q -- "--min-size" || fail "--help does not list --min-size"

# (verify_asan_link_order: pagecliff itself may be an ASan build.)
env=$(ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD=libc.so.6 "$PAGECLIFF" run --mode dropbehind --min-size 1m -- env)
echo "$env" | grep -q '^LD_PRELOAD=libc.so.6:/.*libpagecliff-preload.so$' ||
	fail "LD_PRELOAD not appended: $(echo "$env" | grep LD_PRELOAD)"
echo "$env" | grep -q '^PAGECLIFF_MODE=dropbehind$' || fail "PAGECLIFF_MODE not set"
echo "$env" | grep -q '^PAGECLIFF_MIN_SIZE=1048576$' || fail "PAGECLIFF_MIN_SIZE not in bytes"

seq 1 3000000 > "$dir/f"
"$PAGECLIFF" run --min-size 1m --stats="$dir/stats" -- cat "$dir/f" > "$dir/out" ||
	fail "cat under the shim failed"
cmp -s "$dir/f" "$dir/out" || fail "cat's output differs"
grep -q "^pagecliff: $dir/f: $(stat -c %s "$dir/f") bytes read, 1 sequential runs" "$dir/stats" ||
	fail "no stats line: $(cat "$dir/stats")"

# Nothing happens to a bad setting but one line and an unaffected program.
out=$(PAGECLIFF_MODE=bogus LD_PRELOAD=$(echo "$env" | sed -n 's/^LD_PRELOAD=libc.so.6://p') \
	cat "$dir/f" 2>"$dir/err" | wc -c)
[ "$out" -eq "$(stat -c %s "$dir/f")" ] || fail "a bad PAGECLIFF_MODE changed the output"
grep -q "bad PAGECLIFF_MODE 'bogus'" "$dir/err" || fail "no message for a bad PAGECLIFF_MODE"

# Static programs: the loader is not involved, nothing changes.
for s in /sbin/ldconfig /usr/sbin/ldconfig; do
	if [ -x "$s" ] && ! ldd "$s" >/dev/null 2>&1; then
		"$PAGECLIFF" run -- "$s" --version >/dev/null || fail "static $s failed"
		break
	fi
done
echo "PASS: exit status, 127, usage errors, LD_PRELOAD, settings, stats, static programs"
