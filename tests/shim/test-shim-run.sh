#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff run`: exit status passed through, 127 for a missing command,
# 2 for bad options, LD_PRELOAD appended to (not replacing) the caller's,
# the environment settings, --stats to a file, and static programs simply
# run unaffected.
set -u
: "${PAGECLIFF:?}"
. "$(dirname "$0")/../harness.sh"
make_tmpdir dir "${TMPDIR:-/var/tmp}"

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

# Static programs: the loader is not involved, nothing changes but one line
# (--via preload: the shim alone; by default the watcher acts, tests/outside).
for s in /sbin/ldconfig /usr/sbin/ldconfig; do
	if [ -x "$s" ] && ! ldd "$s" >/dev/null 2>&1; then
		"$PAGECLIFF" run --via preload -- "$s" --version >/dev/null 2>"$dir/err" || fail "static $s failed"
		grep -qxF "pagecliff: '$s' is statically linked (no dynamic loader to preload with): the shim cannot act on it" "$dir/err" ||
			fail "static $s: no line saying so: $(cat "$dir/err")"
		break
	fi
done
# A setuid program (owned by someone else): the loader ignores LD_PRELOAD.
cp /bin/true "$dir/suid" && chown nobody "$dir/suid" && chmod 4755 "$dir/suid" ||
	fail "cannot make a setuid copy of true"
"$PAGECLIFF" run --via preload -- "$dir/suid" 2>"$dir/err" || fail "setuid true failed"
grep -qxF "pagecliff: '$dir/suid' is setuid (the loader ignores LD_PRELOAD for it): the shim cannot act on it" "$dir/err" ||
	fail "setuid: no line saying so: $(cat "$dir/err")"
# Through a script's interpreter, and nothing for an ordinary program.
printf '#!%s/suid\n' "$dir" > "$dir/script" && chmod 755 "$dir/script"
"$PAGECLIFF" run -- "$dir/script" 2>"$dir/err"
grep -q "^pagecliff: '$dir/suid' is setuid" "$dir/err" || fail "script: $(cat "$dir/err")"
"$PAGECLIFF" run -- true 2>"$dir/err" && [ ! -s "$dir/err" ] || fail "true: $(cat "$dir/err")"

# An install path with a space or colon would not load: refused, CMD not run.
for d in "a b" "a:b"; do
	mkdir "$dir/$d" && cp "$PAGECLIFF_PRELOAD_SO" "$dir/$d/" || exit 1
	PAGECLIFF_PRELOAD_PATH="$dir/$d/libpagecliff-preload.so" \
		"$PAGECLIFF" run -- touch "$dir/ran" 2>"$dir/err"
	[ $? -eq 1 ] && [ ! -e "$dir/ran" ] || fail "shim path '$d': not refused"
	grep -q "^pagecliff: error: cannot preload '.*': LD_PRELOAD cannot hold a path with a space or colon" "$dir/err" ||
		fail "shim path '$d': $(cat "$dir/err")"
done

# --stats=FILE: refused before running when it cannot be written; a
# relative path is where run started, whatever CMD's working directory.
"$PAGECLIFF" run --stats=/nonexistent-dir/x -- touch "$dir/ran" 2>"$dir/err"
[ $? -eq 1 ] && [ ! -e "$dir/ran" ] || fail "--stats=/nonexistent-dir/x not refused"
grep -q "^pagecliff: error: cannot open stats file '/nonexistent-dir/x': No such file or directory" "$dir/err" ||
	fail "--stats=/nonexistent-dir/x: $(cat "$dir/err")"
(cd "$dir" && "$PAGECLIFF" run --min-size 1m --stats=rel -- sh -c "cd / && cat '$dir/f'" >/dev/null) ||
	fail "relative --stats"
grep -q "^pagecliff: $dir/f: " "$dir/rel" || fail "relative --stats: not in $dir/rel"

# Stats on stderr never go into a file the program opened on fd 2 after
# closing its stderr: the copy stays byte for byte the source.
"$PAGECLIFF" run --min-size 1m --stats -- python3 -c "
import os, sys
os.close(2)
out = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
assert out == 2
src = os.open(sys.argv[1], os.O_RDONLY)
while True:
    b = os.read(src, 1 << 20)
    if not b:
        break
    os.write(out, b)
" "$dir/f" "$dir/copy2" 2>"$dir/err" || fail "python3 copy to fd 2"
cmp -s "$dir/f" "$dir/copy2" || fail "stats went into the program's fd 2: $(tail -c 200 "$dir/copy2")"
echo "PASS: exit status, 127, usage errors, LD_PRELOAD, settings, stats, static, setuid, shim path, stats file and target"
