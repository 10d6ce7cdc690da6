#!/bin/sh
# SPDX-License-Identifier: MIT
# Every symbol lib/pagecliff.map exports has a man3 page (man/SYMBOL.3, or a
# .so page naming the family's page), whose NAME section names it; the page
# is installed by man/meson.build and listed in pagecliff.3's SEE ALSO.
src=${PAGECLIFF_SRCDIR:-$(dirname "$0")/../..}
map=$src/lib/pagecliff.map
man=$src/man
fail=0
n=0

[ -r "$map" ] || { echo "SKIP: no $map"; exit 77; }
syms=$(sed -n '/global:/,/local:\|}/{s/^[[:space:]]*\(pc_[a-z0-9_]*\);.*/\1/p}' "$map")
for sym in $syms; do
	n=$((n + 1))
	page=$man/$sym.3
	if [ ! -f "$page" ]; then
		echo "FAIL: $sym has no man page ($page)"
		fail=1
		continue
	fi
	target=$page
	so=$(sed -n 's/^\.so man3\/\(.*\)$/\1/p' "$page")
	if [ -n "$so" ]; then
		target=$man/$so
		if [ ! -f "$target" ] || grep -q '^\.so' "$target"; then
			echo "FAIL: $sym.3 points at $so, which is not a page"
			fail=1
			continue
		fi
	fi
	if ! sed -n '/^\.SH NAME/,/^\.SH/p' "$target" | grep -qw "$sym"; then
		echo "FAIL: the NAME section of $(basename "$target") does not name $sym"
		fail=1
	fi
	if ! grep -q "'$sym\.3'" "$man/meson.build"; then
		echo "FAIL: man/meson.build does not install $sym.3"
		fail=1
	fi
	if ! grep -q "^\.BR $sym (3)" "$man/pagecliff.3"; then
		echo "FAIL: pagecliff.3 does not list $sym(3) in SEE ALSO"
		fail=1
	fi
	if command -v groff >/dev/null && [ -z "$so" ]; then
		warn=$(groff -man -Tutf8 -ww -z "$target" 2>&1)
		if [ -n "$warn" ]; then
			echo "FAIL: $(basename "$target"): $warn"
			fail=1
		fi
	fi
done
if [ "$n" -lt 20 ]; then
	echo "FAIL: read $n symbols from $map, expected the whole API"
	exit 1
fi
[ "$fail" = 0 ] && echo "$n exported symbols, each with its man page"
exit $fail
