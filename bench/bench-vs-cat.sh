#!/bin/bash
# SPDX-License-Identifier: MIT
# bench's own cost: `pagecliff bench --rw read` against JOBS concurrent
# `pagecliff cat` reading the same files with the same library, the same
# mode and API, interleaved, REPS rounds, every run cold (POSIX_FADV_DONTNEED
# of the files via dd iflag=nocache, the cgroup's cache full of the filler:
# bench/lib.sh's cold()), every run in the same memory cgroup.  Prints per
# contender the median GB/s (min-max) and the ratios bench / cat: bench's
# own figure (bytes of the phase / its time, what bench reports) and bench's
# whole process (wall time from exec to exit, set-up included, as cat's is),
# with and without its kernel-event tracing (--no-trace: no BPF to load);
# and the process CPU (user + system, /usr/bin/time) per GiB, which a busy
# machine disturbs less than the wall time; and the huge pages faulted in
# the run (/proc/vmstat thp_fault_alloc, system-wide).
#
# usage: sudo bench/bench-vs-cat.sh [ram | DIR]
# env: REPS (5), SIZE per thread (1g), JOBS (cores), DEVICES (1), CAP (1g),
#      MODE (auto), APIS ("copy zerocopy"), PAGECLIFF, OUT (raw TSV),
#      PERF (a folder: one `perf record -g` of bench and of the cats per API)
set -u
cd "$(dirname "$0")/.." || exit 1

REPS=${REPS:-5}
SIZE=${SIZE:-1g}
MODE=${MODE:-auto}
APIS=${APIS:-copy zerocopy}
NAME=bench-vs-cat.sh
. bench/lib.sh
prepare "${1:-ram}"

cats() {	# api
	local c="" f flag=
	[ "$1" = copy ] && flag=--copy
	for f in "${FILES[@]}"; do c="$c $PC cat --mode $MODE $flag $f >/dev/null &"; done
	echo "$c wait"
}

bench_cmd() {	# api json [bench options]
	echo "$PC bench --directory $DIRLIST --numjobs $PER_DEV --size $SIZE --bs 1m --mode $MODE --api $1 --keep --quiet --output-format json -o $2 ${3:-} >/dev/null"
}

# The kernel's count of huge pages given to page faults so far: fresh huge
# pages are what a run's first touch costs on a VM (PERFORMANCE.md).
thp_faults() {
	awk '$1 == "thp_fault_alloc" { print $2 }' /proc/vmstat
}

# one NAME COMMAND [JSON]: a cold run in the cgroup; a row of NAME, wall
# GB/s, bench's own GB/s from JSON (or - for cat), CPU s/GiB, huge-page faults.
one() {
	local t0 t1 u s own=- total=$((JOBS * size_b)) thp
	cold "${FILES[@]}"
	thp=$(thp_faults)
	t0=$(date +%s.%N)
	/usr/bin/time -f "%U %S" -o "$W/time" sh -c "$(cg_script "$2")" ||
		{ echo "bench/$NAME: $1 failed" >&2; return; }
	t1=$(date +%s.%N)
	read -r u s <"$W/time"
	[ -n "${3:-}" ] && own=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); m=r["modes"][0]; print(m["bytes"] / m["seconds"] / 1e9 if m["bytes"] == int(sys.argv[2]) else "short")' "$3" "$total")
	thp=$(($(thp_faults) - thp))
	printf "%s\t%s\t%s\t%s\t%s\n" "$1" "$(echo "$total / ($t1 - $t0) / 1000000000" | bc -l)" "$own" \
		"$(echo "($u + $s) * 1073741824 / $total" | bc -l)" "$thp" >>"$W/raw.tsv"
}

echo "# bench/$NAME ${1:-ram}: $JOBS threads x $SIZE on $DEVICES device(s), mode $MODE, 1 MiB reads, cap $CAP, $REPS rounds, $(uname -r), $(nproc) CPUs"
for ((r = 1; r <= REPS; r++)); do
	for api in $APIS; do
		# alternate the order, so that none always follows another
		runs=("cat-$api|$(cats "$api")|"
			"bench-$api|$(bench_cmd "$api" "$W/b.json")|$W/b.json"
			"bench-$api-notrace|$(bench_cmd "$api" "$W/b.json" --no-trace)|$W/b.json")
		[ $((r % 2)) = 0 ] && runs=("${runs[2]}" "${runs[1]}" "${runs[0]}")
		for c in "${runs[@]}"; do
			IFS='|' read -r name cmd json <<<"$c"
			one "$name" "$cmd" "$json"
		done
	done
	printf "\rround %d/%d" "$r" "$REPS" >&2
done
printf "\r%20s\r" "" >&2
[ -n "${OUT:-}" ] && cp "$W/raw.tsv" "$OUT"
python3 - "$W/raw.tsv" <<'PY'
import statistics, sys
wall, own, cpu, thp = {}, {}, {}, {}
for line in open(sys.argv[1]):
    name, w, o, c, t = line.rstrip("\n").split("\t")
    wall.setdefault(name, []).append(float(w))
    cpu.setdefault(name, []).append(float(c))
    thp.setdefault(name, []).append(int(t))
    if o not in ("-", "short"):
        own.setdefault(name, []).append(float(o))
med = lambda v: statistics.median(v)
print("| contender | GB/s, whole process, median (min-max) | GB/s, bench's own figure, median (min-max) | process CPU s/GiB, median | huge pages faulted, median (min-max) |")
print("|---|---|---|---|---|")
for n in wall:
    o = own.get(n)
    ostr = f"{med(o):.2f} ({min(o):.2f}-{max(o):.2f})" if o else "-"
    print(f"| {n} | {med(wall[n]):.2f} ({min(wall[n]):.2f}-{max(wall[n]):.2f}) | {ostr} | {med(cpu[n]):.3f} "
          f"| {med(thp[n]):.0f} ({min(thp[n])}-{max(thp[n])}) |")
print()
for api in ("copy", "zerocopy"):
    c = f"cat-{api}"
    for b in (f"bench-{api}", f"bench-{api}-notrace"):
        if b in wall and c in wall:
            line = f"{b} / {c}: whole process {med(wall[b]) / med(wall[c]):.3f}"
            if b in own:
                line += f", bench's own figure {med(own[b]) / med(wall[c]):.3f}"
            line += f"; process CPU per GiB {med(cpu[b]) / med(cpu[c]):.3f}"
            print(line)
PY
if [ -n "${PERF:-}" ]; then
	command -v perf >/dev/null || die "PERF given but perf is not installed"
	mkdir -p "$PERF"
	for api in $APIS; do
		cold "${FILES[@]}"
		sh -c "$(cg_script "perf record -q -e cpu-clock -g -o $PERF/bench-$api.data -- sh -c '\''$(bench_cmd "$api" "$W/p.json")'\''")"
		cold "${FILES[@]}"
		sh -c "$(cg_script "perf record -q -e cpu-clock -g -o $PERF/cat-$api.data -- sh -c '\''$(cats "$api")'\''")"
	done
	echo "perf data in $PERF: perf report -i $PERF/bench-copy.data --sort comm,dso,sym"
fi
