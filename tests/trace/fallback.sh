#!/bin/bash
# SPDX-License-Identifier: MIT
# When tracing is refused, bench and watch say so in one line and go on with
# the /proc counters: as nobody (no privilege), and as root with bpf(2)
# refused by a seccomp filter.  The reports then carry null for every traced
# figure, never 0.  --no-trace turns it off without a word.
. "$(dirname "$0")/harness.sh"
NOBPF=${NOBPF:?run through meson test}
command -v python3 >/dev/null || skip "no python3 to read the JSON"
needs_root "to run as nobody and to compare with a traced run"
need_bpf_build
tmpdir

# check_run NAME WHY-PATTERN: the report $T/NAME.json and stderr $T/NAME.err.
check_run() {
	local n
	n=$(grep -c "no kernel-event tracing" "$T/$1.err")
	if [ -n "$2" ]; then
		[ "$n" = 1 ] || fail "$1: want one line about tracing, got $n: $(cat "$T/$1.err")"
		grep -q "the /proc counters only" "$T/$1.err" || fail "$1: no fallback said"
	else
		[ "$n" = 0 ] || fail "$1: said: $(cat "$T/$1.err")"
	fi
	python3 - "$T/$1.json" "$2" <<'PY' || fail "$1: report checks"
import json, re, sys
j = json.load(open(sys.argv[1]))
assert j["job"]["kernel_tracing"] is False, j["job"]
assert re.search(sys.argv[2] or "--no-trace", j["job"]["kernel_tracing_why_not"]), j["job"]
m = j["modes"][0]
assert m["direct_reclaim_pct"] is None and m["memcg_reclaim_pct"] is None, m
assert m["top_locks"] == [], m["top_locks"]
assert len(m["intervals"]) >= 1
for i in m["intervals"]:
    for k in ("direct_reclaim_pct", "memcg_reclaim_pct", "lock_wait_pct",
              "kswapd_busy_pct", "dirty_throttle_pct"):
        assert i[k] is None, (k, i[k])
    assert i["top_lock"] == ""
    assert i["gbps"] > 0 and i["reclaim_pages_s"] is not None
assert "measured once" not in m["verdict"], m["verdict"]
PY
	echo "$1: $(grep "no kernel-event" "$T/$1.err" || echo 'nothing said')"
}

args=(bench -d "$T" --size 32m --numjobs 1 --mode buffered --interval 100ms -q
      --output-format json)
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$PAGECLIFF" "${args[@]}" -o "$T/nobody.json" 2>"$T/nobody.err" ||
	fail "bench as nobody: $(cat "$T/nobody.err")"
check_run nobody "CAP_BPF"
"$NOBPF" "$PAGECLIFF" "${args[@]}" -o "$T/seccomp.json" 2>"$T/seccomp.err"
rc=$?
[ $rc -eq 77 ] && skip "seccomp filters are not available"
[ $rc -eq 0 ] || fail "bench with bpf(2) refused: exit $rc: $(cat "$T/seccomp.err")"
check_run seccomp "refused"
"$PAGECLIFF" "${args[@]}" --no-trace -o "$T/off.json" 2>"$T/off.err" ||
	fail "bench --no-trace: $(cat "$T/off.err")"
check_run off ""

# watch: one line, then "trace": null in every interval
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$PAGECLIFF" watch --json --interval 100ms --count 2 >"$T/w.json" 2>"$T/w.err" ||
	fail "watch as nobody: $(cat "$T/w.err")"
[ "$(grep -c "no kernel-event tracing" "$T/w.err")" = 1 ] || fail "watch: $(cat "$T/w.err")"
python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 2 and all(r["trace"] is None for r in rows), rows' "$T/w.json" ||
	fail "watch as nobody: trace figures not null"
echo "PASS: tracing refused falls back to /proc, said once"
