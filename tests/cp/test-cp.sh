#!/bin/bash
# SPDX-License-Identifier: MIT
# pagecliff cp copies byte for byte in every mode (sizes 0, 1, 4097,
# 64 MiB + 3), into a directory, trees with -r (links kept as links, empty
# and nested directories), -p keeps mode, times and (as root) owner, sparse
# files stay sparse, an existing destination is truncated and rewritten, a
# copy onto itself (also through a hard link or a symbolic link) and onto a
# directory is refused, a missing source
# is named and the rest still copied with exit 1, bad options exit 2, and
# the streaming modes leave at most 64 MiB of a 192 MiB file cached.
set -u
. "$(dirname "$0")/harness.sh"
make_tmpdir dir
cd "$dir" || exit 1

head -c 67108867 /dev/urandom >big
printf x >one
head -c 4097 /dev/urandom >odd
: >empty
modes=$("$pc" cp --list-modes) && [ -n "$modes" ] || fail "cp --list-modes: exit $?"
for m in $modes; do
	for f in empty one odd big; do
		"$pc" cp --mode $m $f $f.$m || fail "$m: cp $f exit $?"
		same $f $f.$m "$m"
	done
	"$pc" cp --mode $m --bs 4k odd odd.4k.$m && same odd odd.4k.$m "$m --bs 4k"
	rm -f ./*.$m
done

# An existing, longer destination is truncated and rewritten, as cp(1) does.
head -c 100000 /dev/urandom >long
"$pc" cp odd long || fail "overwrite: exit $?"
same odd long overwrite

# DST a directory: DST/name, for one source and several.
mkdir into
"$pc" cp one odd into && same one into/one && same odd into/odd || fail "into a directory"
"$pc" cp one odd nodir 2>err
[ $? = 1 ] && grep -q "target 'nodir': No such file or directory" err ||
	fail "several sources, no directory: '$(cat err)'"

# -r: nested and empty directories, a symbolic link copied as a link.
mkdir -p tree/a/b/c tree/empty
printf deep >tree/a/b/c/f
ln -s ../c/f tree/a/b/link
ln -s /nonexistent tree/dangling
ln tree/a/b/c/f tree/hard
"$pc" cp -r tree copy || fail "-r: exit $?"
same tree/a/b/c/f copy/a/b/c/f -r
[ -d copy/empty ] && [ -z "$(ls -A copy/empty)" ] || fail "-r: empty directory not copied"
[ "$(readlink copy/a/b/link)" = ../c/f ] || fail "-r: link is '$(readlink copy/a/b/link)'"
[ -L copy/dangling ] && [ "$(readlink copy/dangling)" = /nonexistent ] ||
	fail "-r: dangling link not copied as a link"
same tree/hard copy/hard "-r hard link"
[ "$(stat -c %h copy/hard)" = 1 ] || fail "-r: a hard link was not copied as a separate file"
"$pc" cp -r tree copy || fail "-r into an existing directory: exit $?"
[ -d copy/tree/a/b/c ] || fail "-r into an existing directory: no copy/tree"
"$pc" cp tree notree 2>err
[ $? = 1 ] && grep -q "omitting directory 'tree'" err || fail "no -r: '$(cat err)'"
"$pc" cp -r tree tree/a 2>err
[ $? = 1 ] && grep -q "cannot copy a directory, 'tree', into itself, 'tree/a/tree'" err ||
	fail "into itself: '$(cat err)'"

# -p: mode, times with nanoseconds, owner as root.
chmod 0751 odd
touch -d '2001-02-03 04:05:06.123456789' odd
[ "$(id -u)" = 0 ] && chown 1234:5678 odd
"$pc" cp -p odd kept || fail "-p: exit $?"
[ "$(stat -c '%a %y' kept)" = "$(stat -c '%a %y' odd)" ] ||
	fail "-p: '$(stat -c '%a %y' kept)' vs '$(stat -c '%a %y' odd)'"
if [ "$(id -u)" = 0 ]; then
	[ "$(stat -c %u:%g kept)" = 1234:5678 ] || fail "-p owner: $(stat -c %u:%g kept)"
fi
"$pc" cp odd notkept
[ "$(stat -c %a notkept)" = "$(printf %o $((0751 & ~$(umask))))" ] ||
	fail "no -p: mode $(stat -c %a notkept), want the source's less the umask"
[ "$(stat -c %Y notkept)" != "$(stat -c %Y odd)" ] || fail "no -p: times kept"
mkdir -p ptree/d && chmod 0700 ptree/d && touch -d '2002-01-01' ptree/d
"$pc" cp -rp ptree ptree2 || fail "-rp: exit $?"
[ "$(stat -c '%a %Y' ptree2/d)" = "$(stat -c '%a %Y' ptree/d)" ] || fail "-rp: directory not kept"

# Sparse: holes stay holes, the size is kept, also with a hole at the end.
truncate -s 64M sparse
printf data | dd of=sparse bs=1 seek=40000000 conv=notrunc status=none
truncate -s 80M sparse
for m in auto direct dropbehind; do
	"$pc" cp --mode $m sparse sparse.$m || fail "sparse $m: exit $?"
	same sparse sparse.$m "sparse $m"
	[ "$(stat -c %s sparse.$m)" = 83886080 ] || fail "sparse $m: size $(stat -c %s sparse.$m)"
	[ "$(stat -c %b sparse.$m)" -le 1024 ] || fail "sparse $m: $(stat -c %b sparse.$m) blocks"
done

# Onto itself, also through a hard link and through DST/name: refused, untouched.
ln odd odd.hard
sum=$(sha256sum <odd)
"$pc" cp odd odd 2>err; rc=$?
[ $rc = 1 ] && grep -q "'odd' and 'odd' are the same file" err || fail "self: $rc '$(cat err)'"
"$pc" cp odd odd.hard 2>err; rc=$?
[ $rc = 1 ] && grep -q "'odd' and 'odd.hard' are the same file" err || fail "hard link: '$(cat err)'"
"$pc" cp odd . 2>err; rc=$?
[ $rc = 1 ] && grep -q "'odd' and './odd' are the same file" err || fail "into its own directory: '$(cat err)'"
ln -s odd odd.link
"$pc" cp odd odd.link 2>err; rc=$?
[ $rc = 1 ] && grep -q "'odd' and 'odd.link' are the same file" err || fail "through a link: '$(cat err)'"
[ "$(sha256sum <odd)" = "$sum" ] || fail "the source changed"
mkdir -p dirdst/odd
"$pc" cp odd dirdst 2>err; rc=$?
[ $rc = 1 ] && grep -q "cannot overwrite directory 'dirdst/odd' with non-directory" err ||
	fail "onto a directory: $rc '$(cat err)'"

# A missing source: named, the next one still copied, exit 1.
rm -rf into && mkdir into
"$pc" cp missing one into 2>err; rc=$?
[ $rc = 1 ] || fail "missing source: exit $rc"
grep -q "cannot stat 'missing': No such file or directory" err || fail "missing: '$(cat err)'"
same one into/one "after a missing source"

# Bad command lines: one line, exit 2 (a missing operand 1, as in cp(1)).
"$pc" cp --mode fast one x 2>err; rc=$?
[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q "unknown mode 'fast'" err || fail "bad mode: $rc '$(cat err)'"
"$pc" cp one 2>err; rc=$?
[ $rc = 1 ] && grep -q "missing destination file operand after 'one'" err || fail "one operand: $rc '$(cat err)'"
[ ! -e x ] || fail "a bad command line made a file"

# Cache left: at most 64 MiB of either side of a 192 MiB copy.
head -c 201326592 /dev/urandom >huge
# buffered is the one that caches
for m in $(echo "$modes" | grep -vx buffered); do
	evict huge
	"$pc" cp --stats --mode $m huge huge.$m 2>err || fail "huge $m: exit $?"
	s=$(cached huge) d=$(cached huge.$m)
	same huge huge.$m "huge $m"
	grep -q "^huge -> huge.$m: 201326592 bytes" err || fail "huge $m stats: '$(cat err)'"
	grep -q "read:  strategy" err && grep -q "write: strategy" err || fail "huge $m stats: '$(cat err)'"
	[ "$s" -le 67108864 ] || fail "$m left $s bytes of the source cached: $(cat err)"
	[ "$d" -le 67108864 ] || fail "$m left $d bytes of the destination cached"
	echo "$m: cached after: source $s, destination $d bytes"
	rm -f huge.$m
done
# A chunk so large that one write is in flight, a length not a multiple of
# the page: the last lent buffer is committed unaligned (it hung).
head -c 20000000 /dev/urandom > big16 || exit 1
timeout 120 "$pc" cp --mode direct --bs 16m big16 big16.copy ||
	fail "cp --mode direct --bs 16m of 20000000 bytes: exit $?"
same big16 big16.copy "--bs 16m direct"
rm -f big16 big16.copy
out=$("$pc" cp --bs 128m odd odd.big 2>&1)
[ $? = 2 ] && [ "$out" = "pagecliff: bad --bs '128m': a size from 1 byte to 64m" ] &&
	[ ! -e odd.big ] || fail "--bs 128m: '$out'"
echo "cp exact in every mode; trees, -p, sparse, refusals and errors as cp(1); cache bounded"
