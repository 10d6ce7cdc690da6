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
# Settings by environment: CAP (1g), NFILES (2), FILE_MIB (2048), REPS (3),
# ATTACH_AFTER (1), DIR (/var/tmp), PROGS ("restic copy"), WAYS ("plain run
# attach nocache"; nocache where installed).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
PAGECLIFF=$build/cli/pagecliff
CGRUN=$build/tests/shim/shim-cgrun
PAGESTAT=$build/tests/shim/shim-pagestat
COPIER=$build/tests/outside/outside-prog-static
CAP=${CAP:-1g}
NFILES=${NFILES:-2}
FILE_MIB=${FILE_MIB:-2048}
REPS=${REPS:-3}
ATTACH_AFTER=${ATTACH_AFTER:-1}
[ "$(id -u)" = 0 ] || { echo "needs root (memory cgroups)" >&2; exit 77; }
for x in "$PAGECLIFF" "$CGRUN" "$PAGESTAT" "$COPIER"; do
	[ -x "$x" ] || { echo "missing $x: build first (ninja -C $build)" >&2; exit 2; }
done
case " ${PROGS:-restic} " in
*" restic "*) command -v restic >/dev/null || { echo "needs restic (apt-get install restic)" >&2; exit 77; } ;;
esac
have_nocache=0
command -v nocache >/dev/null && have_nocache=1

. "$root/bench/lib-cgrun.sh"
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

# The job as one shell command; $1 prog, run in "$work/out".
job() {
	case $1 in
	restic) echo "restic -q --repo '$work/out/repo' backup '$work/src'" ;;
	copy) echo "for f in '$work'/src/*; do '$COPIER' copy \"\$f\" '$work/out/'\$(basename \"\$f\") >/dev/null || exit 1; done" ;;
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
	run) "$CGRUN" "$CAP" "$work/rep" "$PAGECLIFF" run --via outside -- sh -c "$(job "$prog")" ;;
	nocache) "$CGRUN" "$CAP" "$work/rep" nocache sh -c "$(job "$prog")" ;;
	attach)
		rm -f "$work/pid"
		"$CGRUN" "$CAP" "$work/rep" sh -c "echo \$\$ > '$work/pid'; $(job "$prog")" &
		cg=$!
		sleep "$ATTACH_AFTER"
		/usr/bin/time -f "%U %S" -o "$work/cpu" "$PAGECLIFF" attach "$(cat "$work/pid")" &
		wait $cg
		wait $!
		cpu=$(awk '{ print $1 + $2 }' "$work/cpu") ;;
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
echo "restic backup and a static copy of $NFILES x $FILE_MIB MiB in a memory cgroup capped at $CAP;"
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
