#!/bin/sh
# SPDX-License-Identifier: MIT
# Pages cached before stay cached whatever way a reader reads (issue 31:
# the kernel view drops only what the stream itself added): a 256 MiB file
# whose 64 MiB from 96 MiB on were read by dd first is read whole under run
# --via outside by pread, a preadv pool of four, a shared and a private
# mapping, and one copy_file_range into another file.  Each reader exits 0
# and sees every byte (pread: its count; the pool and the mappings: their
# sum is the file's; the copy is exact, and within the budget); the window
# is still cached after, all but what the kernel alone loses (KERNEL_LOSS and
# what kernel threads took, as in test-outside-warm.sh), and of the rest of the file at most the
# budget; --stats has a line of the kernel view for the file.
. "$(dirname "$0")/kview-harness.sh"
f=$dir/f
mkfile "$f" 256
ref=$("$P" sum "$f") || fail "cannot sum $f"
OFF=$((96 * MIB)) LEN=$((64 * MIB))
KERNEL_LOSS=$MIB

# attempt READER ARGS...: warm the window, run the reader; 2 when warm pages were taken.
attempt() {
	"$SHIM_PAGESTAT" evict "$f" || fail "cannot evict $f"
	warm "$f" $OFF $LEN dd if="$f" of=/dev/null bs=1M skip=96 count=64 status=none
	[ "$(cached "$f" $OFF $LEN)" -eq $LEN ] || skip "the window would not stay cached"
	wbefore=$(cached "$f")	# with dd's readahead past it: cached before too
	kernel_loss_start "$f"
	rm -f "$dir/stats" "$dir/copy"
	"$PAGECLIFF" run --via outside --stats="$dir/stats" -- "$P" "$@" >"$dir/out" 2>"$dir/err" ||
		fail "$1: the reader failed: $(cat "$dir/err")"
	win=$(cached "$f" $OFF $LEN)
	taken=$(kernel_loss $OFF $LEN)
	[ "$win" -ge $((LEN - KERNEL_LOSS - taken)) ] || return 2
}

# check READER ARGS...
check() {
	name=$1
	[ "$1" = mmap ] && name="mmap $3"
	warm_tries attempt "$@"
	[ "$win" -ge $((LEN - KERNEL_LOSS - taken)) ] ||
		fail "$name: of the 64 MiB window at 96 MiB $((win / MIB)) MiB are left ($((taken >> 10)) KiB taken by kernel threads): $(cat "$dir/stats")"
	all=$(cached "$f")
	[ "$all" -le $((wbefore + LIMIT)) ] ||
		fail "$name: $((all / MIB)) MiB cached after (the $((wbefore / MIB)) MiB cached before and $((LIMIT / MIB)) at most)"
	kstats "$f" 64
	report="$report, $name $((win / MIB))/$((all / MIB))"
	case $1 in
	cfr)
		at_most "$dir/copy"
		cmp -s "$f" "$dir/copy" || fail "cfr: the copy differs" ;;
	pread)
		grep -q "^$f: $((256 * MIB)) bytes fd " "$dir/out" || fail "pread: $(cat "$dir/out")" ;;
	*)
		[ "$(cat "$dir/out")" = "$ref" ] || fail "$name: read other bytes: $(cat "$dir/out")" ;;
	esac
}

check pread "$f" 0
check preadv-pool "$f" 4
check mmap "$f" shared
check mmap "$f" private
check cfr "$f" "$dir/copy"
echo "PASS: the warm window stayed (MiB of it left/of the file after$report)"
