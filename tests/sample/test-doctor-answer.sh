#!/bin/sh
# SPDX-License-Identifier: MIT
# doctor opens with the answer to "is there any tuning?", on fixture trees:
# the report's own host (seed: Linux 5.12, XFS on 16 NVMe, 512 GiB, 2 NUMA
# nodes), an older-than-6.14 kernel with cachestat (old: 6.6) and this build
# machine's (host: 6.18).  Each answer must be first in the text, have its
# steps in order, and each step its finding with the host's figures; what
# differs by kernel (RWF_DONTCACHE 6.14, cachestat 6.5) must differ.  The
# seed tree again at 6.15 (seed615): XFS switched RWF_DONTCACHE off before
# 6.15 shipped, so the kernel to plan is 6.16, and no RWF_DONTCACHE for now.
set -u
. "$(dirname "$0")/harness.sh"
cp -a "$fx/seed" "$tmp/seed615" && echo 6.15.0-1-amd64 >"$tmp/seed615/proc/sys/kernel/osrelease" ||
	{ echo "FAIL: cannot copy the seed tree"; exit 1; }

for tree in seed old host seed615; do
	root=$fx/$tree
	[ "$tree" = seed615 ] && root=$tmp/$tree
	"$pc" doctor --root "$root" --sample-ms 0 >"$tmp/$tree.txt" 2>"$tmp/err" ||
		{ echo "FAIL: doctor --root $tree: $(cat "$tmp/err")"; exit 1; }
	"$pc" doctor --root "$root" --sample-ms 0 --json >"$tmp/$tree.json" ||
		{ echo "FAIL: doctor --root $tree --json"; exit 1; }
	head -n 1 "$tmp/$tree.txt" | grep -qx 'is there any tuning for the page-cache cliff here? yes, in this order:' ||
		{ echo "FAIL: $tree: first line '$(head -n 1 "$tmp/$tree.txt")'"; exit 1; }
done

python3 - "$tmp" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
def answer(tree):
    doc = json.load(open(f"{d}/{tree}.json"))
    return doc["answer"], {f["id"]: f for f in doc["findings"]}
bad = []
def want(cond, msg):
    if not cond:
        bad.append(msg)

# The report's host: no RWF_DONTCACHE, no cachestat, no large folios on XFS 5.12.
steps, findings = answer("seed")
ids = [s["id"] for s in steps]
want(ids == ["strategy", "kernel", "vm.watermark_scale_factor", "memory.numa",
             "block.request", "kernel.cachestat"], f"seed: steps {ids}")
s = {x["id"]: x for x in steps}
want("O_DIRECT through io_uring" in s["strategy"]["do"] and "drop-behind" in s["strategy"]["do"],
     "seed: strategy " + s["strategy"]["do"])
want("5.12.0-1-amd64 has no RWF_DONTCACHE (6.14+)" in s["strategy"]["because"],
     "seed: why " + s["strategy"]["because"])
want("Linux 6.16 or later: RWF_DONTCACHE on xfs, large folios on xfs" in s["kernel"]["do"],
     "seed: kernel " + s["kernel"]["do"])
want("until 5.18" in s["kernel"]["because"], "seed: large folios " + s["kernel"]["because"])
want("it is 10" in s["vm.watermark_scale_factor"]["because"] and
     "0.10% of RAM (524 MiB of 512 GiB)" in s["vm.watermark_scale_factor"]["because"],
     "seed: wsf " + s["vm.watermark_scale_factor"]["because"])
want("2 NUMA nodes, one kswapd each" in s["memory.numa"]["because"], "seed: numa")
want("16 disks (nvme0n1 to nvme15n1): max_sectors_kb 512" in s["block.request"]["because"] and
     "at most 508 KiB" in s["block.request"]["because"], "seed: disks " + s["block.request"]["because"])
want("no cachestat(2) (6.5+)" in s["kernel.cachestat"]["because"], "seed: cachestat")
want(findings["fs.large_folios.xfs"]["status"] == "warn", "seed: xfs large folios not warned")
want(not any("memory.cgroup" == x for x in ids), "seed: no cgroup limit, yet a step")

# 6.6: no RWF_DONTCACHE, but cachestat; io_uring off there.
steps, _ = answer("old")
ids = [x["id"] for x in steps]
want(ids[0] == "strategy" and "kernel.cachestat" not in ids, f"old: steps {ids}")
want("through threads (io_uring is off)" in steps[0]["do"], "old: " + steps[0]["do"])
want("has no RWF_DONTCACHE" in steps[0]["because"], "old: " + steps[0]["because"])
want("vm.zone_reclaim_mode" in ids and "memory.cgroup" in ids, f"old: {ids}")

# 6.18 on ext4: RWF_DONTCACHE, no kernel to plan.
steps, _ = answer("host")
ids = [x["id"] for x in steps]
want(ids[0] == "strategy" and "kernel" not in ids and "kernel.cachestat" not in ids, f"host: {ids}")
want("cached ones with RWF_DONTCACHE" in steps[0]["do"], "host: " + steps[0]["do"])
want("has RWF_DONTCACHE (6.14+), and ext4 opted in" in steps[0]["because"], "host: " + steps[0]["because"])

# 6.15 on XFS: RWF_DONTCACHE in the kernel, switched off for XFS before 6.15
# shipped: the plan is 6.16, and the reads do without it for now.
steps, findings = answer("seed615")
s = {x["id"]: x for x in steps}
want("kernel" in s and "Linux 6.16 or later: RWF_DONTCACHE on xfs" in s["kernel"]["do"],
     "seed615: kernel " + (s["kernel"]["do"] if "kernel" in s else "no step"))
want("cached ones with RWF_DONTCACHE" not in steps[0]["do"], "seed615: " + steps[0]["do"])
want("XFS 6.16" in findings["kernel.version"]["evidence"],
     "seed615: version " + findings["kernel.version"]["evidence"])
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
# the text says the same as the JSON, numbered, each step with its finding
sed -n '2,3p' "$tmp/seed.txt" | grep -q '^  1\. stream big files through pagecliff' &&
	sed -n '3p' "$tmp/seed.txt" | grep -q '^     because: Linux 5.12' ||
	{ echo "FAIL: seed text: $(sed -n '2,3p' "$tmp/seed.txt")"; exit 1; }
echo "doctor answer: ok"
