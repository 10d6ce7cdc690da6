#!/bin/bash
# SPDX-License-Identifier: MIT
# Run the test suite of one build folder with meson and end with the line
# "N passed, N failed, N skipped".
#   tests/run.sh BUILDDIR [meson test args: --suite, --no-suite, --no-rebuild]
# PAGECLIFF_LOGBASE names the log (meson-logs/NAME.json; default testlog).
# Every test takes its turn on the machine through tests/turn.sh.  First the
# tests that share the machine, PAGECLIFF_JOBS at a time (default 2: most of
# them wait on devices, sleeps and other programs); then, one at a time, the
# tests meson.build marks is_parallel: false, which have the machine to
# themselves, whatever the build folder (they measure the machine's figures,
# CPU time or a time ratio).  PAGECLIFF_PART=shared or alone runs only one
# of the two parts (setup.sh runs the shared parts of all build folders side
# by side, then the rest).  The guests (suite vm) take no turn.  Exit 0 when
# nothing failed.  meson-logs/NAME.cpu has each test's CPU and wall seconds
# (tests/turn.sh).
set -u
builddir=${1:?usage: tests/run.sh BUILDDIR [meson test args]}
shift
here=$(cd "$(dirname "$0")" && pwd)
logbase=${PAGECLIFF_LOGBASE:-testlog}	# a second run's log beside the first's
logs=$(cd "$builddir" && pwd)/meson-logs || exit 1
part=${PAGECLIFF_PART:-all}
case $part in all | shared | alone) ;; *) echo "run.sh: PAGECLIFF_PART is '$part', not all, shared or alone" >&2; exit 2 ;; esac
rm -f "$logs/$logbase.json" "$logs/$logbase.txt" "$logs/$logbase.cpu"

# The selected tests' names, the part each belongs to, and turn.sh's list.
meson test -C "$builddir" --list --no-rebuild "$@" 2>/dev/null | sed -n 's|^[^ ]* / ||p' >"$logs/$logbase.selected"
meson introspect --tests "$builddir" | python3 -c '
import json, sys
logs, base = sys.argv[1:3]
selected = set(open("%s/%s.selected" % (logs, base)).read().split("\n"))
turns = open("%s/%s.turns" % (logs, base), "w")
names = {"shared": open("%s/%s.shared" % (logs, base), "w"), "alone": open("%s/%s.alone" % (logs, base), "w")}
for t in json.load(sys.stdin):
    cmd = " ".join(t["cmd"])
    if any(s.endswith(":vm") for s in t["suite"]):
        turns.write("none %s\n" % cmd)
    elif not t["is_parallel"]:
        turns.write("alone %s\n" % cmd)
    if t["name"] in selected:
        names["shared" if t["is_parallel"] else "alone"].write(t["name"] + "\n")
' "$logs" "$logbase" || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }

# run_part PART JOBS: that part's tests, logged as LOGBASE-PART.
run_part() {
	local p=$1 jobs=$2 names rc

	shift 2
	mapfile -t names <"$logs/$logbase.$p"
	# none selected: an empty log, nothing failed
	[ ${#names[@]} -gt 0 ] || { : >>"$logs/$logbase.json"; return 0; }
	rm -f "$logs/$logbase-$p.json"
	PAGECLIFF_TURNS=$logs/$logbase.turns PAGECLIFF_CPULOG=$logs/$logbase.cpu meson test -C "$builddir" --print-errorlogs \
		--num-processes "$jobs" --wrapper "$here/turn.sh" --logbase "$logbase-$p" \
		"$@" "${names[@]}"
	rc=$?
	# meson names a wrapped run's logs after the wrapper
	for ext in json txt junit.xml; do
		[ -f "$logs/$logbase-$p-turn.sh.$ext" ] &&
			mv -f "$logs/$logbase-$p-turn.sh.$ext" "$logs/$logbase-$p.$ext"
	done
	[ -f "$logs/$logbase-$p.json" ] || { echo "run.sh: the $p tests left no log" >&2; return 1; }
	cat "$logs/$logbase-$p.json" >>"$logs/$logbase.json"
	cat "$logs/$logbase-$p.txt" >>"$logs/$logbase.txt" 2>/dev/null
	return $rc
}

rc=0
if [ "$part" != alone ]; then
	run_part shared "${PAGECLIFF_JOBS:-2}" "$@" || rc=1
fi
if [ "$part" != shared ]; then
	run_part alone 1 "$@" || rc=1
fi
if [ ! -f "$logs/$logbase.json" ]; then
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
python3 - "$logs/$logbase.json" <<'PY'
import json, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    key = {"OK": "passed", "EXPECTEDFAIL": "passed", "SKIP": "skipped"}.get(r, "failed")
    counts[key] += 1
print("%(passed)d passed, %(failed)d failed, %(skipped)d skipped" % counts)
sys.exit(1 if counts["failed"] else 0)
PY
py=$?
[ $rc = 0 ] && [ $py = 0 ]
