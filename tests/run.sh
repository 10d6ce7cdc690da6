#!/bin/bash
# SPDX-License-Identifier: MIT
# Run the test suite of one build folder with meson and end with the line
# "N passed, N failed, N skipped".  Usage: tests/run.sh BUILDDIR [meson test args]
# PAGECLIFF_LOGBASE names the log (meson-logs/NAME.json; default testlog).
# Every test takes its turn on the machine through tests/turn.sh: those
# meson.build marks is_parallel: false run with no other test of any build
# folder beside them, the rest side by side (PAGECLIFF_JOBS at a time,
# default 4: most of them wait on devices, sleeps and other programs), the
# guests (suite vm) apart from the turns.  Exit 0 when nothing failed.
set -u
builddir=${1:?usage: tests/run.sh BUILDDIR [meson test args]}
shift
here=$(cd "$(dirname "$0")" && pwd)
logbase=${PAGECLIFF_LOGBASE:-testlog}	# a second run's log beside the first's
log="$builddir/meson-logs/$logbase.json"
turns="$builddir/meson-logs/$logbase.turns"
rm -f "$log"
meson introspect --tests "$builddir" | python3 -c '
import json, sys
for t in json.load(sys.stdin):
    cmd = " ".join(t["cmd"])
    if any(s.endswith(":vm") for s in t["suite"]):
        print("none " + cmd)
    elif not t["is_parallel"]:
        print("alone " + cmd)
' >"$turns" || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }
PAGECLIFF_TURNS=$turns meson test -C "$builddir" --print-errorlogs \
	--num-processes "${PAGECLIFF_JOBS:-4}" --wrapper "$here/turn.sh" --logbase "$logbase" "$@"
rc=$?
# meson names a wrapped run's logs after the wrapper: back to LOGBASE
for ext in json txt junit.xml; do
	[ -f "$builddir/meson-logs/$logbase-turn.sh.$ext" ] &&
		mv -f "$builddir/meson-logs/$logbase-turn.sh.$ext" "$builddir/meson-logs/$logbase.$ext"
done
if [ ! -f "$log" ]; then
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
python3 - "$log" <<'PY'
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
