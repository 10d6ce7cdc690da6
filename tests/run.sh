#!/bin/bash
# SPDX-License-Identifier: MIT
# Run the test suite of one build folder with meson and end with the line
# "N passed, N failed, N skipped".  Usage: tests/run.sh BUILDDIR [meson test args]
# PAGECLIFF_LOGBASE names the log (meson-logs/NAME.json; default testlog).
# Exit 0 when nothing failed.
set -u
builddir=${1:?usage: tests/run.sh BUILDDIR [meson test args]}
shift
logbase=${PAGECLIFF_LOGBASE:-testlog}	# a second run's log beside the first's
log="$builddir/meson-logs/$logbase.json"
rm -f "$log"
meson test -C "$builddir" --print-errorlogs --num-processes 2 --logbase "$logbase" "$@"
rc=$?
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
