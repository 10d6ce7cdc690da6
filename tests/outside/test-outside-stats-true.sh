#!/bin/sh
# SPDX-License-Identifier: MIT
# Every figure of a watched reader's --stats line is measured, checked
# against fincore(1) after the run: "bytes dropped" is what left the cache
# (at most the file, and with what stays cached it makes up the file),
# "bytes kept cached" is no more than what fincore still finds cached; a
# warm window counts as kept; one file read across an exec by two programs
# has two lines whose drops add up to at most the file.
. "$(dirname "$0")/harness.sh"
command -v fincore >/dev/null || skip "no fincore (util-linux)"
P=${OUTSIDE_STATIC:-$OUTSIDE_PROG}
SIZE=$((256 * MIB))
SLACK=$((8 * MIB))
mkfile "$dir/f" 256

res() { fincore --bytes --noheadings --output RES "$1" | tr -d ' '; }
# field LINE WHAT: the number before " WHAT" in a --stats line
field() { echo "$1" | sed -n "s/.* \([0-9][0-9]*\) $2.*/\1/p"; }

# check NAME: the lines for $dir/f in $dir/stats against fincore
check() {
	c=$(res "$dir/f")
	lines=$(grep "^pagecliff: $dir/f: " "$dir/stats") || fail "$1: no line: $(cat "$dir/stats")"
	d=0 k=0
	while read -r line; do
		dl=$(field "$line" "bytes dropped") kl=$(field "$line" "bytes kept cached")
		[ -n "$dl" ] && [ -n "$kl" ] || fail "$1: cannot read: $line"
		d=$((d + dl)) k=$((k + kl))
	done <<-EOL
	$lines
	EOL
	[ "$d" -le "$SIZE" ] || fail "$1: $d bytes dropped said for a file of $SIZE"
	[ $((d + c)) -ge $((SIZE - SLACK)) ] ||
		fail "$1: $d bytes dropped said and $c cached after make less than the file's $SIZE"
	[ "$k" -le $((c + SLACK)) ] || fail "$1: $k bytes kept said, fincore finds $c cached"
	echo "$1: dropped $((d / MIB)) MiB, kept $((k / MIB)) MiB said; fincore: $((c / MIB)) MiB cached"
}

rm -f "$dir/stats"
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- dd if="$dir/f" of=/dev/null bs=1M status=none ||
	fail "dd failed"
check cold

"$SHIM_PAGESTAT" evict "$dir/f"
warm "$dir/f" $((64 * MIB)) $((53 * MIB)) dd if="$dir/f" of=/dev/null bs=1M skip=64 count=53 status=none
rm -f "$dir/stats"
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- dd if="$dir/f" of=/dev/null bs=1M status=none ||
	fail "dd failed"
check window
[ "$k" -ge $((53 * MIB)) ] || fail "window: $k bytes kept said for a 53 MiB window kept"

"$SHIM_PAGESTAT" evict "$dir/f"
rm -f "$dir/stats"
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- "$P" exec "$dir/f" 200 >/dev/null ||
	fail "the exec reader failed"
[ "$(grep -c "^pagecliff: $dir/f: " "$dir/stats")" -eq 2 ] || fail "exec: not two lines: $(cat "$dir/stats")"
check exec
echo "PASS: --stats agrees with fincore"
