#!/bin/bash
# SPDX-License-Identifier: MIT
# A rank whose reads end before another's: its seconds are its own active
# time, not the phase's, so its average lies between its slowest and its
# fastest interval.  Two ranks, 8 and 18 MiB ({rank} in --size), read 4 KiB
# at a time direct, each within one long interval: the round that ends the
# phase comes when both are done, so the rank done first waits in it.
. "$(dirname "$0")/harness.sh"
tmpdir
mkdir -p "$T/d0" "$T/d1"
mpirun_np 2 120 -d "$T/d{rank}" --size '{rank}8m' -m direct --bs 4k --ioengine sync \
	--interval 5s -q --no-trace --output-format json -o "$T/out.json" 2>"$T/err" ||
	fail "exit $?: $(tail -5 "$T/err")"
python3 - "$T/out.json" <<'PY' || fail "the averages"
import json, sys
d = json.load(open(sys.argv[1]))
for h in d["hosts"]:
    for p in h["modes"]:
        g = [i["gbps"] for i in p["intervals"]]
        assert g and p["bytes"] > 0, (h["rank"], p)
        lo, hi, avg = min(g), max(g), p["gbps_avg"]
        print("rank %d %s: %d B in %.3f s, avg %.5f, intervals %s" %
              (h["rank"], p["mode"], p["bytes"], p["seconds"], avg, g))
        assert abs(p["gbps_min"] - lo) <= 1e-9 * hi, (p["gbps_min"], lo)
        assert lo * (1 - 1e-6) <= avg <= hi * (1 + 1e-6), \
            ("rank %d: average %.6f outside its intervals' %.6f..%.6f" % (h["rank"], avg, lo, hi))
PY
echo "ok"
