#!/bin/sh
# SPDX-License-Identifier: MIT
# A cold 256 MiB file read under `pagecliff run` (auto) by cat, sha256sum
# (fread) and dd: its page cache, sampled all the while it is read, never
# holds 8 MiB; the bytes are the file's and the stats line says direct; and
# the shim makes no fadvise call: perf counts the syscalls:sys_enter_fadvise64
# tracepoint, the same under the shim as plainly (cat and sha256sum advise
# SEQUENTIAL themselves; drop-behind made 33 more).  A warm file keeps
# today's handling: not read direct, and all of it still cached after.
set -u
: "${PAGECLIFF:?}" "${SHIM_PAGESTAT:?}"
. "$(dirname "$0")/../harness.sh"
MiB=1048576
SIZE=$((256 * MiB))
LIMIT=$((8 * MiB))
[ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)" = 0 ] ||
	skip "io_uring is disabled (kernel.io_uring_disabled): auto does not read direct"
make_tmpdir dir "${TMPDIR:-/var/tmp}"
f=$dir/big
head -c $SIZE /dev/urandom > "$f" || exit 1
dd if="$f" of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null ||
	skip "O_DIRECT refused in $dir"
sum=$(sha256sum < "$f" | cut -d' ' -f1)

# sample NAME CMD...: CMD reads $f under the shim, its output hashed; the
# file's cache is sampled until it ends.  Sets peak and samples.
sample() {
	name=$1
	shift
	"$SHIM_PAGESTAT" evict "$f" || exit 1
	rm -f "$dir/stats"
	{ "$PAGECLIFF" run --stats="$dir/stats" -- "$@" | sha256sum > "$dir/sum"; } &
	pid=$!
	peak=0 samples=0
	while kill -0 $pid 2>/dev/null; do
		c=$("$SHIM_PAGESTAT" cached "$f") || exit 1
		[ "$c" -le "$peak" ] || peak=$c
		samples=$((samples + 1))
	done
	wait $pid || fail "$name: exit status $?"
	line=$(grep "^pagecliff: $f: " "$dir/stats") || fail "$name: no stats line: $(cat "$dir/stats")"
	case $line in
	*"mode direct (auto: "*) ;;
	*) fail "$name: not read direct: $line" ;;
	esac
	[ "$peak" -lt $LIMIT ] || fail "$name: $((peak / 1024)) KiB of the file cached while read"
	echo "$name: at most $((peak / 1024)) KiB cached in $samples samples; ${line#*mode }"
}

sample cat cat "$f"
[ "$(cut -d' ' -f1 "$dir/sum")" = "$sum" ] || fail "cat: other bytes"
total=$samples
sample dd dd if="$f" bs=64k status=none
[ "$(cut -d' ' -f1 "$dir/sum")" = "$sum" ] || fail "dd: other bytes"
total=$((total + samples))
sample sha256sum sha256sum "$f"
[ "$(cut -c1-64 "$dir/sum")" != "$sum" ] || fail "sha256sum: hashed its output, not the file"
"$PAGECLIFF" run -- sha256sum "$f" | grep -q "^$sum " || fail "sha256sum: another hash"
total=$((total + samples))
[ $total -ge 10 ] || skip "the readers ended within $total samples: too fast to watch here"

# fadvise CMD...: the fadvise calls CMD makes (perf's count of the tracepoint).
fadvise() {
	"$SHIM_PAGESTAT" evict "$f" || exit 1
	perf stat -x, -o "$dir/perf" -e syscalls:sys_enter_fadvise64 -- "$@" > /dev/null 2>&1 ||
		return 1
	sed -n 's/^\([0-9][0-9]*\),.*sys_enter_fadvise64.*/\1/p' "$dir/perf"
}
if plain=$(fadvise cat "$f") && [ -n "$plain" ]; then
	for prog in cat sha256sum; do
		plain=$(fadvise $prog "$f")
		shim=$(fadvise "$PAGECLIFF" run -- $prog "$f")
		[ "$shim" = "$plain" ] || fail "$prog: $shim fadvise calls under the shim, $plain plainly"
		echo "$prog: $shim fadvise calls under the shim, as plainly"
	done
else
	echo "perf or its syscalls:sys_enter_fadvise64 tracepoint is missing: fadvise not counted"
fi

# A warm file: today's handling, and its pages stay.  2 when reclaim took some.
warm() {
	cat "$f" > /dev/null || exit 1
	[ "$("$SHIM_PAGESTAT" cached "$f")" -eq $SIZE ] || return 2
	rm -f "$dir/stats"
	"$PAGECLIFF" run --stats="$dir/stats" -- cat "$f" > /dev/null || fail "warm: cat failed"
	line=$(grep "^pagecliff: $f: " "$dir/stats") || fail "warm: no stats line"
	case $line in *"mode direct"*) fail "warm: read direct: $line" ;; esac
	[ "$("$SHIM_PAGESTAT" cached "$f")" -eq $SIZE ] || return 2
	echo "warm: all of it still cached; ${line#*mode }"
}
warm_tries warm || fail "warm: pages were lost in three tries"
echo "PASS: no page cache and no fadvise for a cold file, today's handling for a warm one"
