# SPDX-License-Identifier: MIT
# What the watcher's tests share: a directory of their own, files of random
# bytes not cached, and the page-cache checks (cachestat through
# shim-pagestat).  After a run at most the budget (64 MiB) plus one batch of
# slack may stay cached per file.
set -u
for v in PAGECLIFF SHIM_PAGESTAT OUTSIDE_PROG; do
	eval "[ -n \"\${$v:-}\" ]" || { echo "FAIL: $v is not set"; exit 1; }
done
MIB=1048576
LIMIT=$(((64 + 16) * MIB))
. "$(dirname "$0")/../harness.sh"
bg=
cleanup() {
	for p in $bg; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
}
make_tmpdir dir "${TMPDIR:-/var/tmp}"
chmod 755 "$dir"
at_exit cleanup

# mkfile PATH MIB: random bytes, written back and not cached.
mkfile() {
	head -c $(($2 * MIB)) /dev/urandom > "$1" && chmod 644 "$1" &&
		"$SHIM_PAGESTAT" evict "$1" || fail "cannot make $1"
}
cached() { "$SHIM_PAGESTAT" cached "$@"; }
# at_most PATH: the file has at most LIMIT bytes cached.
at_most() {
	_c=$(cached "$1") || exit $?
	[ "$_c" -le "$LIMIT" ] || fail "$1: $((_c / MIB)) MiB cached after the run (at most $((LIMIT / MIB)))"
	report="$report $(basename "$1") $((_c / MIB)) MiB"
}
report=
# warm PATH OFF LEN CMD...: run CMD (a read of PATH) up to five times, until
# the LEN bytes of PATH at OFF are cached; fails when CMD does.
warm() {
	_f=$1 _off=$2 _len=$3
	shift 3
	for _i in 1 2 3 4 5; do
		"$@" || fail "cannot warm $_f"
		[ "$(cached "$_f" "$_off" "$_len")" -eq "$_len" ] && break
	done
}

# two_files CMD: files a and b of 256 MiB in $dir, then `outside-prog CMD a
# b 256` (static when built) under the watcher, its output in $dir/out, the
# --stats lines in $dir/stats.
two_files() {
	mkfile "$dir/a" 256
	mkfile "$dir/b" 256
	"$PAGECLIFF" run --via outside --stats="$dir/stats" -- "${OUTSIDE_STATIC:-$OUTSIDE_PROG}" \
		"$1" "$dir/a" "$dir/b" 256 >"$dir/out"
}

# attach_to PID WHY: `pagecliff attach` (--stats in $dir/stats) to the
# program PID started in the background, until it ends; fails with WHY when
# the program fails, and when attach does.
attach_to() {
	bg=$1
	sleep 0.5
	"$PAGECLIFF" attach --stats="$dir/stats" "$1" 2>"$dir/err"
	_rc=$?
	wait "$1" || fail "$2"
	bg=
	[ $_rc -eq 0 ] || fail "attach exited $_rc: $(cat "$dir/err")"
}

# pos_of PID FD: the descriptor's position, or 0.
pos_of() { sed -n 's/^pos:[[:space:]]*//p' "/proc/$1/fdinfo/$2" 2>/dev/null || echo 0; }
