#!/bin/sh
# SPDX-License-Identifier: MIT
# node copies a 256 MiB file under plain `pagecliff run` (the shim by
# default; issue 31: both files stayed cached and run said "via the shim"):
# libuv makes a raw copy_file_range the shim cannot see, from the main
# thread (WAY sync: fs.copyFileSync) or from a worker of its pool (WAY
# async: fs.copyFile).  The kernel view started beside the shim follows it:
# exit status 0, the copy exact, at most the budget of either file cached
# after, and --stats has a line for each (whichever of the two acted).
. "$(dirname "$0")/kview-harness.sh"
command -v node >/dev/null || skip "no node (setup.sh test packages: nodejs)"
case ${1:?WAY: sync or async} in
sync) call=fs.copyFileSync js='require("fs").copyFileSync(process.argv[1], process.argv[2])' ;;
async) call=fs.copyFile js='require("fs").copyFile(process.argv[1], process.argv[2],
		(e) => { if (e) { console.error(String(e)); process.exit(1); } })' ;;
*) fail "unknown WAY $1" ;;
esac
mkfile "$dir/a" 256
"$PAGECLIFF" run --stats="$dir/stats" -- node -e "$js" "$dir/a" "$dir/b" 2>"$dir/err" ||
	fail "node failed: $(cat "$dir/err")"
at_most "$dir/a"
at_most "$dir/b"
for f in "$dir/a" "$dir/b"; do
	grep -q "^pagecliff: $f: " "$dir/stats" || fail "no --stats line for $f: $(cat "$dir/stats")"
done
cmp -s "$dir/a" "$dir/b" || fail "the copy differs"
echo "PASS: node $call under run (cached after:$report)"
