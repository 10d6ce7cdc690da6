#!/bin/bash
# SPDX-License-Identifier: MIT
# Nothing of the user's is touched: output paths are checked before anything
# is made (exit 2, one line); the default chart never replaces a file bench
# did not write; a symlinked or user-made data folder, a user file with
# bench's header, a directory given twice, an empty --mode item and a
# read-only directory are refused up front or left as they were.
. "$(dirname "$0")/harness.sh"
tmpdir
B=(--size 1m --mode buffered --interval 100ms -q)

mkdir "$T/d"
# 3. Output paths: checked before the run; made ones are removed again.
expect_usage "cannot write report '/nonexistent/r.txt': No such file or directory" \
	-d "$T/d" "${B[@]}" -o /nonexistent/r.txt
expect_usage "cannot write timeline '$T/d': Is a directory" \
	-d "$T/d" "${B[@]}" -o "$T/r.txt" --timeline "$T/d"
[ ! -e "$T/r.txt" ] || fail "the report file made before a refusal was left"
expect_usage "cannot write plot '/nonexistent/p.svg'" -d "$T/d" "${B[@]}" --plot /nonexistent/p.svg
echo "mine" >"$T/mine.txt"
expect_usage "the report and the plot are the same file '$T/./mine.txt'" \
	-d "$T/d" "${B[@]}" -o "$T/mine.txt" --plot "$T/./mine.txt"
[ "$(cat "$T/mine.txt")" = mine ] || fail "a refused run changed the user's report file"
[ -z "$(ls -A "$T/d")" ] || fail "refused runs created $(ls -A "$T/d")"

# 4. The same directory twice, empty list items, a read-only directory.
expect_usage "directory '$T/d' is given twice (as '$T/d' before)" -d "$T/d:$T/d"
(cd "$T" && expect_usage "directory './d' is given twice (as '$T/d' before)" -d "$T/d:./d") ||
	exit 1
expect_usage "empty item in --mode" -d "$T/d" --mode buffered,,direct
expect_usage "empty item in --mode" -d "$T/d" --mode buffered,
expect_usage "empty item in --directory" -d "$T/d::$T/d"
mkdir "$T/ro"
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	n=$((n + 1))
	unshare -m sh -c 'mount -t tmpfs -o ro none "$1" && exec "$2" bench -d "$1" --size 1m -q' \
		sh "$T/ro" "$PAGECLIFF" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 2 ] || fail "read-only directory: exit $rc, want 2: $(cat "$T/err")"
	grep -qxF "pagecliff: cannot write in directory '$T/ro': Read-only file system" "$T/err" ||
		fail "read-only directory: $(cat "$T/err")"
elif [ "$(id -u)" != 0 ]; then
	chmod 555 "$T/ro"
	expect_usage "cannot write in directory '$T/ro': Permission denied" -d "$T/ro" --size 1m
fi

# A symlinked data folder is not followed; the target stays empty.
mkdir "$T/target" "$T/s"
ln -s "$T/target" "$T/s/pagecliff-bench"
expect_usage "'$T/s/pagecliff-bench' is a symbolic link: refusing to follow" -d "$T/s" "${B[@]}"
[ -z "$(ls -A "$T/target")" ] || fail "wrote into the symlink's target: $(ls -A "$T/target")"

# A data folder the user made stays, empty, after a run.
mkdir "$T/u" "$T/u/pagecliff-bench"
"$PAGECLIFF" bench -d "$T/u" "${B[@]}" -o /dev/null 2>"$T/err" || fail "run in user folder: $(cat "$T/err")"
[ -d "$T/u/pagecliff-bench" ] || fail "removed the user's empty pagecliff-bench folder"
[ -z "$(ls -A "$T/u/pagecliff-bench")" ] || fail "left $(ls -A "$T/u/pagecliff-bench")"

# A user's copy of a bench data file (bench's header) is not bench's.
"$PAGECLIFF" bench -d "$T/d" "${B[@]}" --keep -o /dev/null 2>"$T/err" || fail "keep run: $(cat "$T/err")"
mkdir "$T/c" "$T/c/pagecliff-bench"
cp "$T/d/pagecliff-bench/job0.dat" "$T/c/pagecliff-bench/job0.dat"
sum=$(sha256sum <"$T/c/pagecliff-bench/job0.dat")
expect_usage "job0.dat' was not made by pagecliff bench" -d "$T/c" "${B[@]}" --size 2m
[ "$(sha256sum <"$T/c/pagecliff-bench/job0.dat")" = "$sum" ] || fail "user's copy was rewritten"
expect_usage "job0.dat' was not made by pagecliff bench" -d "$T/c" "${B[@]}"
[ "$(ls "$T/c/pagecliff-bench")" = job0.dat ] || fail "left in the user's folder: $(ls "$T/c/pagecliff-bench")"
# ... while the kept one is bench's: reused, then removed with its folder.
"$PAGECLIFF" bench -d "$T/d" "${B[@]}" -o /dev/null 2>"$T/err" || fail "reuse run: $(cat "$T/err")"
grep -q "laying out" "$T/err" && fail "the kept data set was not reused"
[ ! -e "$T/d/pagecliff-bench" ] || fail "bench's folder stayed: $(ls -A "$T/d/pagecliff-bench")"

# The default chart (the built-in job, as a user) never replaces a user's file.
command -v setpriv >/dev/null || skip "no setpriv; $n checks passed"
if [ "$(id -u)" = 0 ]; then
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
	as_user() { "$@"; }
fi
mkdir "$T/w" && chmod 777 "$T/w" "$T"
echo "<svg>the user's own drawing</svg>" >"$T/w/pagecliff-bench.svg"
chmod 666 "$T/w/pagecliff-bench.svg"
sum=$(sha256sum <"$T/w/pagecliff-bench.svg")
for i in 1 2; do
	(cd "$T/w" && TMPDIR=$T/w as_user "$PAGECLIFF" bench --size 8m --numjobs 1 --runtime 1 \
		--time_based --interval 100ms -q -o "$T/w/report.txt") 2>"$T/err" ||
		fail "built-in job: $(cat "$T/err")"
	[ "$(sha256sum <"$T/w/pagecliff-bench.svg")" = "$sum" ] || fail "the user's chart was overwritten"
	grep -qx "chart: pagecliff-bench-1.svg" "$T/err" || fail "run $i: $(cat "$T/err")"
	grep -q "^note: the chart goes to pagecliff-bench-1.svg: pagecliff-bench.svg was not made by pagecliff bench" \
		"$T/w/report.txt" || fail "the report does not say where the chart went"
	grep -q "written by pagecliff bench" "$T/w/pagecliff-bench-1.svg" || fail "no marker in the chart"
done
[ ! -e "$T/w/pagecliff-bench-2.svg" ] || fail "bench's own chart was not reused"
n=$((n + 1))
echo "PASS: $n checks, nothing of the user's touched"
