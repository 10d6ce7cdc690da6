#!/bin/sh
# SPDX-License-Identifier: MIT
# Every PAGECLIFF_MODE over every way of reading the shim follows: dd with
# 4 MiB reads (RWF_DONTCACHE in dontcache where the file system has it,
# O_DIRECT ahead of the reader in auto and direct), python3's sendfile (shutil.copyfile) and splice (os.splice): the bytes
# are the file's, the stats line names the mode used, and the file is not
# left cached; with --mode off it is.
set -u
: "${PAGECLIFF:?}" "${SHIM_PAGESTAT:?}"
MiB=1048576
MAX_AFTER=$((8 * MiB))
. "$(dirname "$0")/../harness.sh"
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || { echo "SKIP: no python3"; exit 77; }
make_tmpdir dir "${TMPDIR:-/var/tmp}"
f=$dir/f
seq 1 10000000 | head -c $((64 * MiB)) > "$f" || exit 1
"$SHIM_PAGESTAT" cached "$f" >/dev/null || exit $?

SPLICE='import os,sys
fd=os.open(sys.argv[1],os.O_RDONLY); r,w=os.pipe(); out=sys.stdout.buffer
while True:
    n=os.splice(fd,w,65536)
    if not n: break
    while n:
        b=os.read(r,n); out.write(b); n-=len(b)'

# check MODE HOW EXPECT: run one reader, compare, look at cache and stats.
check() {
	mode=$1 how=$2 expect=$3
	"$SHIM_PAGESTAT" evict "$f"
	rm -f "$dir/out" "$dir/stats"
	case $how in
	dd) "$PAGECLIFF" run --mode "$mode" --stats="$dir/stats" -- \
		dd if="$f" of="$dir/out" bs=4M status=none ;;
	sendfile) "$PAGECLIFF" run --mode "$mode" --stats="$dir/stats" -- \
		"$py" -c 'import shutil,sys; shutil.copyfile(sys.argv[1], sys.argv[2])' "$f" "$dir/out" ;;
	splice) "$PAGECLIFF" run --mode "$mode" --stats="$dir/stats" -- \
		"$py" -c "$SPLICE" "$f" > "$dir/out" ;;
	esac || fail "$mode/$how: the reader failed"
	after=$("$SHIM_PAGESTAT" cached "$f")	# before cmp caches it
	cmp -s "$f" "$dir/out" || fail "$mode/$how: output differs"
	if [ "$mode" = off ]; then
		# all of it stays, unless DAMON (docs/MACHINES.md) takes some: the caller tries again
		[ "$after" -gt $((32 * MiB)) ] || { echo "off/$how: only $after bytes cached"; return 2; }
		[ ! -s "$dir/stats" ] || fail "off/$how: stats printed: $(cat "$dir/stats")"
		return
	fi
	[ "$after" -le $MAX_AFTER ] || fail "$mode/$how: $after bytes left cached"
	line=$(grep "^pagecliff: $f: " "$dir/stats") || fail "$mode/$how: no stats line"
	case $line in
	*"mode $expect"*) ;;
	*"dontcache refused"*) [ "$expect" = dontcache ] ||
		fail "$mode/$how: unexpected mode: $line" ;;
	*) fail "$mode/$how: expected mode $expect: $line" ;;
	esac
	echo "$mode/$how: ${line#*bytes read, }"
}

modes=$("$PAGECLIFF" run --list-modes | grep -vx off) && [ -n "$modes" ] || fail "run --list-modes: exit $?"
for mode in $modes; do
	expect=dropbehind
	[ "$mode" = dropbehind ] || expect=dontcache
	# a cold file read at its offset: O_DIRECT ahead of the reader (direct.c)
	case $mode in auto | direct) expect=direct ;; esac
	check "$mode" dd $expect
	check "$mode" sendfile dropbehind
	check "$mode" splice dropbehind
done
warm_tries check off dd none || fail "off/dd: most of the file was not cached in three tries"
echo "PASS:" $modes "and off over read, sendfile and splice"
