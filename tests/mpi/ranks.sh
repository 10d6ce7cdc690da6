#!/bin/bash
# SPDX-License-Identifier: MIT
# pagecliff-mpi on 2 and on 3 ranks, each with its own directory ({host}
# and {rank}):
# the total's bytes, per mode and per interval, are the sum of the ranks';
# each rank has its own section, on its own directory; the ranks on this
# one host are reported as sharing it; nothing of the data set is left.
. "$(dirname "$0")/harness.sh"
tmpdir

for n in 2 3; do
	H=$(hostname)
	for r in $(seq 0 $((n - 1))); do mkdir -p "$T/$n/$H-d$r"; done
	args=(-d "$T/$n/{host}-d{rank}" --size 32m -m buffered,direct --time_based --runtime 2s
	      --interval 250ms --no-trace)
	mpirun_np $n 120 "${args[@]}" -q --output-format json -o "$T/$n.json" 2>"$T/$n.err" ||
		fail "np $n: exit $?: $(tail -5 "$T/$n.err")"
	python3 - "$T/$n.json" "$n" "$T/$n/$H" <<'PY' || fail "np $n: $(cat "$T/$n.err" | tail -3)"
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2]); base = sys.argv[3]
assert d["ranks"] == n, d["ranks"]
hosts = d["hosts"]
assert [h["rank"] for h in hosts] == list(range(n)), hosts
for h in hosts:
    assert h["job"]["directories"] == ["%s-d%d" % (base, h["rank"])], h["job"]["directories"]
    assert h["ranks_on_host"] == n, h["ranks_on_host"]
    assert h["failure"] == "", h["failure"]
for t in d["total"]:
    mine = [m for h in hosts for m in h["modes"] if m["mode"] == t["mode"]]
    assert len(mine) == n, (t["mode"], len(mine))
    want = sum(m["bytes"] for m in mine)
    assert want > 0 and t["bytes"] == want, (t["mode"], t["bytes"], want)
    rows = sum(i["bytes"] for m in mine for i in m["intervals"])
    got = sum(i["bytes"] for i in t["intervals"])
    assert got == rows > 0, (t["mode"], got, rows)
    # by interval: the k-th total is the sum of the ranks' k-th rows
    for k, i in enumerate(t["intervals"]):
        s = sum(m["intervals"][k]["bytes"] for m in mine if len(m["intervals"]) > k)
        assert i["bytes"] == s, (t["mode"], k, i["bytes"], s)
    assert len(t["intervals"]) >= 3, len(t["intervals"])
assert [t["mode"] for t in d["total"]] == ["buffered", "direct"], d["total"]
print("np %d: total bytes %s = sum of %d ranks" % (n, [t["bytes"] for t in d["total"]], n))
PY
	# the text report: a section per rank and the hosts that fell or held;
	# rank 0's status line shows the total (--status: stderr is a pipe)
	mpirun_np $n 120 --status "${args[@]}" -m buffered >"$T/$n.txt" 2>"$T/$n.err" ||
		fail "np $n text: exit $?: $(tail -5 "$T/$n.err")"
	[ "$(tr '\r' '\n' <"$T/$n.err" | grep -c "GB/s now .* avg  total of $n ranks, ")" -ge 3 ] ||
		fail "np $n: no status line with the total: $(tail -3 "$T/$n.err")"
	for r in $(seq 0 $((n - 1))); do
		grep -q "^== rank $r on $(hostname) (one of $n ranks on this host) ==$" "$T/$n.txt" ||
			fail "np $n: no section for rank $r: $(cat "$T/$n.txt")"
		grep -q "^directory: $T/$n/$H-d$r$" "$T/$n.txt" || fail "np $n: rank $r's directory not shown"
	done
	[ "$(grep -c '^verdict:$' "$T/$n.txt")" = $n ] || fail "np $n: not $n verdicts"
	grep -Eq "^  buffered: (no host fell \($n held\)|.* fell after .*)" "$T/$n.txt" ||
		fail "np $n: no line on the hosts that fell: $(cat "$T/$n.txt")"
	for r in $(seq 0 $((n - 1))); do
		left=$(find "$T/$n/$H-d$r" -mindepth 1 -not -name bench.lock -not -name pagecliff-bench)
		[ -z "$left" ] || fail "np $n: rank $r left: $left"
	done
done
echo "ok"
