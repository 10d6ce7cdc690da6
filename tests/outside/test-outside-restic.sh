#!/bin/sh
# SPDX-License-Identifier: MIT
# restic (a Go program: the shim never sees its system calls) backs up a
# 512 MiB file into a fresh repository under `pagecliff run`: run says the
# watcher acts, the source and the repository each keep at most the budget
# cached, the backup exits 0, and `restic check` finds the repository clean
# and the restored file is the same.
. "$(dirname "$0")/harness.sh"
command -v restic >/dev/null || skip "no restic (setup.sh test packages)"
export RESTIC_PASSWORD=pagecliff-test RESTIC_CACHE_DIR="$dir/cache" TMPDIR="$dir/tmp"
mkdir "$dir/tmp" || exit 1
repo=$dir/repo
restic init -q --repo "$repo" >/dev/null 2>"$dir/err" || fail "restic init: $(cat "$dir/err")"
mkfile "$dir/src" 512
"$PAGECLIFF" run --stats="$dir/stats" -- restic -q --repo "$repo" backup "$dir/src" 2>"$dir/err" ||
	fail "backup failed: $(cat "$dir/err")"
grep -q "^pagecliff: '.*restic' is a Go program (it makes its own system calls): the shim cannot act on it, the watcher acts from outside" "$dir/stats" ||
	fail "no line saying the watcher acts: $(cat "$dir/stats")"
at_most "$dir/src"
total=0
for f in $(find "$repo" -type f); do
	total=$((total + $(cached "$f")))
done
[ "$total" -le "$LIMIT" ] || fail "the repository has $((total / MIB)) MiB cached (at most $((LIMIT / MIB)))"
restic -q --repo "$repo" check >"$dir/check" 2>&1 || fail "restic check: $(cat "$dir/check")"
restic -q --repo "$repo" restore latest --target "$dir/restore" 2>"$dir/err" || fail "restore: $(cat "$dir/err")"
cmp -s "$dir/src" "$dir/restore$dir/src" || fail "the restored file differs"
echo "PASS: restic backup (cached after:$report, repository $((total / MIB)) MiB)"
