#!/bin/sh
# SPDX-License-Identifier: MIT
# tar over files larger than a memory cgroup's cap, three ways in one
# invocation, interleaved: plain, under nocache (Debian package nocache, an
# LD_PRELOAD library that drops pages at close), and under
# `pagecliff run` (drops behind the reader while it reads).  For each: the
# peak page cache of the cgroup while tar ran, its throughput, what of the
# files is still cached afterwards, and whether the output is the same.
# Then three writers the same way: cp -r, tar x and rsync -r of the folder
# (what of source and copy stays cached; the copy's sha256 against the plain one).
#
#   sudo bench/shim-vs-nocache.sh [BUILD_DIR]       (default build-shim, else build)
#
# Settings by environment: CAP (cgroup memory limit, default 256m), NFILES (4),
# FILE_MIB (384), REPS (3; medians are printed), DIR (where the files go,
# default /var/tmp).  The timed runs pipe tar into cksum, which keeps up with
# tar where sha256sum (about 0.2 GB/s here) would not; one sha256sum run per
# way checks `... tar cf - DIR | sha256sum` at the end.  Then the start-up
# cost: /bin/true spawned 200 times plainly, with each library preloaded, and
# through `pagecliff run`.  Last, stdio writers that flush every 4 KiB (seq,
# awk, tail -c +1, a C program writing with fprintf/fputs/fwrite/putc): time
# per way and its ratio to the plain run, and what of the output stays
# cached.  ONLY=stdio runs that part alone.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-}
if [ -z "$build" ]; then
	for b in build-shim build; do
		[ -x "$root/$b/cli/pagecliff" ] && build=$root/$b && break
	done
fi
[ -n "$build" ] || { echo "no build folder with cli/pagecliff; pass one" >&2; exit 2; }
CAP=${CAP:-256m}
NFILES=${NFILES:-4}
FILE_MIB=${FILE_MIB:-384}
REPS=${REPS:-3}
. "$root/bench/lib-cgrun.sh"
rig_tools "$build"
command -v nocache >/dev/null || { echo "needs nocache (apt-get install nocache)" >&2; exit 77; }

# interleave FN TAG: REPS rounds of FN WAY JOB for each of $jobs and each
# way, appended to $work/TAG.JOB.WAY.
interleave() {
	r=1
	while [ $r -le "$REPS" ]; do
		for job in $jobs; do
			for way in plain nocache pagecliff; do
				"$1" $way "$job" >> "$work/$2.$job.$way"
			done
		done
		r=$((r + 1))
	done
}

# The command prefix of WAY: plain, nocache, pagecliff.
prefix() {
	case $1 in
	nocache) echo nocache ;;
	pagecliff) echo "$PAGECLIFF run --" ;;
	esac
}

# Stdio writers: one WAY JOB in a fresh cgroup; prints "secs after sum".
STDIO=$build/tests/field/field-stdio
# stdio_cmd JOB IN OUT STDIO: the command line of writer JOB, which reads IN
# and writes OUT (STDIO: the field-stdio program).
stdio_cmd() {
	case $1 in
	seq) echo "seq 1 20000000 > $3" ;;
	awk) echo "awk '{ print \$1, \$1 }' $2 > $3" ;;
	tail) echo "tail -c +1 $2 > $3" ;;
	stdio) echo "$4 write $3 256" ;;
	esac
}
sone() {
	way=$1
	job=$2
	pre=$(prefix "$way")
	rm -f "$work/s.out"
	"$PAGESTAT" evict "$work/s.in"
	# shellcheck disable=SC2086
	"$CGRUN" "$CAP" "$work/rep" $pre sh -c "$(stdio_cmd "$job" "$work/s.in" "$work/s.out" "$STDIO")"
	secs=$(awk '/^seconds/ { print $2 }' "$work/rep")
	echo "$secs $("$PAGESTAT" cached "$work/s.out") $(sha256sum < "$work/s.out" | cut -c1-16)"
}

stdio_writers() {
	seq 1 8000000 > "$work/s.in"	# 64 MB of text lines
	jobs="seq awk tail"
	[ -x "$STDIO" ] && jobs="$jobs stdio"
	interleave sone s
	printf '\n| stdio writer | how | seconds | x plain | output cached after MiB | same sha256 |\n'
	printf '|---|---|---|---|---|---|\n'
	for job in $jobs; do
		plain=$(col "$work/s.$job.plain" 1)
		ref=$(awk 'NR == 1 { print $3 }' "$work/s.$job.plain")
		for way in plain nocache pagecliff; do
			f=$work/s.$job.$way
			secs=$(col "$f" 1)
			after=$(col "$f" 2)
			printf '| %s | %s | %s | %.2f | %d | %s |\n' "$(stdio_cmd "$job" IN OUT field-stdio)" "$way" "$secs" \
				"$(echo "$secs $plain" | awk '{ print $1 / $2 }')" $((after >> 20)) \
				"$(same "$f" 3 "$ref")"
		done
	done
}

if [ "${ONLY:-}" = stdio ]; then
	stdio_writers
	exit 0
fi
random_files "$work/big"

evict_all() {
	for f in "$work"/big/*; do "$PAGESTAT" evict "$f"; done
}

cached_all() {
	s=0
	for f in "$work"/big/*; do s=$((s + $("$PAGESTAT" cached "$f"))); done
	echo $s
}

# one WAY SUM: tar in a fresh cgroup, piped to SUM; prints "peak secs after sum"
one() {
	way=$1
	sum=$2
	pre=$(prefix "$way")
	evict_all
	# shellcheck disable=SC2086
	out=$("$CGRUN" "$CAP" "$work/rep" $pre tar cf - -C "$work" big | $sum | cut -d' ' -f1)
	peak=$(awk '/^peak_cache/ { print $2 }' "$work/rep")
	secs=$(awk '/^seconds/ { print $2 }' "$work/rep")
	echo "$peak $secs $(cached_all) $out"
}

echo "tar of $NFILES files of $FILE_MIB MiB ($total MiB) in a memory cgroup capped at $CAP;"
echo "$REPS interleaved runs per way, medians; kernel $(uname -r), $(nproc) CPUs"
r=1
while [ $r -le "$REPS" ]; do
	for way in plain nocache pagecliff; do
		one $way cksum >> "$work/res.$way"
	done
	r=$((r + 1))
done
for way in plain nocache pagecliff; do
	one $way sha256sum > "$work/sha.$way"
done

ref=$(awk '{ print $4 }' "$work/sha.plain")
printf '\n| how | peak page cache MiB | seconds | MB/s | cached after MiB | same sha256 |\n'
printf '|---|---|---|---|---|---|\n'
for way in plain nocache pagecliff; do
	peak=$(col "$work/res.$way" 1)
	secs=$(col "$work/res.$way" 2)
	after=$(col "$work/res.$way" 3)
	crcs=$(awk '{ print $4 }' "$work/res.$way" | sort -u | wc -l)
	sha=$(awk '{ print $4 }' "$work/sha.$way")
	ok=no
	[ "$sha" = "$ref" ] && [ "$crcs" -eq 1 ] && ok=yes
	case $way in
	plain) how="tar cf - DIR" ;;
	nocache) how="nocache tar cf - DIR" ;;
	pagecliff) how="pagecliff run -- tar cf - DIR" ;;
	esac
	printf '| %s | %d | %s | %.0f | %d | %s |\n' "$how" $((peak >> 20)) "$secs" \
		"$(echo "$total $secs" | awk '{ print $1 * 1048576 / $2 / 1e6 }')" $((after >> 20)) "$ok"
done

# Writers: one WAY JOB run in a fresh cgroup; prints "peak secs after sum", where
# after is what of the source and the copy stays cached and sum the copy's sha256.
tar cf "$work/big.tar" -C "$work" big
"$PAGESTAT" evict "$work/big.tar"
copy_sum() {
	(cd "$work/out" && find . -type f | sort | xargs sha256sum) | sha256sum | cut -d' ' -f1
}
cached_tree() {
	s=0
	for f in "$@"; do s=$((s + $("$PAGESTAT" cached "$f"))); done
	echo $s
}
wone() {
	way=$1
	job=$2
	pre=$(prefix "$way")
	rm -rf "$work/out"
	mkdir "$work/out"
	evict_all
	"$PAGESTAT" evict "$work/big.tar"
	case $job in
	cp) set -- cp -r "$work/big" "$work/out/" ;;
	tarx) set -- tar xf "$work/big.tar" -C "$work/out" ;;
	rsync) set -- rsync -r "$work/big" "$work/out/" ;;
	esac
	# shellcheck disable=SC2086
	"$CGRUN" "$CAP" "$work/rep" $pre "$@"
	peak=$(awk '/^peak_cache/ { print $2 }' "$work/rep")
	secs=$(awk '/^seconds/ { print $2 }' "$work/rep")
	after=$(cached_tree "$work"/big/* "$work/big.tar" "$work"/out/big/*)
	echo "$peak $secs $after $(copy_sum)"
}

if command -v rsync >/dev/null; then jobs="cp tarx rsync"; else jobs="cp tarx"; fi
interleave wone w
printf '\n| writer | how | peak page cache MiB | seconds | MB/s | source and copy cached after MiB | same sha256 |\n'
printf '|---|---|---|---|---|---|---|\n'
for job in $jobs; do
	ref=$(awk 'NR == 1 { print $4 }' "$work/w.$job.plain")
	for way in plain nocache pagecliff; do
		f=$work/w.$job.$way
		peak=$(col "$f" 1)
		secs=$(col "$f" 2)
		after=$(col "$f" 3)
		case $job in
		cp) what="cp -r DIR OUT" ;;
		tarx) what="tar xf DIR.tar -C OUT" ;;
		rsync) what="rsync -r DIR OUT" ;;
		esac
		printf '| %s | %s | %d | %s | %.0f | %d | %s |\n' "$what" "$way" $((peak >> 20)) "$secs" \
			"$(echo "$total $secs" | awk '{ print $1 * 1048576 / $2 / 1e6 }')" $((after >> 20)) \
			"$(same "$f" 4 "$ref")"
	done
done

stdio_writers

# Start-up: /bin/true spawned 200 times each way, interleaved, median in us.
py=$(command -v python3 || true)
[ -n "$py" ] || exit 0
"$py" - "$build/preload/libpagecliff-preload.so" "$PAGECLIFF" <<'PY'
import os, statistics, sys, time
shim, pagecliff = sys.argv[1], sys.argv[2]
nocache = "/usr/lib/nocache/nocache.so"
base = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
ways = [("/bin/true", ["/bin/true"], base),
        ("LD_PRELOAD=nocache.so /bin/true", ["/bin/true"], dict(base, LD_PRELOAD=nocache)),
        ("LD_PRELOAD=libpagecliff-preload.so /bin/true", ["/bin/true"], dict(base, LD_PRELOAD=shim)),
        ("pagecliff run -- /bin/true", [pagecliff, "run", "--", "/bin/true"], base)]
times = {w[0]: [] for w in ways}
for _ in range(int(os.environ.get("RUNS", "200"))):
    for name, argv, env in ways:
        t = time.perf_counter_ns()
        pid = os.posix_spawn(argv[0], argv, env)
        os.waitpid(pid, 0)
        times[name].append((time.perf_counter_ns() - t) / 1000)
print("\n| start-up, 200 runs | median us | p90 us |\n|---|---|---|")
for name, _, _ in ways:
    v = sorted(times[name])
    print("| %s | %.0f | %.0f |" % (name, statistics.median(v), v[int(len(v) * 0.9)]))
PY
