#!/bin/sh
# SPDX-License-Identifier: MIT
# The shim in the field: one real program (argument 1), run plainly and under
# `pagecliff run` in a 256 MiB memory cgroup, on a 384 MiB file that is not
# cached before either run.  Compared: sha256 of the output (stdout, or the
# files written), exit status and stderr.  Measured: the cgroup's peak page
# cache and what stays cached of every file involved, source and destination.
# Asserted: the same results, and for the programs the shim covers at most
# 64 MiB cached per file after the run; for its documented limits (git
# hash-object reads through mmap) the exact --stats line instead.  Each
# command runs through sh -c, plainly and under the shim alike.
set -u
prog=$1
# Argument 2, outside: the watcher instead of the shim (run --via outside).
way=${2:-}
CAP=256m
MAX_FILE=$((64 << 20))
MIB=320

for v in PAGECLIFF SHIM_CGRUN SHIM_PAGESTAT; do
	eval "[ -n \"\${$v:-}\" ]" || { echo "FAIL: $v is not set"; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "SKIP: memory cgroups need root"; exit 77; }
need() { command -v "$1" >/dev/null || { echo "SKIP: no $1 (setup.sh test_packages)"; exit 77; }; }
fail() { echo "FAIL: $prog: $*"; exit 1; }

dir=$(mktemp -d "${TMPDIR:-/var/tmp}/pagecliff-field-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM
chmod 755 "$dir"
src=$dir/src
# Text that gzip gets through quickly, 1 MiB repeated.
seq 1 200000 | head -c 1048576 | python3 -c "
import sys
b = sys.stdin.buffer.read()
with open(sys.argv[1], 'wb') as f:
    for i in range($MIB):
        f.write(b)" "$src" || exit 1

# What the program reads and writes: $cmd, the files it writes in $outs.
outs=
case $prog in
cat) cmd="cat $src" ;;
cp) cmd="cp $src $dir/out"; outs=out ;;
dd-1M) cmd="dd if=$src of=$dir/out bs=1M status=none"; outs=out ;;
dd-4k) cmd="dd if=$src of=$dir/out bs=4k status=none"; outs=out ;;
tar-c) need tar; cmd="tar cf - -C $dir src" ;;
tar-x) need tar; tar cf "$dir/src.tar" -C "$dir" src && mkdir "$dir/x" && rm "$src" && src=$dir/src.tar
	cmd="tar xf $src -C $dir/x"; outs=x/src ;;
rsync) need rsync; cmd="rsync $src $dir/out"; outs=out ;;
split) need split; cmd="split -b 128m $src $dir/part."; outs="part.aa part.ab part.ac" ;;
sha256sum) cmd="sha256sum $src" ;;
gzip) need gzip; cmd="gzip -1 -c $src" ;;
python3-read) need python3
	cmd="python3 -c \"import sys; f = open(sys.argv[1], 'rb'); o = sys.stdout.buffer
for b in iter(lambda: f.read(1 << 20), b''): o.write(b)\" $src" ;;
python3-subprocess) need python3	# a child every 32 MiB, as subprocess does it (vfork)
	cmd="python3 -c \"import sys, subprocess; f = open(sys.argv[1], 'rb'); o = sys.stdout.buffer
for n, b in enumerate(iter(lambda: f.read(1 << 20), b'')):
    o.write(b)
    if n % 32 == 31: subprocess.run(['true'])\" $src" ;;
pv) need pv; cmd="pv -q $src" ;;
git) need git; cmd="git hash-object --no-filters $src" ;;
nobody) need setpriv; chown nobody "$src"
	cmd="setpriv --reuid=nobody --regid=nogroup --clear-groups cat $src" ;;
redirect) cmd="cat $src > $dir/out"; outs=out ;;	# the program never opens out
*) fail "no command for it" ;;
esac

# run LABEL [pagecliff run ...]: one run in a fresh cgroup, stdout into
# sha256sum; leaves $dir/LABEL.{err,rc,rep,sums,cached}.
run() {
	label=$1
	shift
	for o in $outs; do rm -f "$dir/$o"; done
	"$SHIM_PAGESTAT" evict "$src" || exit 1
	{ ("$SHIM_CGRUN" $CAP "$dir/$label.rep" "$@" sh -c "$cmd"; echo $? > "$dir/$label.rc") |
		sha256sum > "$dir/$label.sums"; } 2> "$dir/$label.err"
	: > "$dir/$label.cached"
	for f in "$src" $(for o in $outs; do echo "$dir/$o"; done); do
		echo "$f $("$SHIM_PAGESTAT" cached "$f")" >> "$dir/$label.cached"
	done
	for o in $outs; do sha256sum < "$dir/$o"; done >> "$dir/$label.sums"
}

run plain
run shim "$PAGECLIFF" run ${way:+--via "$way"} --stats="$dir/stats" --
cmp -s "$dir/plain.rc" "$dir/shim.rc" || fail "exit status $(cat "$dir/plain.rc") plain, $(cat "$dir/shim.rc") with the shim"
[ "$(cat "$dir/plain.rc")" = 0 ] || fail "exit status $(cat "$dir/plain.rc"): $(head -c 300 "$dir/plain.err")"
cmp -s "$dir/plain.sums" "$dir/shim.sums" || fail "output differs with the shim"
cmp -s "$dir/plain.err" "$dir/shim.err" || fail "stderr differs: '$(head -c 200 "$dir/shim.err")'"
peak() { awk '/^peak_cache/ { print int($2 / 1048576) }' "$dir/$1.rep"; }
report="peak $(peak plain) MiB plain, $(peak shim) MiB with the shim (cap $CAP)"
while read -r f bytes; do
	report="$report; $(basename "$f") $((bytes >> 20)) MiB left"
done < "$dir/shim.cached"

case $prog in
git)	# git hash-object maps files it can: a documented limit
	want="pagecliff: $src: mapped with mmap(2): reads through the map are not seen, the shim did not act on the file from then on"
	[ "$way" = outside ] &&
		want="pagecliff: $src: mapped with mmap(2) by pid [0-9]*: out of the watcher's reach, its pages are not dropped"
	grep -qx "$want" "$dir/stats" || fail "no line '$want' in --stats: $(cat "$dir/stats")"
	echo "PASS: $prog: same output; documented limit (mmap) said in --stats; $report"
	exit 0 ;;
esac
while read -r f bytes; do
	[ "$bytes" -le $MAX_FILE ] ||
		fail "$((bytes >> 20)) MiB of $(basename "$f") left cached ($(cat "$dir/stats"))"
done < "$dir/shim.cached"
echo "PASS: $prog${way:+ ($way)}: same output, status and stderr; $report"
