#!/bin/sh
# SPDX-License-Identifier: MIT
# Residency the kernel hides, the writer's side: root copies a file into a
# file of its own while nobody attaches, given CAP_SYS_PTRACE and
# CAP_DAC_READ_SEARCH (to list root's descriptors) and nothing else.
# nobody may read the copy but not write it, so cachestat(2)
# refuses and what left the cache cannot be counted: the writer's --stats
# line says "(residency unknown)" where the dropped bytes would be, never a
# number; the copy is exact and both exit 0.
. "$(dirname "$0")/harness.sh"
[ "$(id -u)" = 0 ] || skip "running as nobody needs root"
setpriv --help 2>/dev/null | grep -q -- --ambient-caps || skip "setpriv cannot set ambient capabilities"
P=${OUTSIDE_STATIC:-$OUTSIDE_PROG}
mkfile "$dir/src" 192
: > "$dir/stats" && : > "$dir/err" && chmod 666 "$dir/stats" "$dir/err" || exit 1
"$P" copy "$dir/src" "$dir/dst" 96 > /dev/null & wr=$!
bg=$wr
i=0
while [ "$(pos_of $wr 4)" -lt $((16 * MIB)) ]; do
	i=$((i + 1)); [ $i -lt 1000 ] || fail "the copier did not start"
	sleep 0.01
done
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=+sys_ptrace,+dac_read_search \
	--ambient-caps=+sys_ptrace,+dac_read_search "$PAGECLIFF" attach --stats="$dir/stats" $wr 2>"$dir/err" ||
	fail "attach failed: $(cat "$dir/err")"
wait $wr || fail "the copier failed"
cmp -s "$dir/src" "$dir/dst" || fail "the copy differs"
grep -Eq "^pagecliff: $dir/dst: [0-9]+ bytes written, .* [0-9]+ bytes written back early, \(residency unknown\) bytes dropped, " "$dir/stats" ||
	fail "no writer line saying residency is unknown: $(cat "$dir/stats")"
echo "PASS: the writer's residency unknown said: $(grep -o "dst: .*" "$dir/stats" | cut -c1-160)"
