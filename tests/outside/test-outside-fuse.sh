#!/bin/sh
# SPDX-License-Identifier: MIT
# A user's FUSE server that never answers a second open of its file (any
# later request of the watcher's could hang the same way, and a dead
# network mount does too) must cost the watcher that file only: a copy
# beside it is followed, the FUSE file is left alone and said so once, and
# SIGTERM (systemd's stop) ends the watcher within a second, with nothing
# left in state D.  Under `attach PID...` and under `attach --all` (in a
# PID namespace of its own, where "all" is the test's processes).
. "$(dirname "$0")/harness.sh"
needs_root "to mount FUSE with allow_other"
: "${OUTSIDE_FUSE_HANG:=}"
[ -x "$OUTSIDE_FUSE_HANG" ] || skip "outside-fuse-hang was not built (libfuse3-dev is missing)"
[ -c /dev/fuse ] || skip "no /dev/fuse"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
P=${OUTSIDE_STATIC:-$OUTSIDE_PROG}
mkdir "$dir/mnt" || fail "cannot make $dir/mnt"
server=
unmount() {
	[ -n "$server" ] && kill -KILL $server 2>/dev/null && wait $server 2>/dev/null
	server=
	umount -l "$dir/mnt" 2>/dev/null
}
at_exit unmount

# A fresh server for each way: it answers one open only.
serve() {
	"$OUTSIDE_FUSE_HANG" "$dir/mnt" 256 2>"$dir/fuse.err" &
	server=$!
	wait_for $server "$dir/fuse.err" test -f "$dir/mnt/data" ||
		fail "the FUSE server did not mount: $(cat "$dir/fuse.err")"
}

# stuck: processes in state D waiting on FUSE (none may be left).
stuck() {
	ps -eo pid=,stat=,wchan:32=,comm= | awk '$2 ~ /^D/ && $3 ~ /fuse|request_wait/'
}

# one_way HOW: a slow reader of the FUSE file (its open is the first, and
# answered) and a copy on a local file system, followed by HOW; then
# SIGTERM, timed into $dir/term as "EXIT MS".
one_way() {
	how=$1
	serve
	mkfile "$dir/src" 256
	rm -f "$dir/dst" "$dir/stats" "$dir/term"
	if [ "$how" = all ]; then
		# the guard's processes are the namespace's: reader and copy in it
		unshare --pid --fork --mount-proc sh -c '
			"$3" read "$2/mnt/data" 24 >/dev/null & reader=$!
			"$1" attach --all --stats="$2/stats" 2>"$2/err" & at=$!
			sleep 1
			"$3" copy "$2/src" "$2/dst" 256 >/dev/null || exit 3
			sleep 0.5
			t0=$(date +%s%N); kill -TERM $at; wait $at; rc=$?
			echo "$rc $((($(date +%s%N) - t0) / 1000000))" >"$2/term"
			kill $reader' sh "$PAGECLIFF" "$dir" "$P"
		[ $? -ne 3 ] || fail "all: the copy failed"
	else
		"$P" read "$dir/mnt/data" 24 >/dev/null &
		reader=$!
		"$P" copy "$dir/src" "$dir/dst" 128 >/dev/null &
		copy=$!
		"$PAGECLIFF" attach --stats="$dir/stats" $reader $copy 2>"$dir/err" &
		at=$!
		wait $copy || fail "$how: the copy failed"
		sleep 0.5
		t0=$(date +%s%N)
		kill -TERM $at
		wait $at
		echo "$? $((($(date +%s%N) - t0) / 1000000))" >"$dir/term"
		kill $reader
	fi
	read -r rc ms <"$dir/term" || fail "$how: the watcher was not stopped"
	[ "$ms" -le 1000 ] || fail "$how: SIGTERM took $ms ms to end the watcher (at most 1000)"
	case $rc in 0 | 143) ;; *) fail "$how: the watcher exited $rc after SIGTERM: $(cat "$dir/err")" ;; esac
	[ -z "$(stuck)" ] || fail "$how: left in state D: $(stuck)"
	at_most "$dir/src"
	at_most "$dir/dst"
	cmp -s "$dir/src" "$dir/dst" || fail "$how: the copy differs"
	grep -q "^pagecliff: $dir/src: .* mode dropbehind (outside" "$dir/stats" ||
		fail "$how: the copy was not followed: $(cat "$dir/stats")"
	n=$(grep -c "^pagecliff: $dir/mnt (fuse[.a-z-]*): left alone" "$dir/stats")
	[ "$n" -eq 1 ] || fail "$how: the FUSE mount was said $n times (once): $(cat "$dir/stats")"
	unmount
	echo "$how: SIGTERM ended it in $ms ms;$report"
	report=
}

one_way pids
one_way all
echo "PASS: a FUSE server that never answers cost the watcher nothing"
