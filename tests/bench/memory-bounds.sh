#!/bin/bash
# SPDX-License-Identifier: MIT
# A job whose buffers cannot fit is refused before anything is made, with
# one line that shows the sum (bench --size 1G --bs 512M --mode direct
# --mem-limit 256M would be killed by its own cap); absurd --iodepth and --bs are
# refused at their documented maximum; a job that fits still runs.
. "$(dirname "$0")/harness.sh"
tmpdir
USAGE_GREP=-xF		# the whole line
expect_usage "pagecliff: --mem-limit 256.0 MiB cannot hold the job's buffers: 1 thread x (512.0 MiB read buffer + 64.0 MiB of direct reads in flight) + 16 MiB = 592.0 MiB, more than half the cap; use a smaller --bs or --numjobs, or a larger --mem-limit" \
	-d "$T" --size 1G --bs 512M --mode direct --mem-limit 256M
# buffered needs no reads in flight: 4 x (64 MiB + 4 KiB) + 16 MiB
expect_usage "pagecliff: --mem-limit 256.0 MiB cannot hold the job's buffers: 4 threads x (64.0 MiB read buffer + 0 B of direct reads in flight) + 16 MiB = 272.0 MiB, more than half the cap; use a smaller --bs or --numjobs, or a larger --mem-limit" \
	-d "$T" --size 1G --bs 64M --numjobs 4 --mode buffered --mem-limit 256M
expect_usage "pagecliff: bad --iodepth '4096': a whole number from 1 to 1024" -d "$T" --iodepth 4096
expect_usage "pagecliff: bad --bs '2g': a size from 512 bytes, in fio units (4k, 1m, 20g)" -d "$T" --size 4g --bs 2g
avail_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
threads=$(( avail_kib / (1 << 20) / 2 + 2 ))
[ $threads -le 64 ] || skip "$n refusals checked; too much memory to ask for more than half with 64 threads"
n=$((n + 1))
"$PAGECLIFF" bench -d "$T" --size 1g --bs 1g --numjobs $threads --mode buffered >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && grep -q "^pagecliff: the job's buffers need .* more than half of the .* available; use a smaller --bs or --numjobs$" "$T/err" ||
	fail "$threads x 1 GiB buffers: $(cat "$T/err")"
[ ! -e "$T/pagecliff-bench" ] || fail "created $T/pagecliff-bench"
# Within bounds, a direct job with a deep queue runs and reads.
n=$((n + 1))
"$PAGECLIFF" bench -d "$T" --size 8m --bs 64k --iodepth 1024 --mode direct -q \
	--output-format json -o "$T/r.json" 2>"$T/err" || fail "iodepth 1024: $(cat "$T/err")"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["modes"][0]; assert m["bytes"] == 8 << 20, m["bytes"]' \
	"$T/r.json" || fail "iodepth 1024 did not read the file"
echo "PASS: $n memory bounds checked before anything was made"
