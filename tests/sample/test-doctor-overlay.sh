#!/bin/sh
# SPDX-License-Identifier: MIT
# doctor on an overlay mount (made and removed here): it names the layers the
# overlay is stacked on, tries each strategy for real through the overlay and
# calls it ok only when it left no page cached, which this test measures on
# its own with `pagecliff cat` and fincore(1) on the real upper file; its
# advice names a strategy that acted, never one that did not.
set -u
pc=${PAGECLIFF:?PAGECLIFF is not set}
command -v python3 >/dev/null || { echo "SKIP: no python3 to check JSON"; exit 77; }
. "$(dirname "$0")/../harness.sh"
needs_root "to mount an overlay"
command -v fincore >/dev/null || { echo "SKIP: no fincore(1) to count pages"; exit 77; }
make_tmpdir tmp
mnt=""
cleanup() {
	[ -n "$mnt" ] && umount "$mnt"
	rm -rf "$tmp"
}
at_exit cleanup

mkdir "$tmp/l1" "$tmp/l2" "$tmp/u" "$tmp/w" "$tmp/m"
mount -t overlay pagecliff-doctor-ovl \
	-o "lowerdir=$tmp/l1:$tmp/l2,upperdir=$tmp/u,workdir=$tmp/w" "$tmp/m" ||
	{ echo "SKIP: cannot mount overlayfs here"; exit 77; }
mnt=$tmp/m
fstype=$(stat -f -c %T "$tmp/u")
[ "$fstype" = tmpfs ] && { echo "SKIP: $tmp is on tmpfs: nothing to evict"; exit 77; }
realtype=$(findmnt -n -o FSTYPE -T "$tmp/u")

# the test's own measure: pages of a file in the upper layer left cached by
# each mode, read cold through the overlay
head -c 1048576 /dev/urandom >"$tmp/m/data"
sync "$tmp/m/data"
# (buffered must keep all of it; DAMON may page some out behind its back,
# docs/MACHINES.md: warm_tries)
measure() {
	python3 -c 'import os,sys; fd=os.open(sys.argv[1],os.O_RDONLY); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED)' "$tmp/m/data"
	[ "$(fincore -n -b -o RES "$tmp/u/data" | tr -d " ")" = 0 ] || fail "cannot make $tmp/u/data cold"
	"$pc" cat --mode "$1" "$tmp/m/data" >"$tmp/copy" || fail "$1: cat failed"
	left=$(fincore -n -b -o RES "$tmp/u/data" | tr -d " ")
	cmp -s "$tmp/copy" "$tmp/u/data" || fail "$1: bytes differ"
	[ "$1" != buffered ] || [ "$left" = 1048576 ] || return 2
}
# every strategy by its name (auto is one of them at run time)
modes=$("$pc" cat --list-modes | grep -vx auto) && [ -n "$modes" ] || fail "cat --list-modes: exit $?"
for mode in $modes; do
	warm_tries measure $mode
	echo "$mode $left" >>"$tmp/measured"
done
grep -qx "buffered 1048576" "$tmp/measured" || fail "buffered read left $(cat "$tmp/measured")"

# doctor's own control read (buffered, 256 pages) meets the same reclaim:
# the check below exits 2 on a short control count, and doctor runs again.
judged() {
	"$pc" doctor --json --sample-ms 0 --path "$tmp/m" >"$tmp/out.json" 2>"$tmp/err" ||
		fail "doctor --path overlay: exit $? ($(cat "$tmp/err"))"
	python3 - "$tmp/out.json" "$tmp" "$realtype" "$tmp/measured" <<'PY'
import json, re, sys
got = {f["id"]: f for f in json.load(open(sys.argv[1]))["findings"]}
tmp, fs = sys.argv[2], sys.argv[3]
m = f"{tmp}/m"
measured = dict(l.split() for l in open(sys.argv[4]))
modes = [k for k in measured if k != "buffered"]    # buffered is the control
f = got.get(f"overlay.{m}")
want = f"overlay at {m} is stacked on upper {fs}, lower {fs}, {fs}"
if not f or f["title"] != want:
    sys.exit(f"FAIL: layers: '{f and f['title']}', want '{want}'")
want = f"upper {tmp}/u ({fs}), lower {tmp}/l1 ({fs}), {tmp}/l2 ({fs}); from /proc/self/mountinfo: "
if not f["evidence"].startswith(want):
    sys.exit(f"FAIL: layers evidence '{f['evidence']}', want '{want}...'")
ok = []
for mode in modes:
    f = got.get(f"overlay.{m}.{mode}")
    if not f:
        sys.exit(f"FAIL: no overlay.{m}.{mode} finding")
    ctl = re.search(r"buffered leaves (\S+)$", f["evidence"])
    if not ctl:
        sys.exit(f"FAIL: {mode}: the control read is not in the evidence: {f['evidence']}")
    if ctl.group(1) != "256":
        print(f"{mode}: doctor's control read left {ctl.group(1)} of 256 pages: again")
        sys.exit(2)
    acts = measured[mode] == "0"
    if f["status"] != ("ok" if acts else "warn"):
        sys.exit(f"FAIL: {mode}: doctor says {f['status']} ({f['title']}), "
                 f"pagecliff cat left {measured[mode]} bytes cached")
    if not f["title"].startswith(f"{mode} works on overlay" if acts else f"{mode} does not act on overlay"):
        sys.exit(f"FAIL: {mode}: title '{f['title']}'")
    if acts:
        ok.append(mode)
act = got[f"dontcache.{m}"]["action"]
for mode in modes:
    if f"--mode {mode}" in act and mode not in ok:
        sys.exit(f"FAIL: advice '{act}' names {mode}, which left pages cached")
if ok and f"--mode {ok[0]}" not in act:
    sys.exit(f"FAIL: advice '{act}' does not name {ok[0]}, which acted")
print("measured: " + ", ".join(f"{k} {v} bytes" for k, v in measured.items()))
PY
}
warm_tries judged
rc=$?
[ $rc = 0 ] || fail "doctor's findings on the overlay (above)"
echo "doctor on overlayfs: layers named, strategies judged by what they did"
