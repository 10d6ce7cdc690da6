#!/bin/sh
# SPDX-License-Identifier: MIT
# doctor's rules on fixture trees with known answers (--root, no probes):
# each finding id must carry the expected status, and the JSON must be valid
# even for empty and missing files.
set -u
. "$(dirname "$0")/harness.sh"

# expect TREE ID=STATUS...: run doctor on TREE and check each finding
expect() {
	tree=$1; shift
	if ! "$pc" doctor --root "$fx/$tree" --sample-ms 0 --json >"$tmp/$tree.json" 2>"$tmp/err"; then
		echo "FAIL: doctor --root $tree exited non-zero: $(cat "$tmp/err")"; exit 1
	fi
	python3 -m json.tool "$tmp/$tree.json" >/dev/null ||
		{ echo "FAIL: $tree: invalid JSON"; exit 1; }
	python3 - "$tmp/$tree.json" "$@" <<'PY' || exit 1
import json, sys
doc = json.load(open(sys.argv[1]))
got = {f["id"]: f for f in doc["findings"]}
bad = 0
for want in sys.argv[2:]:
    key, status = want.split("=")
    f = got.get(key)
    if status == "absent":
        if f:
            print(f"FAIL: {key} should be absent, is {f['status']}: {f['title']}"); bad = 1
        continue
    if not f or f["status"] != status:
        print(f"FAIL: {key}: want {status}, got {f['status'] + ': ' + f['title'] if f else 'nothing'}")
        bad = 1
n = doc["summary"]
if n["ok"] + n["warn"] + n["info"] != len(doc["findings"]):
    print("FAIL: summary does not count the findings"); bad = 1
sys.exit(bad)
PY
}

# this build machine: Linux 6.18, ext4 on a virtio disk, balloon with reporting
expect host memory.damon.0.0.0=warn memory.proactive=absent kernel.version=ok kernel.io_uring=ok kernel.mglru=info \
	kernel.cachestat=ok kernel.dioalign=ok vm.watermark_scale_factor=info \
	vm.zone_reclaim_mode=ok memory.cgroup=info memory.numa=info block.vda=info \
	block.vda.read_ahead=absent fs.large_folios.ext4=ok now.psi=ok now.reclaim=ok \
	vm.balloon=warn cpu.steal=ok kernel.thp=info
# an old, badly tuned NUMA host under pressure
expect old memory.proactive=info memory.damon.0.0.0=absent kernel.version=warn kernel.io_uring=warn kernel.mglru=info kernel.trace=info \
	vm.watermark_scale_factor=ok vm.zone_reclaim_mode=warn memory.cgroup=info \
	block.sda=info block.sda.read_ahead=warn fs.large_folios.xfs=ok fs.large_folios.ext4=warn \
	fs.large_folios.nfs4=info now.psi=warn now.reclaim=info vm.balloon=info \
	cpu.steal=warn kernel.thp=warn
# nothing readable: no crash, unknown stays unknown, no invented findings
expect empty kernel.version=info memory.total=info memory.cgroup=info \
	vm.balloon=absent cpu.steal=absent now.psi=absent
expect none kernel.version=info memory.numa=info block.mounts=info vm.balloon=absent

# numbers in the text: the cgroup v2 cap and the NUMA split of "old"
"$pc" doctor --root "$fx/old" --sample-ms 0 >"$tmp/old.txt" || exit 1
grep -q 'memory cgroup v2 caps this process at 256 MiB' "$tmp/old.txt" ||
	{ echo "FAIL: old: cgroup v2 limit not 256 MiB"; exit 1; }
grep -q 'evidence: node0 256.0 GiB, node1 256.0 GiB' "$tmp/old.txt" ||
	{ echo "FAIL: old: NUMA nodes"; exit 1; }
grep -q 'since boot pgscan_direct 90000000, allocstall 4100' "$tmp/old.txt" ||
	{ echo "FAIL: old: vmstat since boot"; exit 1; }
tail -n 1 "$tmp/old.txt" | grep -qx '4 ok, 8 warn, 15 info' ||
	{ echo "FAIL: old: summary '$(tail -n 1 "$tmp/old.txt")'"; exit 1; }

# what a direct read from small pages reaches the disk in: 254 segments x 4 KiB
"$pc" doctor --root "$fx/host" --sample-ms 0 >"$tmp/host.txt" || exit 1
grep -q 'max_segments 254,' "$tmp/host.txt" && grep -q 'in pieces of at most 1016 KiB' "$tmp/host.txt" ||
	{ echo "FAIL: host: vda's max_segments and the split it makes"; exit 1; }
grep -q 'pieces of at most' "$tmp/old.txt" &&
	{ echo "FAIL: old: a split said where max_segments is unknown"; exit 1; }

# no garbage in the text of any tree: unknown is said, never nan or 2^64-1
for tree in host old edited empty none cgv2 seed; do
	"$pc" doctor --root "$fx/$tree" --sample-ms 0 >"$tmp/t.txt" || exit 1
	if grep -n -i -E '(^|[^a-z])nan|18446744073709551615|-1 ' "$tmp/t.txt"; then
		echo "FAIL: $tree: garbage in the text"; exit 1
	fi
done

# bad usage is one line and exit 2
"$pc" doctor --sample-ms nope >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] ||
	{ echo "FAIL: bad --sample-ms: rc $rc"; exit 1; }
"$pc" doctor --path /nonexistent/x >/dev/null 2>"$tmp/err" && { echo "FAIL: bad --path accepted"; exit 1; }
echo "doctor fixtures: ok"
exit 0
