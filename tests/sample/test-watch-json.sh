#!/bin/sh
# SPDX-License-Identifier: MIT
# watch off a terminal: --count 3 --json prints exactly three valid JSON
# objects, one per line, per interval (not cumulative); text mode one line
# per interval; bad options exit 2 with one line.
set -u
pc=${PAGECLIFF:?PAGECLIFF is not set}
command -v python3 >/dev/null || { echo "SKIP: no python3 to check JSON"; exit 77; }
. "$(dirname "$0")/../harness.sh"
make_tmpdir tmp "${TMPDIR:-/tmp}"

"$pc" watch --count 3 --interval 200ms --json >"$tmp/out" 2>"$tmp/err" ||
	{ echo "FAIL: watch exited non-zero: $(cat "$tmp/err")"; exit 1; }
python3 - "$tmp/out" <<'PY' || exit 1
import json, sys
lines = open(sys.argv[1]).read().splitlines()
if len(lines) != 3:
    sys.exit(f"FAIL: {len(lines)} lines, want 3")
keys = ("cache_bytes", "dirty_bytes", "writeback_bytes", "pgscan_direct_s",
        "pgscan_kswapd_s", "pgsteal_direct_s", "pgsteal_kswapd_s", "pgscan_file_s",
        "allocstall_s", "psi_some_avg10", "kswapd_cpu_pct", "cgroup", "disks")
# Not timing: a loaded machine stretches any interval, and watch catches up
# with its schedule after a slow one.  What holds anyway: sample i is taken
# no earlier than its deadline 0.2 * (i + 1) s, and each line covers the time
# since the line before it (not since the start).
prev_t = 0
for i, line in enumerate(lines):
    o = json.loads(line)
    for k in keys:
        if k not in o:
            sys.exit(f"FAIL: line {i}: no {k}")
    if o["t"] < 0.2 * (i + 1) - 0.001:
        sys.exit(f"FAIL: line {i}: at {o['t']} s, before its deadline {0.2 * (i + 1):.1f} s")
    if not o["interval_s"] > 0 or abs(o["interval_s"] - (o["t"] - prev_t)) > 0.0015:
        sys.exit(f"FAIL: line {i}: interval {o['interval_s']} s, but {o['t'] - prev_t:.3f} s "
                 "since the line before")
    prev_t = o["t"]
    if not isinstance(o["cache_bytes"], int) or o["cache_bytes"] <= 0:
        sys.exit(f"FAIL: line {i}: cache_bytes {o['cache_bytes']}")
    shares = [o[k] for k in ("cpu_usr_pct", "cpu_sys_pct", "cpu_iowait_pct",
                             "cpu_steal_pct", "cpu_idle_pct") if o[k] is not None]
    # an interval that catches up can be shorter than a clock tick: no CPU
    # ticks passed, so the shares are unknown (null), never made up
    if not shares and o["interval_s"] < 0.1:
        continue
    if not 0 < sum(shares) <= 100.5:
        sys.exit(f"FAIL: line {i}: CPU shares add up to {sum(shares)} in {o['interval_s']} s")
print("watch json: 3 objects")
PY

"$pc" watch --count 2 --interval 100ms >"$tmp/text" || exit 1
[ "$(wc -l <"$tmp/text")" -eq 2 ] && grep -q '^cache [0-9]*M active [0-9]*M ' "$tmp/text" ||
	{ echo "FAIL: text mode:"; cat "$tmp/text"; exit 1; }

# on a terminal: the view clears the screen and redraws each interval
if command -v script >/dev/null; then
	script -qec "\"$pc\" watch --count 2 --interval 100ms" /dev/null >"$tmp/tty" ||
		{ echo "FAIL: watch on a terminal exited non-zero"; exit 1; }
	[ "$(grep -c "$(printf '\033')\\[H" "$tmp/tty")" -eq 2 ] &&
		grep -q '^device  *read MB/s  write MB/s' "$tmp/tty" &&
		grep -q '^scan.file/s  *[0-9?]' "$tmp/tty" ||
		{ echo "FAIL: terminal view:"; cat -v "$tmp/tty"; exit 1; }
fi

for bad in "--interval 5ms" "--interval x" "--count 0" "--bogus" "extra"; do
	# shellcheck disable=SC2086
	"$pc" watch $bad >/dev/null 2>"$tmp/err"; rc=$?
	[ $rc -eq 2 ] && [ -s "$tmp/err" ] ||
		{ echo "FAIL: watch $bad: rc $rc: $(cat "$tmp/err")"; exit 1; }
done
"$pc" watch --cgroup /nonexistent --count 1 >/dev/null 2>&1 &&
	{ echo "FAIL: a missing --cgroup was accepted"; exit 1; }
echo "watch json: ok"
exit 0
