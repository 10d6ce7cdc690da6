#!/bin/bash
# SPDX-License-Identifier: MIT
# Sizes in fio's units reach the job as the same byte counts, and the data
# files have exactly --size bytes.
. "$(dirname "$0")/harness.sh"
tmpdir
check() {
	local size="$1" bs="$2" want_size="$3" want_bs="$4"
	"$PAGECLIFF" bench -d "$T" --size "$size" --bs "$bs" --mode direct -q --keep \
		--interval 100ms --output-format json -o "$T/r.json" 2>"$T/err" ||
		fail "--size $size --bs $bs: $(cat "$T/err")"
	python3 - "$T/r.json" "$want_size" "$want_bs" <<'PY' || fail "--size $size --bs $bs"
import json, sys
j = json.load(open(sys.argv[1]))
size, bs = int(sys.argv[2]), int(sys.argv[3])
assert j["job"]["size"] == size, (j["job"]["size"], size)
assert j["job"]["bs"] == bs, (j["job"]["bs"], bs)
assert j["modes"][0]["bytes"] == size, j["modes"][0]["bytes"]
PY
	[ "$(stat -c %s "$T/pagecliff-bench/job0.dat")" = "$want_size" ] ||
		fail "file has $(stat -c %s "$T/pagecliff-bench/job0.dat") bytes, want $want_size"
}
check 1m 64k 1048576 65536
check 1MiB 64KiB 1048576 65536
check 2MB 4k 2097152 4096
check 3145728 1M 3145728 1048576
check 1024K 512b 1048576 512
rm -f "$T/pagecliff-bench/"job*.dat
echo "PASS: fio size units"
