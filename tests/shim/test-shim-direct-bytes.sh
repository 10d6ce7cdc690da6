#!/bin/sh
# SPDX-License-Identifier: MIT
# Real programs read files of awkward sizes through the shim's O_DIRECT
# read-ahead (`pagecliff run --mode direct --min-size 0`: small files too)
# and give the bytes they give plainly: cat, sha256sum (fread), dd with
# one-byte reads and a skip, with an odd block size and with 1 MiB blocks,
# tar (of all but the empty file, which it does not open) and python3, on files of 0, 1, 4095, 4097, 1 MiB + 1 and 9 MiB + 1
# bytes, each evicted first.  Each file's stats line says it was read
# direct, to its end.
set -u
: "${PAGECLIFF:?}" "${SHIM_PAGESTAT:?}"
. "$(dirname "$0")/../harness.sh"
make_tmpdir dir "${TMPDIR:-/var/tmp}"
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || py=
for size in 0 1 4095 4097 1048577 9437185; do
	head -c $size /dev/urandom > "$dir/f$size" || exit 1
done
dd if="$dir/f4097" of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null ||
	skip "O_DIRECT refused in $dir"

# same FILE CMD...: CMD (reading FILE) writes the same bytes under the shim
# as plainly, and the shim read FILE direct.
same() {
	file=$1
	shift
	"$SHIM_PAGESTAT" evict "$file" || exit 1
	want=$("$@" | sha256sum) || fail "$*: failed plainly"
	"$SHIM_PAGESTAT" evict "$file" || exit 1
	rm -f "$dir/stats"
	got=$("$PAGECLIFF" run --mode direct --min-size 0 --stats="$dir/stats" -- "$@" |
	      sha256sum) || fail "$*: failed under the shim"
	[ "$got" = "$want" ] || fail "$*: other bytes under the shim"
	# named as opened: tar -C opens it by its name in the folder
	line=$(grep -E "^pagecliff: ($dir/)?${file##*/}: " "$dir/stats") ||
		fail "$*: no stats line: $(cat "$dir/stats")"
	case $line in
	*"mode direct (asked for"*) ;;
	*) fail "$*: not read direct to the end: $line" ;;
	esac
}

n=0
for size in 0 1 4095 4097 1048577 9437185; do
	f=$dir/f$size
	same "$f" cat "$f"
	same "$f" sha256sum "$f"
	same "$f" dd if="$f" bs=1 count=5000 skip=7 status=none
	same "$f" dd if="$f" bs=4097 skip=1 status=none
	same "$f" dd if="$f" bs=1M status=none
	n=$((n + 5))
	if [ $size -gt 0 ]; then	# tar opens no empty file
		same "$f" tar cf - -C "$dir" "f$size"
		n=$((n + 1))
	fi
	if [ -n "$py" ]; then
		same "$f" "$py" -c 'import sys; sys.stdout.buffer.write(open(sys.argv[1], "rb").read())' "$f"
		n=$((n + 1))
	fi
	echo "$size bytes: the same bytes, read direct"
done
echo "PASS: $n reads of files of 0 to 9 MiB + 1 bytes, the bytes they give plainly"
