#!/bin/sh
# SPDX-License-Identifier: MIT
# A reader in another mount namespace (a container's) is followed to its
# end: its paths are its namespace's, so the watcher never walks them; it
# keeps the file's description from its first action to the end's work,
# and the reader's last stretch is dropped like anyone's (before, 15-31 MiB
# of it stayed).  Under attach PID and under run --via outside.
. "$(dirname "$0")/harness.sh"
needs_root "to make a mount namespace"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
P=${OUTSIDE_STATIC:-$OUTSIDE_PROG}
mkfile "$dir/f" 256
# in a namespace of its own, the file reached by a path of that namespace only
mkdir "$dir/view" || fail "cannot make $dir/view"
inside() {
	unshare --mount --propagation private sh -c '
		mount --bind "$1" "$2" && exec "$3" read "$2/f" "$4"' sh "$dir" "$dir/view" "$P" "$1"
}

inside 256 >"$dir/out" &
rd=$!
sleep 0.2
"$PAGECLIFF" attach --stats="$dir/stats" $rd 2>"$dir/err" || fail "attach: $(cat "$dir/err")"
wait $rd || fail "the reader failed: $(cat "$dir/out")"
grep -qx "$dir/view/f: $((256 * MIB)) bytes fd 3" "$dir/out" || fail "read: $(cat "$dir/out")"
grep -q "mode dropbehind (outside" "$dir/stats" || fail "not followed: $(cat "$dir/stats")"
at_most "$dir/f"
# read_bytes claims what it read before attach saw it: what stays is its tail's
tail_left=$(cached "$dir/f" $((192 * MIB)) $((64 * MIB)))
[ "$tail_left" -le $((8 * MIB)) ] || fail "attach: $((tail_left / MIB)) MiB of the last 64 MiB stay cached"

"$SHIM_PAGESTAT" evict "$dir/f"
rm -f "$dir/stats"
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- unshare --mount --propagation private sh -c '
	mount --bind "$1" "$2" && exec "$3" read "$2/f" 0' sh "$dir" "$dir/view" "$P" >"$dir/out" ||
	fail "run: the reader failed: $(cat "$dir/out")"
at_most "$dir/f"
tail_left=$(cached "$dir/f" $((192 * MIB)) $((64 * MIB)))
[ "$tail_left" -le $((8 * MIB)) ] || fail "run: $((tail_left / MIB)) MiB of the last 64 MiB stay cached"
echo "PASS: a reader in another mount namespace followed to its end (cached after:$report)"
