#!/bin/sh
# SPDX-License-Identifier: MIT
# doctor reports proactive reclaim that evicts page cache behind every tool's
# back, with thresholds computed from the files: DAMON schemes in sysfs
# (on a fixture of this machine's tree, on an edited tree with every case,
# and on the live tree, recomputed here from /sys), DAMON_RECLAIM, the
# memory.reclaim counter, MGLRU's min_ttl_ms.
set -u
. "$(dirname "$0")/harness.sh"

# has TREE LINE: doctor's text on TREE has LINE, whole
has() {
	"$pc" doctor --root "$fx/$1" --sample-ms 0 >"$tmp/$1.txt" 2>"$tmp/err" ||
		fail "doctor --root $1: exit $? ($(cat "$tmp/err"))"
	grep -qxF -- "$2" "$tmp/$1.txt" || fail "$1: no line '$2'"
}

# this machine's tree (copied from /sys): pageout after 12 x 5 s, 128 MiB/s
has host "  warn   DAMON kdamond 0 pages out memory idle >= 60 s (12 x 5 s aggregation), up to 128 MiB and 50 ms of CPU per 1 s"
has host "         evidence: /sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0: state on, operations paddr, sampling 500 ms; action pageout, age >= 12, accessed in 0 to 1 of 10 samples per aggregation; no watermarks: always active; filters anon reject, unmapped allow: unmapped page cache acted on; bytes applied unknown (stats not refreshed)"
# every case: off, filtered out, depending on a memcg, watermarks, stats
has reclaim "  info   DAMON kdamond 0 pages out memory idle >= 2 s (20 x 100 ms aggregation), no quota (kdamond off)"
has reclaim "  info   DAMON kdamond 1 pages out memory idle >= 60 s (12 x 5 s aggregation), up to 128 MiB and 50 ms of CPU per 1 s (not page cache)"
has reclaim "  warn   DAMON kdamond 1 pages out memory idle >= 30 min (360 x 5 s aggregation), up to 1 GiB per 1 s"
grep -qF "watermarks: active once free_mem_rate falls below 400 (mid) until it rises above 500 (high), never below 200 (low) per mille; filters memcg allow: unmapped page cache depends on the filters; applied to 734003200 bytes so far" "$tmp/reclaim.txt" ||
	fail "reclaim: scheme 1's evidence"
has reclaim "  warn   DAMON_RECLAIM pages out memory idle >= 2 min, up to 128 MiB per 1 s"
has reclaim "  info   memory.reclaim took 5000 pages since boot"
has reclaim "         evidence: /sys/kernel/mm/lru_gen/enabled = 0x0007, min_ttl_ms = 1000: the working set of the last 1000 ms is kept; when it cannot be, the OOM killer runs instead of reclaim"
# nothing to see: said, with what was looked at
has old "  info   proactive reclaim unknown"
grep -q "proactive" "$tmp/host.txt" && fail "host: a 'no proactive reclaim' line next to DAMON's warning"
if grep -n -i -E '(^|[^a-z])nan|18446744073709551615|4294967295' "$tmp/reclaim.txt" "$tmp/host.txt"; then
	fail "garbage in the text"
fi

# the live tree: doctor's numbers are the files' numbers
admin=/sys/kernel/mm/damon/admin/kdamonds
[ -r "$admin/nr_kdamonds" ] || { echo "SKIP: no DAMON sysfs on this kernel ($admin)"; exit 77; }
"$pc" doctor --no-probe --sample-ms 0 --json >"$tmp/live.json" 2>"$tmp/err" ||
	fail "doctor --no-probe: exit $? ($(cat "$tmp/err"))"
python3 - "$tmp/live.json" "$admin" <<'PY' || exit 1
import json, os, sys
got = {f["id"]: f for f in json.load(open(sys.argv[1]))["findings"]}
admin = sys.argv[2]
def rd(*p):
    return open(os.path.join(admin, *p)).read().strip()
def dur(us):
    if us >= 120000000 and us % 60000000 == 0: return f"{us // 60000000} min"
    if us >= 1000000 and us % 1000000 == 0: return f"{us // 1000000} s"
    if us >= 1000 and us % 1000 == 0: return f"{us // 1000} ms"
    return f"{us} us"
checked = 0
for k in range(int(rd("nr_kdamonds"))):
    state = rd(str(k), "state")
    for c in range(int(rd(str(k), "contexts", "nr_contexts"))):
        ctx = (str(k), "contexts", str(c))
        ops = rd(*ctx, "operations")
        aggr = int(rd(*ctx, "monitoring_attrs", "intervals", "aggr_us"))
        for s in range(int(rd(*ctx, "schemes", "nr_schemes"))):
            sc = ctx + ("schemes", str(s))
            if rd(*sc, "action") != "pageout":
                continue
            age = int(rd(*sc, "access_pattern", "age", "min"))
            key = f"memory.damon.{k}.{c}.{s}"
            f = got.get(key)
            if not f:
                sys.exit(f"FAIL: no {key} finding for {'/'.join(sc)}")
            want = f"DAMON kdamond {k} pages out memory idle >= {dur(age * aggr)} ({age} x {dur(aggr)} aggregation)"
            if not f["title"].startswith(want):
                sys.exit(f"FAIL: {key}: title '{f['title']}', want '{want}...'")
            if f"state {state}, operations {ops}" not in f["evidence"]:
                sys.exit(f"FAIL: {key}: evidence '{f['evidence']}'")
            types = [rd(*sc, "ops_filters", str(i), "type") + rd(*sc, "ops_filters", str(i), "allow")
                     for i in range(int(rd(*sc, "ops_filters", "nr_filters")))]
            evicts = state == "on" and ops == "paddr" and "unmappedN" not in types
            if f["status"] != ("warn" if evicts else "info"):
                sys.exit(f"FAIL: {key}: status {f['status']} for state {state}, ops {ops}, filters {types}")
            checked += 1
if not checked:
    print("SKIP: no DAMON pageout scheme configured here")
    sys.exit(77)
print(f"live: {checked} DAMON pageout scheme(s) reported with the files' thresholds")
PY
rc=$?
[ $rc = 0 ] || exit $rc
echo "doctor: proactive reclaim reported with its thresholds"
