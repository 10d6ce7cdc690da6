#!/bin/bash
# SPDX-License-Identifier: MIT
# A short real run as root: RAM testbed, 256 MiB memory cap, buffered, direct
# and auto each reading the whole data set once (not for a time: on a loaded
# machine a few seconds may not fill the cap).  The JSON carries every figure and a boolean cliff per
# mode; buffered fills the cache to its cap and is reclaimed, direct and auto
# keep it small and have no cliff; the timeline and the SVG match the JSON;
# nothing is left behind.
. "$(dirname "$0")/harness.sh"
needs_root "for the testbed and the memory cgroup"
[ -e /dev/loop-control ] || skip "no loop devices"
tmpdir
"$PAGECLIFF" bench --testbed ram:1g --mem-limit 256m --numjobs 2 --size 384m \
	--runtime 200 --interval 100ms --output-format json -o "$T/r.json" \
	--timeline "$T/t.csv" --plot "$T/p.svg" -q 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || fail "exit $rc: $(cat "$T/err")"
check_nothing_left
python3 - "$T" <<'PY' || fail "report checks"
import csv, json, sys, xml.etree.ElementTree as ET
T = sys.argv[1]
j = json.load(open(T + "/r.json"))
modes = {m["mode"]: m for m in j["modes"]}
assert list(modes) == ["buffered", "direct", "auto"], list(modes)
cap = 256 << 20
assert j["job"]["mem_limit"] == cap and j["job"]["cgroup_version"] in (1, 2), j["job"]
assert j["job"]["mem_align"] == 0 and j["job"]["threads"] == 2
assert "loop" in j["job"]["testbed"] and "tmpfs" in j["job"]["testbed"]
keys = ["cliff", "verdict", "bytes", "seconds", "gbps_avg", "gbps_median", "gbps_min",
        "gbps_before_cache_full", "gbps_after_cache_full", "cpu_s_per_gib_process",
        "cpu_s_per_gib_system", "cpu_s_per_gib_kswapd", "peak_page_cache_bytes",
        "pages_reclaimed", "intervals", "strategy", "reason", "cold"]
ikeys = ["t", "dt", "gbps", "dir_gbps", "cpu_usr_pct", "cpu_sys_pct", "cpu_iowait_pct",
         "cpu_irq_pct", "cpu_softirq_pct", "cpu_idle_pct", "process_cpu_s", "kswapd_cpu_s",
         "page_cache_bytes", "reclaim_pages_s", "pgscan_direct_s", "pgsteal_direct_s",
         "pgscan_kswapd_s", "pgsteal_kswapd_s", "allocstall_s", "psi_some_pct",
         "psi_full_pct", "threads_in_d_state"]
rows = 0
for name, m in modes.items():
    for k in keys:
        assert k in m, (name, k)
    assert isinstance(m["cliff"], bool), (name, m["cliff"])
    assert m["verdict"].startswith(name + ": "), m["verdict"]
    assert m["cold"], (name, "not cold", m["cached_before_bytes"])
    assert m["bytes"] == 2 * 384 << 20, (name, m["bytes"])
    assert len(m["intervals"]) >= 1, (name, len(m["intervals"]))
    for i in m["intervals"]:
        for k in ikeys:
            assert k in i, (name, k)
    total = sum(i["bytes"] for i in m["intervals"])
    # every byte in some row: a tail too short for a row goes into the last
    assert total == m["bytes"], (name, total, m["bytes"])
    rows += len(m["intervals"])
    print("%s: %.2f GB/s median, peak cache %d MiB, cliff %s: %s" % (
        name, m["gbps_median"], m["peak_page_cache_bytes"] >> 20, m["cliff"], m["verdict"]))
b, d, a = modes["buffered"], modes["direct"], modes["auto"]
assert b["peak_page_cache_bytes"] >= 0.85 * cap, b["peak_page_cache_bytes"]
assert b["peak_page_cache_bytes"] <= cap, b["peak_page_cache_bytes"]
assert b["pages_reclaimed"] > (256 << 20) / 4096, b["pages_reclaimed"]
assert d["peak_page_cache_bytes"] < 32 << 20, d["peak_page_cache_bytes"]
assert a["peak_page_cache_bytes"] < 64 << 20, a["peak_page_cache_bytes"]
assert d["cliff"] is False and a["cliff"] is False
assert len(j["verdict"]) == 3 and j["verdict"][0] == b["verdict"]
with open(T + "/t.csv") as f:
    t = list(csv.DictReader(f))
assert len(t) == rows, (len(t), rows)
assert [r["mode"] for r in t][0] == "buffered"
svg = ET.parse(T + "/p.svg").getroot()
assert svg.tag == "{http://www.w3.org/2000/svg}svg", svg.tag
lines = svg.findall("{http://www.w3.org/2000/svg}polyline")
assert len(lines) == 9, len(lines)   # throughput, cache, reclaim per mode
PY
echo "PASS: capped run"
