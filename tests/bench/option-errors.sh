#!/bin/bash
# SPDX-License-Identifier: MIT
# Bad command lines: exit 2, one line on stderr naming the problem, nothing
# created (no data folder, no state file, no cgroup, no mount).
. "$(dirname "$0")/harness.sh"
tmpdir

d="$T"
expect_usage "bad --size '0'" -d "$d" --size 0
expect_usage "bad --size '-1g'" -d "$d" --size -1g
expect_usage "bad --size '10q'" -d "$d" --size 10q
expect_usage "bad --size '1.5g'" -d "$d" --size 1.5g
expect_usage "bad --numjobs '0'" -d "$d" --numjobs 0
expect_usage "bad --numjobs '-2'" -d "$d" --numjobs -2
expect_usage "bad --numjobs 'x'" -d "$d" --numjobs x
expect_usage "bad --bs '0'" -d "$d" --bs 0
expect_usage "bad --iodepth '0'" -d "$d" --iodepth 0
expect_usage "cannot use directory '/nonexistent/x'" -d /nonexistent/x
expect_usage "not a directory" -d /etc/hostname
expect_usage "unknown mode 'fast'" -d "$d" --mode buffered,fast
expect_usage "unknown option '--bogus'" -d "$d" --bogus
expect_usage "option '--size' needs a value" -d "$d" --size
expect_usage "unexpected argument 'extra'" -d "$d" extra
expect_usage "bad --interval '10ms'" -d "$d" --interval 10ms
expect_usage "bad --runtime '-3'" -d "$d" --runtime -3
expect_usage "bad --mem-align '5000'" -d "$d" --mem-align 5000
expect_usage "bad --direct '2'" -d "$d" --direct 2
expect_usage "--direct=1 conflicts with --mode buffered" -d "$d" --direct=1 --mode buffered
expect_usage "unknown --ioengine 'libaio'" -d "$d" --ioengine libaio
expect_usage "unknown --output-format 'xml'" -d "$d" --output-format xml
expect_usage "unknown --api 'mmap'" -d "$d" --api mmap
expect_usage "--time_based needs --runtime" -d "$d" --time_based
expect_usage "larger than --size" -d "$d" --size 64k --bs 1m
expect_usage "exclude each other" -d "$d" --testbed ram:1g
expect_usage "bad --testbed 'disk:1g'" --testbed disk:1g
expect_usage "is too small" --testbed ram:256m --numjobs 2 --size 1g
expect_usage "bad --mem-limit '1k'" -d "$d" --mem-limit 1k
expect_usage "given twice (as '$d' before): its threads would use the same files" -d "$d:$d" --rw write
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	n=$((n + 1))
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PAGECLIFF" bench --testbed ram:1g \
		>"$T/out" 2>"$T/err"
	[ $? -eq 2 ] && grep -q "needs root" "$T/err" || fail "--testbed without root: $(cat "$T/err")"
	n=$((n + 1))
	chmod 777 "$T"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PAGECLIFF" bench -d "$T" \
		--mem-limit 256m --size 1m >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "cannot create a memory cgroup" "$T/err" ||
		fail "--mem-limit without root: exit $rc: $(cat "$T/err")"
	[ ! -e "$T/pagecliff-bench" ] || fail "--mem-limit without root created the data set"
	chmod 755 "$T"
fi
# Too little space: a 16 MiB tmpfs (root) for a 64 MiB data set.
if [ "$(id -u)" = 0 ]; then
	mkdir "$T/small" && mount -t tmpfs -o size=16m none "$T/small" || fail "mount tmpfs"
	"$PAGECLIFF" bench -d "$T/small" --size 64m >"$T/out" 2>"$T/err"
	rc=$?
	leftover=$(ls -A "$T/small")
	umount "$T/small"
	[ $rc -eq 2 ] && grep -q "not enough space" "$T/err" || fail "no space: rc $rc $(cat "$T/err")"
	[ -z "$leftover" ] || fail "no space: created $leftover"
	n=$((n + 1))
fi
# One time parser: watch reads "1s" as bench does, and a bare number as seconds.
n=$((n + 1))
"$PAGECLIFF" watch --count 1 --interval 1s --json >"$T/w" 2>"$T/err" || fail "watch --interval 1s: $(cat "$T/err")"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["interval_s"]; assert 0.9 <= t <= 3, t' "$T/w" ||
	fail "watch --interval 1s sampled $(cat "$T/w")"
"$PAGECLIFF" watch --count 1 --interval 0.2 --json >"$T/w" 2>"$T/err" || fail "watch --interval 0.2: $(cat "$T/err")"
"$PAGECLIFF" watch --interval 2h >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "bad --interval '2h': a time from 10ms to 1h" "$T/err" || fail "watch --interval 2h: $(cat "$T/err")"
check_nothing_left
echo "PASS: $n bad command lines refused with exit 2, nothing created"
