#!/bin/sh
# SPDX-License-Identifier: MIT
# `git clone --no-local` of a repository holding one 256 MiB random file
# (issue 31: a 1 GiB source pack and the received one stayed fully cached),
# under run --via outside: the sender maps its pack and copies from the
# mapping, the receiver writes a pack and reads it back, the checkout
# writes the file.  The clone exits 0, its file is the source's; the source
# pack, the received pack and the checked-out file each keep at most the
# budget cached after; --stats has a line of the kernel view for the source
# pack and the checked-out file.
. "$(dirname "$0")/kview-harness.sh"
command -v git >/dev/null || skip "no git (setup.sh test packages: git)"
export HOME="$dir" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=pagecliff GIT_AUTHOR_EMAIL=pagecliff@localhost \
	GIT_COMMITTER_NAME=pagecliff GIT_COMMITTER_EMAIL=pagecliff@localhost
git init -q "$dir/src" || fail "git init"
head -c $((256 * MIB)) /dev/urandom > "$dir/src/big" || fail "cannot make big"
# Straight into a pack, stored (random bytes do not compress).
git -C "$dir/src" -c core.bigFileThreshold=1m -c core.compression=0 add big &&
	git -C "$dir/src" commit -qm big || fail "cannot commit big"
set -- "$dir"/src/.git/objects/pack/*.pack
[ $# -eq 1 ] && [ -f "$1" ] || fail "not one pack in the source: $*"
spack=$1
for f in "$spack" "$dir/src/big"; do
	"$SHIM_PAGESTAT" evict "$f" || fail "cannot evict $f"
done
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- git clone -q --no-local "$dir/src" "$dir/dst" \
	2>"$dir/err" || fail "git clone failed: $(cat "$dir/err")"
set -- "$dir"/dst/.git/objects/pack/*.pack
[ $# -eq 1 ] && [ -f "$1" ] || fail "not one pack in the clone: $*"
dpack=$1
at_most "$spack"
at_most "$dpack"
at_most "$dir/dst/big"
kstats "$spack" 128
kstats_any "$dir/dst/big" 128
cmp -s "$dir/src/big" "$dir/dst/big" || fail "the cloned file differs"
echo "PASS: git clone --no-local of a 256 MiB file (cached after:$report)"
