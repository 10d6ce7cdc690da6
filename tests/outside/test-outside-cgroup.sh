#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff attach --cgroup`: a memory cgroup (v1) and a v2 cgroup, each
# holding two readers, and a third reader started in it after attach.  All
# three are followed: their files stay within the budget, each gets a
# --stats line, the readers read every byte, and attach stops on SIGINT
# with exit 0.  A path that is not a cgroup is refused in one line.
. "$(dirname "$0")/harness.sh"
needs_root "to make cgroups"
P=${OUTSIDE_STATIC:-$OUTSIDE_PROG}
cg=
cleanup_cg() { [ -n "$cg" ] && rmdir "$cg" 2>/dev/null; cleanup; }
at_exit cleanup_cg

# start_in CG FILE: a paced reader of FILE in cgroup CG, in the background.
start_in() {
	sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" read "$3" 128' sh "$1" "$P" "$2" \
		> "$2.out" & bg="$bg $!"
}
for root in /sys/fs/cgroup/memory /sys/fs/cgroup/unified /sys/fs/cgroup; do
	[ -w "$root/cgroup.procs" ] || continue
	cg=$root/pagecliff-outside-$$
	mkdir "$cg" || fail "cannot make $cg"
	for f in a b c; do mkfile "$dir/$f" 192; done
	start_in "$cg" "$dir/a"
	start_in "$cg" "$dir/b"
	readers=$bg
	sleep 0.3
	"$PAGECLIFF" attach --cgroup "$cg" --stats="$dir/stats" 2>"$dir/err" & at=$!
	bg="$bg $at"
	sleep 0.5
	start_in "$cg" "$dir/c"
	readers="$readers $!"
	for p in $readers; do wait "$p" || fail "$root: a reader failed"; done
	kill -INT $at
	wait $at; rc=$?
	[ $rc -eq 0 ] || fail "$root: attach exited $rc: $(cat "$dir/err")"
	for f in a b c; do
		grep -qx "$dir/$f: $((192 * MIB)) bytes fd 3" "$dir/$f.out" || fail "$root: $f: $(cat "$dir/$f.out")"
		grep -q "^pagecliff: $dir/$f: .* mode dropbehind (outside" "$dir/stats" ||
			fail "$root: no line for $f: $(cat "$dir/stats")"
		at_most "$dir/$f"
	done
	rmdir "$cg" || fail "cannot remove $cg"
	cg=
	bg=
	rm -f "$dir/stats" "$dir"/a* "$dir"/b* "$dir"/c*
	done_any="${done_any:-} $root"
done
[ -n "${done_any:-}" ] || skip "no writable cgroup hierarchy"
# --until-empty: attach ends by itself once its cgroup's last process is gone
for root in $done_any; do
	cg=$root/pagecliff-outside-$$
	mkdir "$cg" || fail "cannot make $cg"
	mkfile "$dir/a" 64
	"$PAGECLIFF" attach --cgroup "$cg" --until-empty 2>"$dir/err" & at=$!
	bg="$at"
	sleep 0.3
	kill -0 $at 2>/dev/null || fail "$root: --until-empty ended before the cgroup had a process"
	sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" read "$3" 128' sh "$cg" "$P" "$dir/a" >/dev/null ||
		fail "$root: the reader failed"
	for _ in $(seq 20); do kill -0 $at 2>/dev/null || break; sleep 0.1; done
	kill -0 $at 2>/dev/null && fail "$root: --until-empty still runs 2 s after the cgroup emptied"
	wait $at || fail "$root: attach --until-empty exited $?: $(cat "$dir/err")"
	bg=
	rmdir "$cg"
	cg=
done
"$PAGECLIFF" attach --until-empty 1 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] && grep -qxF "pagecliff: --until-empty goes with --cgroup" "$dir/err" ||
	fail "--until-empty without --cgroup: $rc $(cat "$dir/err")"
"$PAGECLIFF" attach --cgroup "$dir" 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && grep -qxF "pagecliff: error: cannot follow cgroup '$dir': not a cgroup (no cgroup.procs)" "$dir/err" ||
	fail "not a cgroup: $rc $(cat "$dir/err")"
echo "PASS: cgroups$done_any followed (cached after:$report)"
