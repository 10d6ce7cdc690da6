#!/bin/bash
# SPDX-License-Identifier: MIT
# Destination names as cp(1) treats them, message for message: 'cp s1/x
# s2/x d' copies s1/x and will not overwrite the just-created d/x with s2/x
# (exit 1, a third source still copied), while trees merge as cp(1) merges them; 'cp f nonexist/' and
# 'cp f file/' say "Not a directory" and make nothing.
set -u
. "$(dirname "$0")/harness.sh"
make_tmpdir dir
cd "$dir" || exit 1
mkdir s1 s2 s3
echo one >s1/x && echo two >s2/x && echo three >s3/y

# Run /bin/cp and pagecliff cp with the same arguments, into $1.gnu and
# $1.pc; the messages, less the program's name, must be the same.
both() {
	local tag=$1
	shift
	rm -rf "gnu" "pc" && mkdir gnu pc
	/bin/cp "${@/#DST/gnu}" 2>"$tag.gnu.err"; grc=$?
	"$pc" cp "${@/#DST/pc}" 2>"$tag.pc.err"; rc=$?
	[ $rc = 1 ] && [ $grc = 1 ] || fail "$tag: exit $rc, cp(1) $grc"
	sed 's|^/bin/cp: ||; s|gnu|DST|g' "$tag.gnu.err" >"$tag.want"
	sed 's|^pagecliff: error: ||; s|\bpc\b|DST|g' "$tag.pc.err" >"$tag.got"
	cmp -s "$tag.want" "$tag.got" || fail "$tag: '$(cat "$tag.got")', cp(1) '$(cat "$tag.want")'"
}
both just-created s1/x s2/x s3/y DST
[ "$(cat pc/x)" = one ] && [ "$(cat pc/y)" = three ] || fail "just-created: d/x '$(cat pc/x)'"
grep -qx "will not overwrite just-created 'DST/x' with 's2/x'" just-created.got ||
	fail "just-created: '$(cat just-created.got)'"
mkdir -p t1/d t2/d && echo a >t1/d/f && echo b >t2/d/f
# Within trees cp(1) merges and overwrites: only operands are checked.
mkdir gnu-tree2 pc-tree2
/bin/cp -r t1/d t2/d gnu-tree2 && "$pc" cp -r t1/d t2/d pc-tree2 || fail "-r t1/d t2/d into: exit $?"
[ "$(cat pc-tree2/d/f)" = "$(cat gnu-tree2/d/f)" ] || fail "merged trees: '$(cat pc-tree2/d/f)'"

echo keep >file

for d in nonexist/ file/; do
	/bin/cp s1/x $d 2>gnu.err; grc=$?
	"$pc" cp s1/x $d 2>pc.err; rc=$?
	[ $rc = 1 ] && [ $grc = 1 ] || fail "'$d': exit $rc, cp(1) $grc"
	[ "$(sed 's|^pagecliff: error: ||' pc.err)" = "$(sed 's|^/bin/cp: ||' gnu.err)" ] ||
		fail "'$d': '$(cat pc.err)', cp(1) '$(cat gnu.err)'"
	grep -q ": Not a directory$" pc.err || fail "'$d': '$(cat pc.err)'"
done
[ ! -e nonexist ] && [ "$(cat file)" = keep ] || fail "Not a directory: something was made"
echo "cp refuses just-created destinations and says Not a directory as cp(1)"
