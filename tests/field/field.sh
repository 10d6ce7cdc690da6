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
# For programs that write or read through stdio's small buffers (seq, awk,
# tail, a C stdio writer and readers, tail -f behind a writer) also the
# time: under the shim at most 1.5 times the plain run's plus 0.3 s, the
# better of three interleaved pairs (the machine is shared; a ratio within
# one test, never an absolute time; for writers both runs end with `sync` of
# the output, as the shim writes back what it keeps out of the cache); and
# for writers that --stats counts every byte of the output.
set -u
prog=$1
# Argument 2, outside: the watcher instead of the shim (run --via outside).
way=${2:-}
CAP=256m
# Per file at most the budget stays cached, the watcher's too: what a reader
# read after the watcher's last look is dropped at its end.
MAX_FILE=$((64 << 20))
MIB=320
RATIO=1.5
SLACK=0.3
case $prog in
awk|getc) MIB=48 ;;	# a few seconds plainly
esac

for v in PAGECLIFF SHIM_CGRUN SHIM_PAGESTAT; do
	eval "[ -n \"\${$v:-}\" ]" || { echo "FAIL: $v is not set"; exit 1; }
done
. "$(dirname "$0")/../harness.sh"
needs_root "for memory cgroups"
need() { command -v "$1" >/dev/null || { echo "SKIP: no $1 (setup.sh test_packages)"; exit 77; }; }

make_tmpdir dir "${TMPDIR:-/var/tmp}"
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
seq) cmd="seq 1 14000000 > $dir/out"; outs=out; timed=1 ;;	# stdio, 4 KiB flushes
awk) cmd="awk '{ print \$1, \$1 }' $src > $dir/out"; outs=out; timed=1 ;;
tail-c) cmd="tail -c +1 $src > $dir/out"; outs=out; timed=1 ;;	# fwrite of 8 KiB reads
stdio-c) cmd="$FIELD_STDIO write $dir/out 160"; outs=out; timed=1 ;;
tail-f) need timeout	# a follower behind a stdio writer; ends when the writer does
	# tail starts once the writer made the file: before, a loaded machine
	# let tail -F say on stderr that it could not open it yet
	cmd="$FIELD_STDIO write $dir/out 160 & w=\$!; until [ -e $dir/out ]; do sleep 0.01; done; timeout 60 tail -q -s 0.05 --pid=\$w -c +1 -F $dir/out > $dir/copy; wait \$w"
	outs="out copy"; timed=1 ;;
fread-4k) cmd="$FIELD_STDIO fread $src"; timed=1 ;;
getc) cmd="$FIELD_STDIO getc $src"; timed=1 ;;
*) fail "no command for $prog" ;;
esac
timed=${timed:-}
[ -z "$timed" ] || [ -n "${FIELD_STDIO:-}" ] || fail "FIELD_STDIO is not set"
# A timed writer's time includes writing its output back (sync FILE), in both
# runs: to keep at most a few batches cached the shim must wait for the disk,
# which the plain run leaves to later; on a busy shared disk that wait, not
# the shim's work per call, would decide the ratio.
case $prog in
seq|awk|tail-c|stdio-c|tail-f) cmd="$cmd; sync $dir/out" ;;
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
[ "$prog" != tail-f ] || cmp -s "$dir/out" "$dir/copy" || fail "tail -f under the shim did not copy the whole file"
cmp -s "$dir/plain.rc" "$dir/shim.rc" || fail "exit status $(cat "$dir/plain.rc") plain, $(cat "$dir/shim.rc") with the shim"
[ "$(cat "$dir/plain.rc")" = 0 ] || fail "exit status $(cat "$dir/plain.rc"): $(head -c 300 "$dir/plain.err")"
cmp -s "$dir/plain.sums" "$dir/shim.sums" || fail "output differs with the shim"
cmp -s "$dir/plain.err" "$dir/shim.err" || fail "stderr differs: '$(head -c 200 "$dir/shim.err")'"
peak() { awk '/^peak_cache/ { print int($2 / 1048576) }' "$dir/$1.rep"; }
report="peak $(peak plain) MiB plain, $(peak shim) MiB with the shim (cap $CAP)"
while read -r f bytes; do
	report="$report; $(basename "$f") $((bytes >> 20)) MiB left"
done < "$dir/shim.cached"

# timed programs: the better of three interleaved pairs within the bound
secs() { awk '/^seconds/ { print $2 }' "$dir/$1.rep"; }
if [ -n "$timed" ]; then
	best_p=$(secs plain)
	best_s=$(secs shim)
	try=1
	while ! awk -v p="$best_p" -v s="$best_s" -v r=$RATIO -v c=$SLACK \
		'BEGIN { exit !(s <= r * p + c) }'; do
		[ $try -lt 3 ] || fail "$best_s s with the shim against $best_p s plainly (bound $RATIO x + $SLACK s; best of 3)"
		try=$((try + 1))
		run plain
		run shim "$PAGECLIFF" run ${way:+--via "$way"} --stats="$dir/stats" --
		best_p=$(printf '%s\n%s\n' "$best_p" "$(secs plain)" | sort -g | head -1)
		best_s=$(printf '%s\n%s\n' "$best_s" "$(secs shim)" | sort -g | head -1)
	done
	report="$report; $best_s s with the shim, $best_p s plainly"
	# a writer's stats line counts every byte it wrote, the last buffer too
	case $prog in
	seq|awk|tail-c|stdio-c|tail-f)
		size=$(stat -c %s "$dir/out")
		grep -q "^pagecliff: $dir/out: $size bytes written, " "$dir/stats" ||
			fail "--stats does not count the $size bytes written: $(cat "$dir/stats")" ;;
	esac
fi

case $prog in
git)	# git hash-object maps files it can: the shim's documented limit;
	# the watcher follows mappings by the kernel's view where it loads
	want="pagecliff: $src: mapped with mmap(2): reads through the map are not seen, the shim did not act on the file from then on"
	[ "$way" = outside ] &&
		want="pagecliff: $src: mapped with mmap(2) by pid [0-9]*: out of the watcher's reach, its pages are not dropped"
	if ! grep -q "^pagecliff: streams followed by the kernel's view" "$dir/stats" ||
		[ "$way" != outside ]; then
		grep -qx "$want" "$dir/stats" || fail "no line '$want' in --stats: $(cat "$dir/stats")"
		echo "PASS: $prog: same output; documented limit (mmap) said in --stats; $report"
		exit 0
	fi ;;
esac
while read -r f bytes; do
	[ "$bytes" -le $MAX_FILE ] ||
		fail "$((bytes >> 20)) MiB of $(basename "$f") left cached ($(cat "$dir/stats"))"
done < "$dir/shim.cached"
echo "PASS: $prog${way:+ ($way)}: same output, status and stderr; $report"
