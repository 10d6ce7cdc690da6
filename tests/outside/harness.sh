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

# What "the kernel alone" takes of a file while a test runs: the pages a
# kernel thread deleted from the cache (kswapd's reclaim, kdamond's pageout
# of memory it found idle, which takes pages of a window warmed a second
# before when they share a region with idle memory: 3 MiB of a 95 MiB
# window in one run here), counted from the kernel's event of each deletion
# (filemap:mm_filemap_delete_from_page_cache, in a tracefs instance of this
# test's own).  pagecliff never drops a page from a kernel thread: its drops
# are its processes' fadvise calls.
# kernel_loss_start PATH: count from now; kernel_loss OFF LEN: the bytes of
# [OFF, OFF + LEN) of PATH taken since (0 where tracefs is not there).
_kl=
kernel_loss_start() {
	_klf=$1
	if [ -z "$_kl" ]; then
		for _t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
			[ -w "$_t/instances" ] || continue
			mkdir "$_t/instances/pagecliff-test-$$" 2>/dev/null || continue
			_kl=$_t/instances/pagecliff-test-$$
			at_exit "echo 0 >'$_kl/events/enable'; rmdir '$_kl'"
			echo 4096 >"$_kl/buffer_size_kb"
			break
		done
		[ -n "$_kl" ] || return 0
	fi
	_kle=$_kl/events/filemap/mm_filemap_delete_from_page_cache
	echo 0 >"$_kl/tracing_on"
	echo "i_ino == $(stat -c %i "$_klf")" >"$_kle/filter" &&
		echo 1 >"$_kle/enable" && : >"$_kl/trace" && echo 1 >"$_kl/tracing_on" ||
		fail "cannot trace the deletions of $_klf's pages in $_kl"
}
kernel_loss() {
	[ -n "$_kl" ] || { echo 0; return; }
	echo 0 >"$_kl/tracing_on"
	# the task column is COMM-PID; a kernel thread's /proc/PID/cmdline is empty
	_klk=
	for _p in $(sed -n 's/^ *\(.*\)-\([0-9][0-9]*\) *\[.*mm_filemap_delete_from_page_cache:.*/\2/p' "$_kl/trace" | sort -u); do
		[ -r "/proc/$_p/cmdline" ] && [ -z "$(tr -d '\0' <"/proc/$_p/cmdline")" ] && _klk="$_klk $_p"
	done
	awk -v lo="$1" -v hi="$(($1 + $2))" -v dev="$(stat -c %Hd:%Ld "$_klf")" \
		-v page="$(getconf PAGESIZE)" -v kthreads="$_klk" '
	BEGIN { n = split(kthreads, k, " "); for (i = 1; i <= n; i++) kt[k[i]] = 1 }
	/mm_filemap_delete_from_page_cache:/ {
		pid = $1; sub(/.*-/, "", pid)
		if (!(pid in kt)) next
		ofs = -1; order = 0; d = ""
		for (i = 1; i <= NF; i++) {
			if ($i == "dev") d = $(i + 1)
			if ($i ~ /^ofs=/) ofs = substr($i, 5) + 0
			if ($i ~ /^order=/) order = substr($i, 7) + 0
		}
		if (d != dev || ofs < 0) next
		end = ofs + page * 2 ^ order
		if (ofs < lo) ofs = lo
		if (end > hi) end = hi
		if (end > ofs) taken += end - ofs
	}
	END { printf "%d\n", taken }' "$_kl/trace"
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
