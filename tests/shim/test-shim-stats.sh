#!/bin/sh
# SPDX-License-Identifier: MIT
# "bytes dropped" in --stats is what left the page cache, not what was asked
# of POSIX_FADV_DONTNEED (which skips pages dirty or under writeback).  dd
# copies 100000000 bytes under the shim; after it the stats' count for the
# source and the copy, plus what is still cached of each, may not exceed the
# pages the file has: a count of what was asked said the whole copy was
# dropped while its last batch (about 7 MiB, under writeback at close) stayed
# cached.  Then the count must have seen most of the file go (the shim did
# work).  Another process's eviction can only make the sum smaller.  In mode
# dropbehind: auto reads a cold source O_DIRECT, with nothing to drop.
set -u
: "${PAGECLIFF:?}" "${SHIM_PAGESTAT:?}" "${PAGECLIFF_PRELOAD_SO:?}"
. "$(dirname "$0")/../harness.sh"
make_tmpdir dir "${TMPDIR:-/var/tmp}"
SIZE=100000000
page=$(getconf PAGESIZE)
pages_bytes=$(( (SIZE + page - 1) / page * page ))
head -c $SIZE /dev/urandom > "$dir/src" || exit 1
"$SHIM_PAGESTAT" evict "$dir/src" || exit 1

"$PAGECLIFF" run --mode dropbehind --stats="$dir/stats" -- dd if="$dir/src" of="$dir/out" bs=1M status=none ||
	fail "dd under the shim"
for f in src out; do
	left=$("$SHIM_PAGESTAT" cached "$dir/$f") || exit 1
	line=$(grep "^pagecliff: $dir/$f:" "$dir/stats") || fail "no stats line for $f: $(cat "$dir/stats")"
	dropped=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\|unknown\) bytes dropped.*/\1/p')
	[ -n "$dropped" ] || fail "$f: no 'bytes dropped' in: $line"
	[ "$dropped" != unknown ] || fail "$f: count unknown on a file cachestat sees: $line"
	echo "$f: $dropped bytes dropped, $left left cached, $pages_bytes in its pages"
	[ $((dropped + left)) -le $pages_bytes ] ||
		fail "$f: $dropped dropped + $left still cached > $pages_bytes: the count is not what left"
	[ $((dropped)) -ge $((pages_bytes / 2)) ] || fail "$f: only $dropped bytes dropped"
done
cmp -s "$dir/src" "$dir/out" || fail "the copy differs"
echo "PASS: bytes dropped is what left the cache"
