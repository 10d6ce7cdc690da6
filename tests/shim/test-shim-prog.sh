#!/bin/sh
# SPDX-License-Identifier: MIT
# One real program (argument 1) reads a file larger than a memory cgroup's
# cap, once plainly and once through `pagecliff run`, each in a fresh cgroup:
# the output must be byte for byte the same (sha256), and with the shim the
# cgroup's page cache must stay under 64 MiB (nothing of the file was cached
# before: it is evicted first) and the file must not stay cached afterwards.
set -u
prog=$1
CAP=128m
SIZE=192M
MAX_CACHE=$((64 << 20))
MAX_AFTER=$((8 << 20))

for v in PAGECLIFF SHIM_CGRUN SHIM_PAGESTAT; do
	eval "[ -n \"\${$v:-}\" ]" || { echo "FAIL: $v is not set"; exit 1; }
done
. "$(dirname "$0")/../harness.sh"
needs_root "for memory cgroups"
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || py=
case $prog in
python3) [ -n "$py" ] || { echo "SKIP: no python3"; exit 77; } ;;
*) command -v "$prog" >/dev/null || { echo "SKIP: no $prog"; exit 77; } ;;
esac

make_tmpdir dir "${TMPDIR:-/var/tmp}"
big=$dir/big
# Position-dependent text that gzip gets through quickly.
seq 1 40000000 | head -c $SIZE > "$big" || exit 1

# The command for @prog reading $big and writing to stdout.
cmd() {
	case $prog in
	cat) echo "cat $big" ;;
	dd) echo "dd if=$big bs=64k status=none" ;;
	tar) echo "tar cf - -C $dir big" ;;
	gzip) echo "gzip -1 -c $big" ;;
	sha256sum) echo "sha256sum $big" ;;
	cp) echo "cp $big /dev/stdout" ;;
	python3) echo "$py -c __import__('shutil').copyfileobj(open(__import__('sys').argv[1],'rb'),__import__('sys').stdout.buffer,1<<20) $big" ;;
	*) echo "FAIL: no command for $prog" >&2; exit 1 ;;
	esac
}

# run LABEL [pagecliff run --]: prints "HASH PEAK" of one run in a cgroup.
run() {
	label=$1
	shift
	"$SHIM_PAGESTAT" evict "$big" || exit 1
	# shellcheck disable=SC2046
	hash=$("$SHIM_CGRUN" $CAP "$dir/rep.$label" "$@" $(cmd) | sha256sum | cut -d' ' -f1)
	peak=$(awk '/^peak_cache/ { print $2 }' "$dir/rep.$label")
	secs=$(awk '/^seconds/ { print $2 }' "$dir/rep.$label")
	[ -n "$peak" ] || { echo "FAIL: $label: no cgroup report (exit status of the run?)" >&2; exit 1; }
	echo "$prog $label: peak page cache $((peak >> 20)) MiB, $secs s" >&2
	echo "$hash $peak"
}

plain=$(run plain) || exit 1
shim=$(run shim "$PAGECLIFF" run --) || exit 1
after=$("$SHIM_PAGESTAT" cached "$big")

set -- $plain $shim
[ "$1" = "$3" ] || { echo "FAIL: $prog output differs with the shim ($1 vs $3)"; exit 1; }
[ "$4" -le $MAX_CACHE ] || { echo "FAIL: $prog with the shim: peak page cache $4 > $MAX_CACHE"; exit 1; }
[ "$after" -le $MAX_AFTER ] || { echo "FAIL: $prog left $after bytes of the file cached"; exit 1; }

if [ "$prog" = cp ]; then
	# A regular file as the target: cp uses copy_file_range().
	"$SHIM_PAGESTAT" evict "$big"
	"$PAGECLIFF" run -- cp "$big" "$dir/copy" || { echo "FAIL: cp to a file"; exit 1; }
	src=$("$SHIM_PAGESTAT" cached "$big")
	cmp -s "$big" "$dir/copy" || { echo "FAIL: cp's copy differs"; exit 1; }
	[ "$src" -le $MAX_AFTER ] || { echo "FAIL: cp to a file left $src bytes of the source cached"; exit 1; }
fi
echo "PASS: $prog: same output, peak page cache $(($4 >> 20)) MiB with the shim vs $(($2 >> 20)) MiB without (cap $CAP)"
exit 0
