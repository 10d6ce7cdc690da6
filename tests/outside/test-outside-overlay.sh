#!/bin/sh
# SPDX-License-Identifier: MIT
# A file on overlayfs (a container's root) is followed like any other: its
# pages live in the real (lower) file, and the overlay's own mapping is
# empty, so the watcher counts residency through a mapping.  Before, every
# step of the reader looked like a seek over uncached pages, the stream was
# never followed and all 256 MiB stayed cached.  dd under run --via outside
# and a paced reader under attach: the lower file keeps at most the budget,
# and a warm window of it stays.
. "$(dirname "$0")/harness.sh"
needs_root "to mount overlayfs"
P=${OUTSIDE_STATIC:-$OUTSIDE_PROG}
mkdir "$dir/lo" "$dir/up" "$dir/wk" "$dir/m" || fail "cannot make the layers"
mkfile "$dir/lo/f" 256
mount_at_exit -t overlay overlay -o "lowerdir=$dir/lo,upperdir=$dir/up,workdir=$dir/wk" "$dir/m" ||
	skip "cannot mount overlayfs here"

"$PAGECLIFF" run --via outside --stats="$dir/stats" -- dd if="$dir/m/f" of=/dev/null bs=1M status=none ||
	fail "dd failed"
grep -q "^pagecliff: $dir/m/f: .* mode dropbehind (outside" "$dir/stats" ||
	fail "run: not followed: $(cat "$dir/stats")"
at_most "$dir/lo/f"

"$SHIM_PAGESTAT" evict "$dir/lo/f"
# a window ahead of where attach first sees the reader (as in outside-warm):
# below that point only the reader's read_bytes tells its pages from others'
warm "$dir/lo/f" $((112 * MIB)) $((53 * MIB)) dd if="$dir/m/f" of=/dev/null bs=1M skip=112 count=53 status=none
rm -f "$dir/stats"
"$P" read "$dir/m/f" 128 >/dev/null & rd=$!
"$PAGECLIFF" attach --stats="$dir/stats" $rd 2>"$dir/err" || fail "attach: $(cat "$dir/err")"
wait $rd || fail "the reader failed"
grep -q "^pagecliff: $dir/m/f: .* mode dropbehind (outside" "$dir/stats" ||
	fail "attach: not followed: $(cat "$dir/stats")"
w=$(cached "$dir/lo/f" $((112 * MIB)) $((53 * MIB)))
[ "$w" -ge $((52 * MIB)) ] || fail "attach: of the 53 MiB window $((w / MIB)) MiB are left"
all=$(cached "$dir/lo/f")
[ "$all" -le $((53 * MIB + LIMIT)) ] || fail "attach: $((all / MIB)) MiB cached after"
cmp -s "$dir/lo/f" "$dir/m/f" || fail "the overlay's bytes differ"
echo "PASS: a file on overlayfs followed (cached after:$report; attach: $((all / MIB)) MiB with the window)"
