#!/bin/bash
# SPDX-License-Identifier: MIT
# Progress on a terminal (engine/progress.c): cat --progress, cp --progress and
# bench's layout and phases draw on stderr when it is a terminal (script(1)
# gives one), redrawn in place with plausible figures (bytes that only grow,
# the share they are of the total, a rate), at most a few times a second,
# and cleared at the end; the data is byte for byte the same; without a
# terminal, or with bench -q, nothing of it is written.
set -u
pc=${PAGECLIFF:?PAGECLIFF is not set}
. "$(dirname "$0")/../harness.sh"
command -v script >/dev/null || skip "script (util-linux) is missing"
py=/usr/bin/python3
[ -x $py ] || py=python3
make_tmpdir tmp /var/tmp

# check_lines TYPESCRIPT LABEL TOTAL MIN: the redraws of "LABEL: X of TOTAL
# (P%), R/s, T left" grow, match their share, are at least MIN and end cleared.
check_lines() {
	$py - "$@" <<'PY'
import re, sys
path, label, total, least = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
text = open(path, "rb").read().decode()
unit = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}
def size(s):
    v, u = s.split()
    return float(v) * unit[u]
pre = re.escape(label + ": ") if label else ""
pat = re.compile("\r" + pre + r"([\d.]+ \w+) of ([\d.]+ \w+) \((\d+)%\), ([\d.]+ \w+)/s, (\d+:\d\d)( left)?\x1b\[K")
lines = pat.findall(text)
ends = [m.end() for m in pat.finditer(text)]
if len(lines) < least:
    print("FAIL: %d redraws of %r, want %d or more: %r" % (len(lines), label, least, text[:400]))
    sys.exit(1)
last = -1
for done, tot, pct, rate, _, _ in lines:
    if tot != total:
        print("FAIL: total %s, want %s" % (tot, total)); sys.exit(1)
    d = size(done)
    if d < last or d > size(total) * 1.001:
        print("FAIL: bytes %s after %s of %s" % (done, last, total)); sys.exit(1)
    if abs(100.0 * d / size(total) - int(pct)) > 1.5:
        print("FAIL: %s of %s is not %s%%" % (done, total, pct)); sys.exit(1)
    if d > 0 and size(rate) <= 0:
        print("FAIL: rate %s with %s done" % (rate, done)); sys.exit(1)
    last = d
if not text[ends[-1]:].startswith("\r\x1b[K"):
    print("FAIL: the line is not cleared after its last redraw: %r" % text[ends[-1]:][:120])
    sys.exit(1)
print("%s: %d redraws, up to %s of %s" % (label or "cp", len(lines), lines[-1][0], total))
PY
}

head -c $((48 << 20)) /dev/urandom >"$tmp/big" || exit 1
# A reader of 1 MiB every 20 ms: about a second, so several redraws.
cat >"$tmp/slow.py" <<'EOF'
import sys, time
out = open(sys.argv[1], "wb")
while True:
    b = sys.stdin.buffer.read(1 << 20)
    if not b:
        break
    out.write(b)
    time.sleep(0.02)
EOF

# cat: on a terminal, to stderr only
t0=$(date +%s%N)
script -qec "'$pc' cat --progress '$tmp/big' | $py '$tmp/slow.py' '$tmp/out'" /dev/null \
	>"$tmp/tty" </dev/null || fail "cat --progress under script: exit $?"
ms=$((($(date +%s%N) - t0) / 1000000))
cmp -s "$tmp/big" "$tmp/out" || fail "cat --progress changed the data"
check_lines "$tmp/tty" cat "48.0 MiB" 3 || exit 1
# the redraws are a period apart: at most 4 a second, and one at the start
n=$(grep -o $'\r''cat: ' "$tmp/tty" | wc -l)
[ "$n" -le $((ms * 4 / 1000 + 1)) ] || fail "cat drew $n times in $ms ms"

# cat without a terminal: nothing on stderr
"$pc" cat --progress "$tmp/big" >"$tmp/out" 2>"$tmp/err" || fail "cat --progress: exit $?"
cmp -s "$tmp/big" "$tmp/out" || fail "cat --progress (no tty) changed the data"
[ ! -s "$tmp/err" ] || fail "cat --progress without a terminal wrote: $(head -c 200 "$tmp/err" | od -c | head -3)"

# cp -r of a tree: the total is the tree's bytes
mkdir -p "$tmp/src/d" && cp "$tmp/big" "$tmp/src/a" && head -c $((16 << 20)) /dev/urandom >"$tmp/src/d/b" || exit 1
script -qec "'$pc' cp -r --progress '$tmp/src' '$tmp/dst'" /dev/null >"$tmp/tty" </dev/null ||
	fail "cp --progress under script: exit $?"
diff -r "$tmp/src" "$tmp/dst" >/dev/null || fail "cp --progress: the copy differs"
check_lines "$tmp/tty" "" "64.0 MiB" 1 || exit 1
rm -rf "$tmp/dst"
"$pc" cp -r --progress "$tmp/src" "$tmp/dst" 2>"$tmp/err" || fail "cp --progress: exit $?"
[ ! -s "$tmp/err" ] || fail "cp --progress without a terminal wrote: $(head -c 200 "$tmp/err")"
diff -r "$tmp/src" "$tmp/dst" >/dev/null || fail "cp --progress (no tty): the copy differs"

# bench: the layout's line and each phase's, on a terminal, not with -q
mkdir "$tmp/b" || exit 1
bench="'$pc' bench -d '$tmp/b' --size 64m --mode buffered --runtime 1 --time_based --interval 100ms"
script -qec "$bench -o '$tmp/report'" /dev/null >"$tmp/tty" </dev/null || fail "bench under script: exit $?"
check_lines "$tmp/tty" "laying out the data set" "64.0 MiB" 1 || exit 1
grep -q $'\r''buffered  *[0-9.]* s  *[0-9.]* GB/s now  *[0-9.]* avg  cache ' "$tmp/tty" ||
	fail "bench drew no phase line: $(tr '\r' '\n' <"$tmp/tty" | head -20)"
grep -qP '\r\033\[K' "$tmp/tty" || fail "bench does not clear its line"
script -qec "$bench -q -o '$tmp/report'" /dev/null >"$tmp/tty" </dev/null || fail "bench -q: exit $?"
# (the terminal ends lines in \r\n: a redraw is a \r before anything else)
grep -qP '\r(?!$)|\033' "$tmp/tty" && fail "bench -q drew: $(od -c "$tmp/tty" | head -5)"
"$pc" bench -d "$tmp/b" --size 64m --mode buffered --runtime 1 --interval 100ms -o "$tmp/report" \
	2>"$tmp/err" || fail "bench without a terminal: exit $?"
grep -qP '\r|\033' "$tmp/err" && fail "bench without a terminal drew: $(head -c 300 "$tmp/err" | od -c | head)"
echo "progress: ok"
