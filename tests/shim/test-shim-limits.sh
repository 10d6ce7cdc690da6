#!/bin/sh
# SPDX-License-Identifier: MIT
# Readers the shim covers in a roundabout way, and those it cannot:
# - sed reads through getdelim(), whose buffer refills use libc's internal
#   read(): same output, the page cache bounded, the file not left cached;
# - a file read through mmap(2) (python3) and one read with O_DIRECT (dd):
#   the exact --stats line that says the shim did not act.
set -u
: "${PAGECLIFF:?}" "${SHIM_PAGESTAT:?}" "${SHIM_CGRUN:?}"
. "$(dirname "$0")/../harness.sh"
needs_root "for memory cgroups"
make_tmpdir dir "${TMPDIR:-/var/tmp}"
f=$dir/text
seq 1 45000000 > "$f" || exit 1		# 376 MiB of lines
"$SHIM_PAGESTAT" evict "$f"
plain=$(sed -n '$p' "$f")
"$SHIM_PAGESTAT" evict "$f"
shim=$("$SHIM_CGRUN" 256m "$dir/rep" "$PAGECLIFF" run --stats="$dir/st" -- sed -n '$p' "$f") ||
	fail "sed under the shim"
after=$("$SHIM_PAGESTAT" cached "$f")
peak=$(awk '/^peak_cache/ { print $2 }' "$dir/rep")
[ "$plain" = "$shim" ] || fail "sed's output differs: '$plain' vs '$shim'"
[ "$peak" -le $((64 << 20)) ] || fail "sed (getdelim): peak page cache $((peak >> 20)) MiB"
[ "$after" -le $((8 << 20)) ] || fail "sed (getdelim) left $((after >> 20)) MiB cached"
grep -q "^pagecliff: $f: $(stat -c %s "$f") bytes read, 1 sequential runs" "$dir/st" ||
	fail "sed: stats: $(cat "$dir/st")"

b=$dir/bin
head -c 32M /dev/zero > "$b" || exit 1
"$PAGECLIFF" run --stats="$dir/st2" -- python3 -c "
import mmap, sys
with open(sys.argv[1], 'rb') as f:
    m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    print(m[:].count(0))" "$b" > "$dir/out" || fail "python3 mmap under the shim"
[ "$(cat "$dir/out")" = $((32 << 20)) ] || fail "python3 mmap: wrong output"
want="pagecliff: $b: mapped with mmap(2): reads through the map are not seen, the shim did not act on the file from then on"
grep -qxF "$want" "$dir/st2" || fail "mmap: no line '$want' in: $(cat "$dir/st2")"

"$PAGECLIFF" run --stats="$dir/st3" -- dd if="$b" of=/dev/null bs=1M iflag=direct status=none ||
	fail "dd iflag=direct under the shim"
want="pagecliff: $b: opened with O_DIRECT: no page cache to drop, the shim did not act"
grep -qxF "$want" "$dir/st3" || fail "O_DIRECT: no line '$want' in: $(cat "$dir/st3")"
echo "PASS: sed through getdelim peaks at $((peak >> 20)) MiB; mmap and O_DIRECT say so in --stats"
