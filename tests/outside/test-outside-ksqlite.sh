#!/bin/sh
# SPDX-License-Identifier: MIT
# sqlite3 on a 256 MiB database (issue 31: 979 MiB stayed cached): it reads
# with 4 KiB pread64 at increasing offsets on a read-write descriptor whose
# position never moves, and writes its outputs the same way.  `.backup`,
# `VACUUM INTO` and a full table scan (PRAGMA cache_size=16; count(*) and
# sum(length(x)) over a table of 1000-byte blobs, which lie in the b-tree's
# own pages), each from a cold database, under WAY: run (run --via outside)
# or attach (attach PID to a sqlite3 waiting on a fifo for its commands,
# which come once attach's kernel view is in place).  Each exits 0, the
# scan counts every row, the backup and the vacuumed copy hold the same
# content (.sha3sum) and the backup the same pages; the database and every
# output keep at most the budget cached after, and --stats has a line of
# the kernel view for each (attach: of sqlite3's pid).
. "$(dirname "$0")/kview-harness.sh"
how=${1:?WAY: run or attach}
command -v sqlite3 >/dev/null || skip "no sqlite3 (setup.sh test packages: sqlite3)"
ROWS=262144
db=$dir/db.db
sqlite3 "$db" "PRAGMA page_size=4096; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
	CREATE TABLE t(id INTEGER PRIMARY KEY, x BLOB);
	WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $ROWS)
	INSERT INTO t(x) SELECT randomblob(1000) FROM c;" >/dev/null 2>"$dir/err" ||
	fail "cannot make the database: $(cat "$dir/err")"
chmod 644 "$db"
sum=$(sqlite3 "$db" .sha3sum) || fail "sqlite3 .sha3sum"
size=$(stat -c %s "$db")

# sql NAME SQL: SQL (lines) on a cold database under $how; stdout in $dir/out,
# the --stats lines in $dir/stats; fails when sqlite3 or attach fails.
sql() {
	rm -f "$dir/stats"
	"$SHIM_PAGESTAT" evict "$db" || fail "cannot evict $db"
	pid=
	if [ "$how" = run ]; then
		"$PAGECLIFF" run --via outside --stats="$dir/stats" -- sqlite3 "$db" "$2" \
			>"$dir/out" 2>"$dir/err" || fail "$1: sqlite3 failed: $(cat "$dir/err")"
		return
	fi
	rm -f "$dir/cmd"
	mkfifo "$dir/cmd" || fail "mkfifo"
	sqlite3 "$db" <"$dir/cmd" >"$dir/out" 2>"$dir/err.sql" & pid=$!
	bg=$pid
	exec 3>"$dir/cmd"
	for _ in $(seq 200); do
		case $(readlink "/proc/$pid/exe") in */sqlite3) break ;; esac
		sleep 0.05
	done
	attach_bg $pid 3>&-	# the fifo's end is sqlite3's alone to see closed
	printf '%s\n.exit\n' "$2" >&3
	exec 3>&-
	wait $pid || fail "$1: sqlite3 failed: $(cat "$dir/err.sql")"
	wait $at
	rc=$?
	bg=
	[ $rc -eq 0 ] || fail "$1: attach exited $rc: $(cat "$dir/err")"
}

sql backup ".backup '$dir/b.db'"
at_most "$db"
at_most "$dir/b.db"
kstats "$db" 128 $pid
kstats_any "$dir/b.db" 128 $pid

sql vacuum "VACUUM INTO '$dir/v.db';"
at_most "$db"
at_most "$dir/v.db"
kstats "$db" 128 $pid
kstats_any "$dir/v.db" 128 $pid

sql scan "PRAGMA cache_size=16; SELECT count(*), sum(length(x)) FROM t;"
[ "$(cat "$dir/out")" = "$ROWS|$((ROWS * 1000))" ] || fail "the scan said: $(cat "$dir/out")"
at_most "$db"
kstats "$db" 128 $pid

[ "$(stat -c %s "$dir/b.db")" = "$size" ] && cmp -s -i 100 "$db" "$dir/b.db" ||
	fail "the backup's pages differ from the database's"
[ "$(sqlite3 "$dir/b.db" .sha3sum)" = "$sum" ] || fail "the backup's content differs"
[ "$(sqlite3 "$dir/v.db" .sha3sum)" = "$sum" ] || fail "the vacuumed copy's content differs"
echo "PASS: sqlite3 .backup, VACUUM INTO and a scan under $how (cached after:$report)"
