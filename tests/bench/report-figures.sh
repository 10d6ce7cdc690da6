#!/bin/bash
# SPDX-License-Identifier: MIT
# Every report is honest about what it does not know: in text, CSV, the
# timeline and JSON no figure is NaN or infinite (unknown is "unknown" in
# text, empty in CSV, null in JSON), every JSON key is a plain identifier, and
# the report says what its page-cache figures count.  A 1 MiB run ends inside
# its first interval, so some figures are unknown by construction.
. "$(dirname "$0")/harness.sh"
tmpdir
mkdir "$T/d"
for size in 1m 16m; do
	for fmt in text json csv; do
		"$PAGECLIFF" bench -d "$T/d" --size $size --mode buffered,direct --interval 100ms -q \
			--output-format $fmt -o "$T/r-$size.$fmt" --timeline "$T/t-$size.csv" \
			2>"$T/err" || fail "--size $size --output-format $fmt: $(cat "$T/err")"
	done
done
python3 - "$T" <<'PY' || fail "report checks"
import csv, json, re, sys
T = sys.argv[1]
bad = re.compile(r"\b(nan|-?inf|infinity)\b", re.I)
ident = re.compile(r"^[a-z_][a-z0-9_]*$")
def no_constants(c):
    raise ValueError("JSON has " + c)
def keys(v, where):
    if isinstance(v, dict):
        for k, x in v.items():
            assert ident.match(k), "JSON key %r in %s is not a plain identifier" % (k, where)
            keys(x, where + "." + k)
    elif isinstance(v, list):
        for x in v:
            keys(x, where + "[]")
unknown_seen = False
for size in ("1m", "16m"):
    text = open("%s/r-%s.text" % (T, size)).read()
    for line in text.splitlines():
        # numbers only: paths and notes may hold any word
        if line.startswith(("directory:", "note:", "memory cgroup:", "testbed:")):
            continue
        assert not bad.search(line), "text %s: %r" % (size, line)
    assert "page cache counted as: file pages system-wide: Cached - Shmem" in text, text
    unknown_seen |= "unknown" in text
    for name in ("r-%s.csv" % size, "t-%s.csv" % size):
        rows = list(csv.reader(open("%s/%s" % (T, name))))
        assert len(rows) >= 2, name
        for r in rows[1:]:
            assert len(r) == len(rows[0]), (name, r)
            for cell, col in zip(r, rows[0]):
                if col in ("mode", "strategy", "verdict", "top_lock"):
                    continue
                assert cell == "" or re.match(r"^-?[0-9]+(\.[0-9]+)?$", cell), (name, col, cell)
    j = json.loads(open("%s/r-%s.json" % (T, size)).read(), parse_constant=no_constants)
    keys(j, "report")
    assert "best_mode" in j, list(j)
    assert j["job"]["page_cache_counted_as"].startswith("file pages system-wide"), j["job"]
    for m in j["modes"]:
        assert not bad.search(m["verdict"]), m["verdict"]
    if size == "1m":
        assert any(m["gbps_before_cache_full"] is None for m in j["modes"]), "no unknown figure"
assert unknown_seen, "no figure said unknown in text"
print("reports: no NaN or infinity, keys plain, unknowns said")
PY
echo "PASS: report figures known or said unknown"
