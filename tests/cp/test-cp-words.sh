#!/bin/bash
# SPDX-License-Identifier: MIT
# cp(1)'s words and exit status, run side by side with /bin/cp in the same
# situation, each in its own copy of the same files: a destination that is
# a symbolic link to nothing ("not writing through dangling symlink", the
# file it names not made, also with -r and into a directory); no operands
# and no destination (exit 1, as cp(1), not 2); and as nobody a directory
# it cannot open ("cannot access") and -p onto a file or directory of
# root's ("preserving times for", and nothing else tried).  Before, these
# said "cannot create regular file ...: No such file or directory", exited
# 2, "cannot open directory" and "cannot keep the mode".  The trees left
# are alike too.
set -u
. "$(dirname "$0")/harness.sh"
needs_root "to make files of root's and to run as nobody"
/bin/cp --version 2>/dev/null | grep -q "GNU coreutils" || skip "/bin/cp is not GNU cp"
id nobody >/dev/null 2>&1 || skip "no user nobody"
grp=$(id -gn nobody)
setpriv --reuid=nobody --regid="$grp" --clear-groups true 2>/dev/null ||
	skip "setpriv cannot drop to nobody"
make_tmpdir dir /tmp
chmod 0755 "$dir"
cd "$dir" || exit 1
setpriv --reuid=nobody --regid="$grp" --clear-groups test -x "$pc" || skip "nobody cannot run '$pc'"
n=0

# fixture DIR: the files each case starts from, root's, DIR writable by all
fixture() {
	mkdir "$1" && chmod 0777 "$1" || exit 1
	(
		cd "$1" || exit 1
		echo data >src
		ln -s nothing dangling
		mkdir into && ln -s ../nothing into/src
		echo old >roots && chmod 0666 roots
		mkdir shut && echo x >shut/f && chmod 0 shut
		mkdir tree && echo x >tree/f
		mkdir dst dst/tree && chmod 0777 dst dst/tree
	) || fail "cannot make the fixture in $1"
}

# tree DIR: what DIR holds, a line per entry: name, type, mode, owner, link, size
tree() { (cd "$1" && find . -mindepth 1 -printf '%p %y %m %u %l %s\n' | sort); }

# both WHO RC CP_SAYS PC_SAYS ARGS...: /bin/cp ARGS and pagecliff cp ARGS as
# WHO (root or nobody) exit RC; cp(1)'s first line after its name is CP_SAYS,
# pagecliff's one line is PC_SAYS; nothing on stdout; the trees are alike
both() {
	local who=$1 rc=$2 cp_says=$3 pc_says=$4 as=() grc prc
	shift 4
	n=$((n + 1))
	rm -rf gnu pc
	fixture gnu
	fixture pc
	[ "$who" = nobody ] && as=(setpriv --reuid=nobody --regid="$grp" --clear-groups)
	(cd gnu && "${as[@]}" /bin/cp "$@") >gnu.out 2>gnu.err
	grc=$?
	(cd pc && "${as[@]}" "$pc" cp "$@") >pc.out 2>pc.err
	prc=$?
	[ $grc = "$rc" ] && [ "$(head -n 1 gnu.err | sed 's|^/bin/cp: ||')" = "$cp_says" ] ||
		fail "the test is wrong: /bin/cp $* as $who: exit $grc: $(cat gnu.err)"
	[ $prc = "$rc" ] || fail "cp $* as $who: exit $prc, cp(1) $rc ($(cat pc.err))"
	[ "$(cat pc.err)" = "$pc_says" ] || fail "cp $* as $who: said '$(cat pc.err)', want '$pc_says'"
	[ ! -s pc.out ] || fail "cp $* as $who: wrote to stdout: $(cat pc.out)"
	[ "$(tree pc)" = "$(tree gnu)" ] ||
		fail "cp $* as $who: left $(diff <(tree gnu) <(tree pc) | tr '\n' ' ') beside cp(1)'s"
}

e="pagecliff: error:"
both root 1 "not writing through dangling symlink 'dangling'" \
	"$e not writing through dangling symlink 'dangling'" src dangling
both root 1 "not writing through dangling symlink 'dangling'" \
	"$e not writing through dangling symlink 'dangling'" -r src dangling
both root 1 "not writing through dangling symlink 'into/src'" \
	"$e not writing through dangling symlink 'into/src'" src into
[ ! -e pc/nothing ] || fail "a dangling destination: the file it names was made"

both root 1 "missing file operand" "pagecliff: missing file operand; see 'pagecliff cp --help'"
both root 1 "missing destination file operand after 'src'" \
	"pagecliff: missing destination file operand after 'src'" src

both nobody 1 "cannot access 'shut': Permission denied" \
	"$e cannot access 'shut': Permission denied" -r shut out
both nobody 1 "preserving times for 'roots': Operation not permitted" \
	"$e preserving times for 'roots': Operation not permitted" -p src roots
both nobody 1 "preserving times for 'dst/tree': Operation not permitted" \
	"$e preserving times for 'dst/tree': Operation not permitted" -rp tree dst

echo "PASS: $n cases worded and ended as cp(1)"
