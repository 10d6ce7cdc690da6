#!/bin/sh
# SPDX-License-Identifier: MIT
# A setuid program run by root: the loader ignores LD_PRELOAD for it, so run
# says so and the watcher acts from outside; the program still runs as its
# owner (nobody), reads the whole file and leaves it within the budget.
. "$(dirname "$0")/harness.sh"
needs_root "to run a setuid program as root"
mkfile "$dir/src" 256
cp "$OUTSIDE_PROG" "$dir/suid" && chown nobody "$dir/suid" && chmod 4755 "$dir/suid" ||
	fail "cannot make a setuid copy"
out=$("$PAGECLIFF" run -- "$dir/suid" read "$dir/src" 2>"$dir/err") || fail "setuid read failed: $(cat "$dir/err")"
[ "$out" = "$dir/src: $((256 * MIB)) bytes fd 3" ] || fail "read: $out"
grep -qxF "pagecliff: '$dir/suid' is setuid (the loader ignores LD_PRELOAD for it): the shim cannot act on it, the watcher acts from outside" "$dir/err" ||
	fail "no line: $(cat "$dir/err")"
at_most "$dir/src"
echo "PASS: setuid reader (cached after:$report)"
