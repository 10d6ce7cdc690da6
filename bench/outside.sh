#!/bin/sh
# SPDX-License-Identifier: MIT
# The watcher (pagecliff run --via outside, pagecliff attach) against the two
# kinds of program the shim cannot reach: restic (Go: its own system calls)
# backing up NFILES files into a fresh repository, and a statically linked
# copier (tests/outside/prog.c) copying them.  Four ways, interleaved, each
# in a fresh memory cgroup capped at CAP: plain, `pagecliff run` (the
# watcher), `pagecliff attach` started ATTACH_AFTER seconds in, and nocache.
# Reported per program and way (medians of REPS): seconds, the cgroup's peak
# page cache, what stays cached of the sources and of what was written, for
# attach the watcher's own CPU seconds per GiB moved, and for every way the
# host's CPU seconds per GiB (all CPUs busy, /proc/stat, from the start to
# a `sync` after the program: the program, the watcher, the kernel's
# reclaim and writeback threads).  "plain + sync" is the plain run's seconds
# plus that `sync`, the time the data took to reach the disk without the
# watcher.
#
#   sudo bench/outside.sh [BUILD_DIR]          (default build)
#
# The programs only the kernel's view follows (each file of src/, one call
# or no cursor): cat (coreutils: one copy_file_range per file), sendfile
# (Python's shutil.copyfile: sendfile), node (fs.copyFileSync: a raw
# copy_file_range from a libuv worker), mmap (Python hashing each file
# through a mapping), sqlite (a full scan of a database as large as the
# files, 4 KiB preads through every blob's overflow pages; made once,
# outside the timing), pwrite (Python
# writing NFILES x FILE_MIB with os.pwrite, position never moving).  For
# these, "run" is plain `pagecliff run` (the shim, and as root the kernel's
# view beside it).
#
# Settings by environment: CAP (1g), NFILES (2), FILE_MIB (2048), REPS (3),
# ATTACH_AFTER (1), DIR (/var/tmp), PROGS ("restic copy"; also cat sendfile
# node mmap sqlite pwrite), WAYS ("plain run attach nocache"; nocache where
# installed).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
COPIER=$build/tests/outside/outside-prog-static
CAP=${CAP:-1g}
NFILES=${NFILES:-2}
FILE_MIB=${FILE_MIB:-2048}
REPS=${REPS:-3}
ATTACH_AFTER=${ATTACH_AFTER:-1}
. "$root/bench/lib-cgrun.sh"
rig_tools "$build" "$COPIER"
for p in ${PROGS:-restic}; do
	case $p in
	restic) tool=restic ;;
	sendfile|mmap|pwrite) tool=python3 ;;
	node) tool=node ;;
	sqlite) tool=sqlite3 ;;
	*) tool=sh ;;
	esac
	command -v $tool >/dev/null || { echo "needs $tool for $p" >&2; exit 77; }
done
have_nocache=0
command -v nocache >/dev/null && have_nocache=1

export RESTIC_PASSWORD=pagecliff-bench RESTIC_CACHE_DIR="$work/cache" TMPDIR="$work/tmp"
mkdir "$work/tmp"
random_files "$work/src"

cached_in() {
	s=0
	for f in $(find "$@" -type f 2>/dev/null); do s=$((s + $("$PAGESTAT" cached "$f"))); done
	echo $s
}
evict_all() {
	for f in $(find "$work/src" "$work/out" -type f 2>/dev/null); do "$PAGESTAT" evict "$f"; done
}

# sqlite: a database of about NFILES x FILE_MIB (1 MiB blobs) in src/, made once.
case " ${PROGS:-} " in
*" sqlite "*)
	sqlite3 "$work/src/db.sqlite" "PRAGMA page_size=4096; CREATE TABLE t(x BLOB);
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $total)
		INSERT INTO t SELECT randomblob(1048576) FROM n;" ;;
esac

# The job as one shell command; $1 prog, run in "$work/out".
job() {
	each="for f in '$work'/src/f*; do"
	case $1 in
	restic) echo "restic -q --repo '$work/out/repo' backup '$work/src'" ;;
	copy) echo "$each '$COPIER' copy \"\$f\" '$work/out/'\$(basename \"\$f\") >/dev/null || exit 1; done" ;;
	cat) echo "$each cat \"\$f\" > '$work/out/'\$(basename \"\$f\") || exit 1; done" ;;
	sendfile) echo "python3 -c 'import shutil, sys; [shutil.copyfile(f, sys.argv[1] + \"/\" + f.split(\"/\")[-1]) for f in sys.argv[2:]]' '$work/out' '$work'/src/f*" ;;
	node) echo "node -e 'const fs = require(\"fs\"); for (const f of process.argv.slice(1)) fs.copyFileSync(f, \"$work/out/\" + f.split(\"/\").pop())' '$work'/src/f*" ;;
	mmap) echo "python3 -c 'import hashlib, mmap, sys
for f in sys.argv[1:]:
    with open(f, \"rb\") as h, mmap.mmap(h.fileno(), 0, access=mmap.ACCESS_READ) as m: print(hashlib.sha1(m).hexdigest())' '$work'/src/f* >/dev/null" ;;
	sqlite) echo "sqlite3 '$work/src/db.sqlite' 'PRAGMA cache_size=-2000; SELECT count(DISTINCT substr(x, 1048569, 8)) FROM t;' >/dev/null" ;;
	pwrite) echo "python3 -c 'import os, sys
b = os.urandom(1 << 20)
for i in range($NFILES):
    fd = os.open(sys.argv[1] + \"/w%d\" % i, os.O_WRONLY | os.O_CREAT, 0o644)
    [os.pwrite(fd, b, j << 20) for j in range($FILE_MIB)]
    os.close(fd)' '$work/out'" ;;
	esac
}

# Busy CPU time of the host in clock ticks (user, nice, system, irq,
# softirq, steal of /proc/stat's first line).
busy() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

# one PROG WAY: prints "secs peak src_after out_after watcher_cpu sync_secs host_cpu"
# (bytes, CPU seconds)
one() {
	prog=$1 way=$2 cpu=0 syncs=0
	rm -rf "$work/out"
	mkdir "$work/out"
	[ "$prog" = restic ] && restic -q init --repo "$work/out/repo" >/dev/null
	sync
	evict_all
	b0=$(busy)
	case $way in
	plain) "$CGRUN" "$CAP" "$work/rep" sh -c "$(job "$prog")" ;;
	run)
		via="--via outside"
		case $prog in restic|copy) ;; *) via= ;; esac
		"$CGRUN" "$CAP" "$work/rep" "$PAGECLIFF" run $via -- sh -c "$(job "$prog")" ;;
	nocache) "$CGRUN" "$CAP" "$work/rep" nocache sh -c "$(job "$prog")" ;;
	attach)
		rm -f "$work/pid"
		"$CGRUN" "$CAP" "$work/rep" sh -c "echo \$\$ > '$work/pid'; $(job "$prog")" &
		cg=$!
		sleep "$ATTACH_AFTER"
		/usr/bin/time -f "%U %S" -o "$work/cpu" "$PAGECLIFF" attach "$(cat "$work/pid")" ||
			echo "# attach: the program ended before it" >&2 &
		wait $cg
		wait $!
		cpu=$(tail -n 1 "$work/cpu" | awk '{ print $1 + $2 }') ;;
	esac
	t0=$(date +%s.%N)
	sync
	syncs=$(echo "$(date +%s.%N) $t0" | awk '{ print $1 - $2 }')
	host=$(echo "$(busy) $b0 $(getconf CLK_TCK)" | awk '{ print ($1 - $2) / $3 }')
	echo "$(awk '/^seconds/ { print $2 }' "$work/rep") $(awk '/^peak_cache/ { print $2 }' "$work/rep")" \
		"$(cached_in "$work/src") $(cached_in "$work/out") $cpu $syncs $host"
}

ways="plain run attach"
[ $have_nocache = 1 ] && ways="$ways nocache"
ways=${WAYS:-$ways}
progs=${PROGS:-restic copy}
case " $ways " in *" plain "*) ;; *) echo "WAYS must hold plain (the reference)" >&2; exit 2 ;; esac
echo "$progs over $NFILES x $FILE_MIB MiB in a memory cgroup capped at $CAP;"
echo "$REPS interleaved runs per way, medians; attach $ATTACH_AFTER s in; kernel $(uname -r), $(nproc) CPUs"
r=1
while [ $r -le "$REPS" ]; do
	for prog in $progs; do
		for way in $ways; do
			one $prog $way >> "$work/res.$prog.$way"
			# each run's numbers as it ends, for the spread behind the medians
			echo "# run $r $prog $way: $(tail -n 1 "$work/res.$prog.$way")" >&2
		done
	done
	r=$((r + 1))
done

printf '\n| program | way | seconds | plain + sync | peak cache MiB | sources cached after MiB | written cached after MiB | watcher CPU s per GiB | host CPU s per GiB |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for prog in $progs; do
	ps=$(awk '{ print $1 + $6 }' "$work/res.$prog.plain" | median)
	for way in $ways; do
		f=$work/res.$prog.$way
		cpu=-
		[ "$way" = attach ] && cpu=$(echo "$(col "$f" 5) $total" | awk '{ printf "%.3f", $1 / ($2 / 1024) }')
		host=$(echo "$(col "$f" 7) $total" | awk '{ printf "%.3f", $1 / ($2 / 1024) }')
		printf '| %s | %s | %.2f | %.2f | %d | %d | %d | %s | %s |\n' "$prog" "$way" "$(col "$f" 1)" "$ps" \
			$(($(col "$f" 2) >> 20)) $(($(col "$f" 3) >> 20)) $(($(col "$f" 4) >> 20)) "$cpu" "$host"
	done
done
