#!/bin/sh
# SPDX-License-Identifier: MIT
# doctor's exit status and words where it cannot look: a --root that does not
# exist or is no directory and a --path it cannot read are errors (exit 1,
# one line naming them), not "kernel version unknown" with exit 0; a
# read-only file system is called read-only, not "run as root".
set -u
pc=${PAGECLIFF:?PAGECLIFF is not set}
. "$(dirname "$0")/../harness.sh"
make_tmpdir tmp
mnt=""
cleanup() {
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
at_exit cleanup

# check RC MESSAGE ARGS...: doctor exits RC with exactly MESSAGE on stderr
check() {
	want_rc=$1 want=$2; shift 2
	"$pc" doctor --sample-ms 0 "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = "$want_rc" ] || fail "doctor $*: exit $rc, want $want_rc ($(cat "$tmp/err"))"
	[ "$(cat "$tmp/err")" = "$want" ] || fail "doctor $*: message '$(cat "$tmp/err")', want '$want'"
	[ ! -s "$tmp/out" ] || fail "doctor $*: printed findings although it failed"
}
check 1 "pagecliff: fatal: cannot access --root '/nonexistent': No such file or directory" \
	--root /nonexistent
: >"$tmp/file"
check 1 "pagecliff: fatal: bad --root '$tmp/file': not a directory" --root "$tmp/file"
check 1 "pagecliff: fatal: cannot access '$tmp/missing': No such file or directory" \
	--no-probe --path "$tmp/missing"

needs_root "to run as another user and to mount"
command -v setpriv >/dev/null || { echo "SKIP: no setpriv"; exit 77; }
chmod 755 "$tmp"
printf 'secret' >"$tmp/locked"
chmod 000 "$tmp/locked"
mkdir -m 700 "$tmp/private"
for p in "$tmp/locked" "$tmp/private"; do
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$pc" doctor --no-probe --sample-ms 0 --path "$p" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 1 ] || fail "unreadable --path $p as nobody: exit $rc, want 1"
	[ "$(cat "$tmp/err")" = "pagecliff: fatal: cannot read '$p': Permission denied" ] ||
		fail "unreadable --path $p: message '$(cat "$tmp/err")'"
done

# a read-only file system: said so, and root is not told to run as root
mkdir "$tmp/ro"
mount -t tmpfs -o ro,size=1m pagecliff-doctor-ro "$tmp/ro" ||
	{ echo "SKIP: cannot mount a read-only tmpfs"; exit 77; }
mnt=$tmp/ro
"$pc" doctor --json --sample-ms 0 --path "$tmp/ro" >"$tmp/out" 2>"$tmp/err" ||
	fail "doctor --path on a read-only fs: exit $? ($(cat "$tmp/err"))"
python3 - "$tmp/out" "$tmp/ro" <<'PY' || exit 1
import json, sys
where = sys.argv[2]
f = {f["id"]: f for f in json.load(open(sys.argv[1]))["findings"]}.get("dontcache." + where)
if not f:
    sys.exit(f"FAIL: no dontcache.{where} finding")
want = (f"{where} is on a read-only file system: nothing can be created there; "
        "give --path FILE for a file on it (opened read-only) to probe it")
if f["action"] != want or "Read-only file system" not in f["evidence"]:
    sys.exit(f"FAIL: read-only fs: {f['evidence']} / {f['action']}")
PY
echo "doctor: bad --root and unreadable --path exit 1 with one line; read-only fs named"
