# SPDX-License-Identifier: MIT
# Shared by the trace test scripts.
PAGECLIFF=${PAGECLIFF:?run through meson test}
. "$(dirname "$0")/../harness.sh"

# A fresh directory anyone may write to (the fallback runs as nobody), removed at exit.
tmpdir() {
	make_tmpdir T /var/tmp
	chmod 0777 "$T"
}

# Skip when this pagecliff was built without BPF (meson -Dbpf=disabled).
need_bpf_build() {
	"$PAGECLIFF" doctor --sample-ms 0 --json 2>/dev/null | python3 -c '
import json, sys
f = [f for f in json.load(sys.stdin)["findings"] if f["id"] == "kernel.trace"]
sys.exit(1 if f and "built without" in f[0]["evidence"] else 0)' ||
		skip "built without BPF support: no tracing to fall back from"
}

# Tracing must work here: root, a build with BPF, kernel BTF.
need_trace() {
	[ "$(id -u)" = 0 ] || skip "needs root to load BPF programs"
	command -v bpftool >/dev/null || skip "no bpftool to list loaded programs"
	"$PAGECLIFF" doctor --sample-ms 0 --json 2>/dev/null | python3 -c '
import json, sys
f = [f for f in json.load(sys.stdin)["findings"] if f["id"] == "kernel.trace"]
sys.exit(0 if f and f[0]["status"] == "ok" else 1)' ||
		skip "kernel-event tracing is not available here (see pagecliff doctor)"
}

# Loaded BPF programs and maps named pc_* (ours): "prog ID NAME", "map ID NAME".
pc_objects() {
	bpftool prog show 2>/dev/null |
		sed -n 's/^\([0-9][0-9]*\): [a-z_]*  *name \(pc_[a-z_]*\).*/prog \1 \2/p'
	bpftool map show 2>/dev/null |
		sed -n 's/^\([0-9][0-9]*\): [a-z_]*  *name \(pc_[a-z_]*\).*/map \1 \2/p'
}

# Links of the programs with IDs $@ still attached.
links_of() {
	local id
	for id in "$@"; do
		bpftool link show 2>/dev/null | grep -E "prog $id( |\$)"
	done
}
