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
. "$(dirname "$0")/../lib.sh"
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
# pos_of PID FD: the descriptor's position, or 0.
pos_of() { sed -n 's/^pos:[[:space:]]*//p' "/proc/$1/fdinfo/$2" 2>/dev/null || echo 0; }
