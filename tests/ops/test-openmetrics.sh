#!/bin/bash
# SPDX-License-Identifier: MIT
# pagecliff watch --output-format openmetrics and --textfile: the output
# passes python3-prometheus-client's strict OpenMetrics parser (the textfile
# its Prometheus text parser); families have their types and units; counters
# lie between the kernel's counters read just before and just after; the
# kernel-event counters are there exactly when tracing is; the textfile is
# replaced whole (a reader never sees part of it) and no temporary is left.
set -u
pc=${PAGECLIFF:?PAGECLIFF is not set}
. "$(dirname "$0")/../harness.sh"
# Debian's python3 is where python3-prometheus-client installs
py=/usr/bin/python3
[ -x $py ] || py=python3
$py -c 'import prometheus_client.openmetrics.parser' 2>/dev/null ||
	skip "python3-prometheus-client is missing (./setup.sh test installs it)"
make_tmpdir tmp "${TMPDIR:-/tmp}"
at_exit 'kill $wpid 2>/dev/null'
wpid=

snap() { cat /proc/vmstat; grep -E '^some|^full' /proc/pressure/memory 2>/dev/null | sed 's/ .*total=/_total /'; }

# One interval on stdout, the kernel's counters around it.
snap >"$tmp/before"
"$pc" watch --output-format openmetrics -n 1 -i 100ms >"$tmp/om" 2>"$tmp/err" || fail "watch: exit $?: $(cat "$tmp/err")"
snap >"$tmp/after"
[ "$(tail -n 1 "$tmp/om")" = "# EOF" ] || fail "the exposition does not end in # EOF"
traced=1
grep -q "no kernel-event tracing" "$tmp/err" && traced=0

$py - "$tmp" $traced "$(getconf PAGESIZE)" <<'PY' || exit 1
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families

tmp, traced, page = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3])
def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)
def counters(name):
    d = {}
    for line in open("%s/%s" % (tmp, name)):
        k, v = line.split()[:2]
        d[k] = int(v)
    return d
before, after = counters("before"), counters("after")
fams = {f.name: f for f in text_string_to_metric_families(open(tmp + "/om").read())}

want = {
    "pagecliff_page_cache_bytes": ("gauge", "bytes"),
    "pagecliff_dirty_bytes": ("gauge", "bytes"),
    "pagecliff_writeback_bytes": ("gauge", "bytes"),
    "pagecliff_active_file_bytes": ("gauge", "bytes"),
    "pagecliff_inactive_file_bytes": ("gauge", "bytes"),
    "pagecliff_reclaim_scanned_bytes": ("counter", "bytes"),
    "pagecliff_reclaim_reclaimed_bytes": ("counter", "bytes"),
    "pagecliff_file_reclaim_scanned_bytes": ("counter", "bytes"),
    "pagecliff_file_reclaim_reclaimed_bytes": ("counter", "bytes"),
    "pagecliff_allocation_stalls": ("counter", ""),
}
if "some_total" in before:
    want["pagecliff_memory_pressure_some_seconds"] = ("counter", "seconds")
    want["pagecliff_memory_pressure_full_seconds"] = ("counter", "seconds")
traced_fams = {
    "pagecliff_direct_reclaim_seconds": ("counter", "seconds"),
    "pagecliff_memcg_reclaim_seconds": ("counter", "seconds"),
    "pagecliff_lock_wait_seconds": ("counter", "seconds"),
    "pagecliff_kswapd_awake_seconds": ("counter", "seconds"),
    "pagecliff_dirty_throttle_seconds": ("counter", "seconds"),
}
if traced:
    want.update(traced_fams)
else:
    for n in traced_fams:
        if n in fams:
            fail("%s without tracing" % n)
for name, (typ, unit) in want.items():
    f = fams.get(name)
    if not f:
        fail("no family %s" % name)
    if f.type != typ or f.unit != unit:
        fail("%s: type %s unit '%s', want %s '%s'" % (name, f.type, f.unit, typ, unit))
for f in fams.values():
    if not f.name.startswith("pagecliff_"):
        fail("%s: not in the pagecliff_ namespace" % f.name)
    for u in ("bytes", "seconds"):
        if f.name.endswith("_" + u) and f.unit != u:
            fail("%s: unit '%s'" % (f.name, f.unit))
    for s in f.samples:
        if s.value < 0:
            fail("%s is negative: %s" % (s.name, s.value))

def value(name, **labels):
    for s in fams[name].samples:
        if s.labels == labels:
            return s.value
    fail("no sample %s%s" % (name, labels))
# counters: between the kernel's just before and just after, in base units
checks = [("pagecliff_file_reclaim_scanned_bytes", {}, "pgscan_file", page),
          ("pagecliff_file_reclaim_reclaimed_bytes", {}, "pgsteal_file", page),
          ("pagecliff_reclaim_scanned_bytes", {"reclaimer": "kswapd"}, "pgscan_kswapd", page),
          ("pagecliff_reclaim_scanned_bytes", {"reclaimer": "direct"}, "pgscan_direct", page)]
if "some_total" in before:
    checks.append(("pagecliff_memory_pressure_some_seconds", {}, "some_total", 1e-6))
for name, labels, key, scale in checks:
    v = value(name, **labels)
    lo, hi = before[key] * scale, after[key] * scale
    if not lo * (1 - 1e-12) <= v <= hi * (1 + 1e-12):
        fail("%s%s = %r, the kernel's %s went from %r to %r" % (name, labels, v, key, lo, hi))
print("openmetrics: %d families, %d checked, traced %s" % (len(fams), len(want), traced))
PY

# --textfile: stdout quiet, the file replaced whole each interval
mkdir "$tmp/tf" || exit 1
"$pc" watch --no-trace --textfile "$tmp/tf/pagecliff.prom" -n 60 -i 20ms >"$tmp/out" 2>"$tmp/err" &
wpid=$!
$py - "$tmp/tf/pagecliff.prom" $wpid <<'PY' || exit 1
import sys
from prometheus_client.parser import text_string_to_metric_families
path, pid = sys.argv[1], int(sys.argv[2])
reads = seen = 0
texts = set()
def running(pid):
    # the shell reaps watch as soon as it exits: its /proc files may go at any moment
    try:
        return "zombie" not in open("/proc/%d/status" % pid).read()
    except (FileNotFoundError, ProcessLookupError):
        return False
while True:
    alive = running(pid)
    try:
        text = open(path).read()
    except FileNotFoundError:
        if not alive:
            break
        continue
    reads += 1
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    c = fams.get("pagecliff_file_reclaim_scanned_bytes")
    if not text.endswith("\n") or "pagecliff_page_cache_bytes" not in fams or not c:
        print("FAIL: read %d of the textfile is not whole: %r" % (reads, text[-200:]))
        sys.exit(1)
    if c.type != "counter" or c.samples[0].name != "pagecliff_file_reclaim_scanned_bytes_total":
        print("FAIL: textfile counter %s %s" % (c.type, c.samples[0].name))
        sys.exit(1)
    texts.add(text)
    if not alive:
        break
if reads < 10 or len(texts) < 2:
    print("FAIL: %d reads of the textfile, %d different: it was not rewritten" % (reads, len(texts)))
    sys.exit(1)
print("textfile: %d whole reads, %d versions" % (reads, len(texts)))
PY
wait $wpid || fail "watch --textfile: exit $?: $(cat "$tmp/err")"
wpid=
[ ! -s "$tmp/out" ] || fail "watch --textfile wrote to stdout: $(head -c 200 "$tmp/out")"
[ "$(stat -c %a "$tmp/tf/pagecliff.prom")" = 644 ] || fail "the textfile is not 0644"
[ "$(ls -A "$tmp/tf")" = pagecliff.prom ] || fail "left in the directory: $(ls -A "$tmp/tf")"
grep -q "^# EOF" "$tmp/tf/pagecliff.prom" && fail "the textfile has OpenMetrics' # EOF"

# a directory that is not there: one line, non-zero, nothing left
"$pc" watch --no-trace --textfile "$tmp/none/x.prom" -n 1 -i 10ms >"$tmp/out" 2>"$tmp/err" && fail "exit 0 for a missing directory"
[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "cannot write '$tmp/none/" "$tmp/err" || fail "missing directory: $(cat "$tmp/err")"
"$pc" watch --output-format bogus 2>"$tmp/err" && fail "exit 0 for --output-format bogus"
grep -q "(text, json, openmetrics)" "$tmp/err" || fail "bad format: $(cat "$tmp/err")"
echo "openmetrics: ok"
