#!/bin/bash
# SPDX-License-Identifier: MIT
# `pagecliff cat` on faultfs, every mode: a read error names the file and the
# errno, cat goes on with the next file and exits non-zero; what it wrote
# before the error is exactly the file's bytes; short reads, shrinking files
# and refused O_DIRECT give exactly the file; few fds: a named fallback; no
# memory for the buffer: a clear error.  Every run is under timeout(1): a hang fails.
set -u

[ -x "${PAGECLIFF:-}" ] || { echo "SKIP: \$PAGECLIFF does not name the pagecliff binary"; exit 77; }
. "$(dirname "$0")/mount.sh"

size() { stat -c %s "$1"; }
pc() { timeout 30 "$PAGECLIFF" cat "$@" >"$work/out" 2>"$work/err"; }

# References through coreutils cat on well-behaved files of the same pattern.
cat "$mnt/size=4m" >"$work/ref4m"
cat "$mnt/size=3145733" >"$work/ref3m"
cat "$mnt/size=8m" >"$work/ref8m"
cat "$mnt/size=100005" >"$work/ref100k"

bad=2621563	# eio offset: 2.5 MiB + 123
modes=$("$PAGECLIFF" cat --list-modes) && [ -n "$modes" ] ||
	{ echo "FAIL: cat --list-modes: exit $?"; exit 1; }
for mode in $modes; do
	for copy in "" --copy; do
		f="$mnt/size=4m,eio=$bad,tag=$mode$copy"
		pc --mode "$mode" $copy "$f"; rc=$?
		n=$(size "$work/out")
		if [ $rc = 0 ] || [ $rc -ge 124 ]; then
			fail_later "$mode$copy eio: exit $rc"
		elif ! grep -qF "'$f'" "$work/err" || ! grep -q "Input/output error" "$work/err"; then
			fail_later "$mode$copy eio: message lacks file or errno: $(cat "$work/err")"
		elif [ "$n" -gt $bad ] || [ "$n" -lt 2097152 ]; then
			fail_later "$mode$copy eio: wrote $n bytes, want 2 MiB .. $bad"
		elif ! cmp -s -n "$n" "$work/out" "$work/ref4m"; then
			fail_later "$mode$copy eio: wrong bytes before the error"
		elif ! grep -q "at byte $n:" "$work/err"; then
			fail_later "$mode$copy eio: message does not give the offset $n: $(cat "$work/err")"
		else
			pass
		fi
	done

	# An error in the first file does not stop the second.
	pc --mode "$mode" "$mnt/size=4m,eio=$bad,tag=2$mode" "$mnt/size=100005,tag=$mode"; rc=$?
	if [ $rc != 1 ] || ! tail -c 100005 "$work/out" | cmp -s - "$work/ref100k"; then
		fail_later "$mode: after a failing file, exit $rc and the next file not exact"
	else
		pass
	fi

	pc --mode "$mode" "$mnt/size=3145733,short=1000,tag=$mode"; rc=$?
	if [ $rc != 0 ] || ! cmp -s "$work/out" "$work/ref3m"; then
		fail_later "$mode short reads: exit $rc, $(size "$work/out") of 3145733 bytes, $(cmp "$work/out" "$work/ref3m" 2>&1 | head -1)"
	else
		pass
	fi

	pc --mode "$mode" "$mnt/size=8m,shrink=2m:5242957,tag=$mode"; rc=$?
	n=$(size "$work/out")
	if [ $rc != 0 ] || [ "$n" != 5242957 ] || ! cmp -s -n "$n" "$work/out" "$work/ref8m"; then
		fail_later "$mode shrink: exit $rc, $n bytes, want 5242957 exact"
	else
		pass
	fi

	pc --mode "$mode" --stats "$mnt/size=4m,nodirect,tag=$mode"; rc=$?
	if [ $rc != 0 ] || ! cmp -s "$work/out" "$work/ref4m"; then
		fail_later "$mode nodirect: exit $rc or bytes differ"
	elif [ "$mode" = direct ] && ! grep -q "O_DIRECT refused" "$work/err"; then
		fail_later "$mode nodirect: --stats does not say O_DIRECT was refused: $(cat "$work/err")"
	else
		pass
	fi
done

# One descriptor left after the file's own (the dynamic loader needs one to
# start, so a failing open(2) itself is tested in test-fault-rlimit): direct
# cannot reopen with O_DIRECT, falls back, says why, and is exact.
(ulimit -n 4; exec timeout 30 "$PAGECLIFF" cat --mode direct --stats "$mnt/size=4m") \
	>"$work/out" 2>"$work/err"; rc=$?
if [ $rc != 0 ] || ! cmp -s "$work/out" "$work/ref4m" ||
   ! grep -q "Too many open files" "$work/err"; then
	fail_later "RLIMIT_NOFILE 4: exit $rc, $(cat "$work/err")"
else
	pass
fi

# A 512 MiB buffer under a 256 MiB address-space limit: a clear error.
# (Not under AddressSanitizer, whose shadow needs the address space.)
grep -qa -e __asan_init -e __tsan_init "$PAGECLIFF" && copies=() || copies=("" --copy)
for copy in "${copies[@]}"; do
	(ulimit -v 262144; exec timeout 30 "$PAGECLIFF" cat --bs 512m $copy "$mnt/size=4m") \
		>"$work/out" 2>"$work/err"; rc=$?
	# Lending through direct bounds its buffers (PC_DIRECT_INFLIGHT_MAX): then
	# it works, and the bytes must be exact; a 512 MiB copy buffer cannot.
	if [ $rc = 0 ] && [ -z "$copy" ] && cmp -s "$work/out" "$mnt/size=4m"; then
		pass
	elif [ $rc != 1 ] || ! grep -q "Cannot allocate memory\|cannot allocate" "$work/err"; then
		fail_later "RLIMIT_AS 256m --bs 512m $copy: exit $rc, $(cat "$work/err")"
	else
		pass
	fi
done

checks_done
