#!/bin/bash
# SPDX-License-Identifier: MIT
# The kernel work bench counts per GiB, for real: a cold buffered read adds
# at least a page to the page cache for each page it reads (XFS adds large
# folios: counted in pages) and makes no fadvise call; dropbehind makes
# fadvise calls, POSIX_FADV_DONTNEED among them, and deletes what it read;
# direct adds almost nothing.  No mode queues drain work on every CPU per
# call: dropbehind queues fewer lru_add_drain_per_cpu items than CPUs times
# its DONTNEED calls.  Text, JSON and CSV carry the same figures.
. "$(dirname "$0")/harness.sh"
need_trace
[ -e /dev/loop-control ] || skip "no loop devices"
tmpdir
page=$(getconf PAGESIZE)

for fmt in json text csv; do
	"$PAGECLIFF" bench --testbed ram:256m --size 64m --mode buffered,dropbehind,direct -q \
		--output-format $fmt -o "$T/r.$fmt" 2>"$T/err" ||
		fail "bench --output-format $fmt: exit $?: $(cat "$T/err")"
	grep -q "no kernel-event tracing" "$T/err" && fail "not traced: $(cat "$T/err")"
done

python3 - "$T" "$page" <<'PY' || fail "kernel work figures"
import csv, json, os, re, sys
T, page = sys.argv[1], int(sys.argv[2])
per_gib = (1 << 30) // page
j = json.load(open(T + "/r.json"))
m = {x["mode"]: x for x in j["modes"]}
b, db, d = m["buffered"], m["dropbehind"], m["direct"]
for x in (b, db, d):
    assert x["cold"], (x["mode"], "not a cold start", x["cached_before_bytes"])
    for k in ("pages_added_per_gib", "pages_deleted_per_gib", "fadvise_calls_per_gib",
              "dontneed_calls_per_gib", "drain_work_per_gib", "lock_waits_per_gib"):
        assert x[k] is not None and x[k] >= 0, (x["mode"], k, x[k])
assert b["pages_added_per_gib"] >= 0.99 * per_gib, ("buffered adds", b["pages_added_per_gib"])
assert b["fadvise_calls_per_gib"] == 0, ("buffered fadvises", b["fadvise_calls_per_gib"])
assert db["strategy"] == "dropbehind", db["strategy"]
assert db["dontneed_calls_per_gib"] > 0, ("dropbehind DONTNEED", db["dontneed_calls_per_gib"])
assert db["fadvise_calls_per_gib"] >= db["dontneed_calls_per_gib"], db
assert db["pages_deleted_per_gib"] >= 0.9 * per_gib, ("dropbehind deletes",
                                                     db["pages_deleted_per_gib"])
# a drain on every CPU per call queues one item per CPU per call; a call
# drains only when some of its pages still sit in a CPU's batch, which a
# loaded machine makes more frequent, but never every time
ncpu = os.cpu_count() or 1
assert db["drain_work_per_gib"] < ncpu * db["dontneed_calls_per_gib"], (
    "drain work on every CPU per call", db["drain_work_per_gib"], db["dontneed_calls_per_gib"],
    ncpu)
assert d["strategy"] == "direct", d["strategy"]
assert d["pages_added_per_gib"] < 0.01 * b["pages_added_per_gib"], (
    "direct adds", d["pages_added_per_gib"], b["pages_added_per_gib"])

# the other formats: the same run's figures are another run's, so only the
# shape and the sign: every mode has its line, buffered no fadvise call
rows = {r["mode"]: r for r in csv.DictReader(open(T + "/r.csv"))}
assert set(rows) == {"buffered", "dropbehind", "direct"}, list(rows)
assert float(rows["buffered"]["fadvise_calls_per_gib"]) == 0, rows["buffered"]
assert float(rows["dropbehind"]["dontneed_calls_per_gib"]) > 0, rows["dropbehind"]
assert float(rows["buffered"]["pages_added_per_gib"]) >= 0.99 * per_gib, rows["buffered"]
text = open(T + "/r.text").read()
assert re.search(r"^kernel work per GiB read, by the readers", text, re.M), text
line = re.search(r"^buffered +([0-9]+) +[0-9]+ +[0-9]+ +0\.0 +0\.0 ", text, re.M)
assert line and int(line.group(1)) >= 0.99 * per_gib, text
print("per GiB: buffered adds %d pages, no fadvise; dropbehind %.0f fadvise calls "
      "(%.0f DONTNEED), deletes %d pages, %.0f drain work items; direct adds %d" % (
      b["pages_added_per_gib"], db["fadvise_calls_per_gib"], db["dontneed_calls_per_gib"],
      db["pages_deleted_per_gib"], db["drain_work_per_gib"], d["pages_added_per_gib"]))
PY
echo "PASS: kernel work per GiB counted per mode"
