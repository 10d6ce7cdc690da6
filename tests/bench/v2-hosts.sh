#!/bin/bash
# SPDX-License-Identifier: MIT
# bench --mem-limit on cgroup v2 where its own cgroup holds more than bench
# (the VM suite's guests; a host with memory on v1 skips):
#  (b) a script's shell and a sibling it started share the cgroup OWN with
#      bench: bench moves that tree into OWN/pagecliff-PID/leader, caps its
#      workers, ends 0, and puts the tree back (the shell and the sibling in
#      OWN again, nothing left below it, memory off in its subtree_control);
#  (c) a process of another tree in OWN: refused in one line naming it;
#  (a) systemd as PID 1 (/run/systemd/system, as sd_booted(3) tests it) and
#      a systemd-run in PATH: bench runs itself again through
#      `systemd-run --scope --quiet --collect --unit=pagecliff-bench-PID.scope
#      ... -p Delegate=yes -- EXE bench ARGS`.  Here systemd-run is a stand-in
#      that records its arguments and does what a scope does (a cgroup that
#      holds the command alone); the real one needs systemd as PID 1, which
#      the guests do not run.
. "$(dirname "$0")/harness.sh"
needs_root "for the memory cgroup"
needs_memcg_v2 mnt
command -v python3 >/dev/null || skip "no python3 to read the report"
[ -e /run/systemd/system ] && skip "systemd runs this host: case (a) would start a real scope"
make_tmpdir T /tmp
own=$mnt/pc-v2hosts-$$
scope=$mnt/pc-v2hosts-scope-$$
mkdir "$own" || fail "mkdir $own"
cleanup() {
	local f p
	for f in $(find "$own" "$scope" -name cgroup.procs 2>/dev/null); do
		for p in $(cat "$f"); do kill -9 "$p" 2>/dev/null; done
	done
	sleep 0.2
	find "$own" "$scope" -depth -type d -exec rmdir {} \; 2>/dev/null
	rmdir /run/systemd/system /run/systemd 2>/dev/null
}
at_exit cleanup
bench=("$PAGECLIFF" bench -d "$T" --numjobs 1 --size 96m --mem-limit 48m --mode buffered -q
	--output-format json)

# capped REPORT: the report's mode read it all in a v2 cgroup named $2.
capped() {
	python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
job = r["job"]
assert job["cgroup_version"] == 2, job["cgroup_version"]
assert job["memory_cgroup"].startswith(sys.argv[2]), job["memory_cgroup"]
assert job["memory_cgroup"].endswith("/workers"), job["memory_cgroup"]
m = r["modes"][0]
assert m["bytes"] == 96 << 20 and m["error"] == 0, m
print(f"# capped in {job['memory_cgroup']}: {m['bytes'] >> 20} MiB read")
PY
}

# (b) The script that starts bench, and a sibling it started, in own.
sh -c 'd=$1 t=$2; shift 2
	echo $$ >"$d/cgroup.procs" || exit 9
	sleep 300 & echo $! >"$t/sibling"
	"$@" >"$t/r1.json" 2>"$t/err1"; rc=$?
	# back in own once bench ended: the shell and its sibling
	cat "/proc/$$/cgroup" >"$t/shell-after"
	cat "/proc/$(cat "$t/sibling")/cgroup" >"$t/sibling-after"
	kill "$(cat "$t/sibling")"
	exit $rc' sh "$own" "$T" "${bench[@]}"
rc=$?
drop_cleanup_lines "$T/err1"
[ $rc = 0 ] || fail "(b) own tree in $own: exit $rc: $(cat "$T/err1")"
grep -q "memory cap: moved this process's own tree (the processes of $own) to $own/pagecliff-[0-9]*/leader" "$T/err1" ||
	fail "(b) bench did not say it moved its own tree: $(cat "$T/err1")"
capped "$T/r1.json" "$own/pagecliff-" || fail "(b) report: see above"
rel=${own#"$mnt"}
for w in shell sibling; do
	[ "$(cat "$T/$w-after")" = "0::$rel" ] || fail "(b) the $w is in $(cat "$T/$w-after"), not back in $rel"
done
[ -z "$(find "$own" -mindepth 1 -type d)" ] || fail "(b) left below $own: $(find "$own" -mindepth 1 -type d)"
! grep -qw memory "$own/cgroup.subtree_control" || fail "(b) memory left on in $own/cgroup.subtree_control"
echo "# (b) own tree: capped, moved back, nothing left"

# (c) A process of another tree (this script's sleep) in own: one line, exit 2.
sleep 300 &
other=$!
echo "$other" >"$own/cgroup.procs" || fail "cannot move sleep into $own"
sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$own" "${bench[@]}" \
	>"$T/r2.json" 2>"$T/err2"
rc=$?
kill "$other"
wait "$other" 2>/dev/null
drop_cleanup_lines "$T/err2"
[ $rc = 2 ] || fail "(c) another tree in $own: exit $rc, want 2: $(cat "$T/err2")"
[ "$(wc -l <"$T/err2")" = 1 ] || fail "(c) refusal is not one line: $(cat "$T/err2")"
grep -q "$own holds process $other (sleep), which is not this one's own tree" "$T/err2" ||
	fail "(c) refusal does not name the other process: $(cat "$T/err2")"
[ -z "$(find "$own" -mindepth 1 -type d)" ] || fail "(c) left below $own"
echo "# (c) $(cat "$T/err2")"

# (a) systemd as PID 1: bench runs itself again through systemd-run.
mkdir -p "$T/bin" /run/systemd/system || fail "mkdir /run/systemd/system"
cat >"$T/bin/systemd-run" <<STUB
#!/bin/sh
# a stand-in: record the arguments, then act as a scope would
printf '%s\n' "\$@" >"$T/systemd-run.args"
mkdir "$scope" && echo \$\$ >"$scope/cgroup.procs" || exit 1
while [ "\$1" != -- ]; do shift; done
shift
exec "\$@"
STUB
chmod +x "$T/bin/systemd-run"
sh -c 'echo $$ >"$1/cgroup.procs" || exit 9
	shift; PATH=$1:$PATH; shift
	"$@"' sh "$own" "$T/bin" "${bench[@]}" >"$T/r3.json" 2>"$T/err3"
rc=$?
rmdir /run/systemd/system /run/systemd
drop_cleanup_lines "$T/err3"
[ $rc = 0 ] || fail "(a) through the systemd-run stand-in: exit $rc: $(cat "$T/err3")"
[ -s "$T/systemd-run.args" ] || fail "(a) bench did not run systemd-run: $(cat "$T/err3")"
python3 - "$T/systemd-run.args" "$(readlink -f "$PAGECLIFF")" <<'PY' || fail "(a) systemd-run's arguments: see above"
import sys
args = open(sys.argv[1]).read().split("\n")[:-1]
exe = sys.argv[2]
cut = args.index("--")
opts, cmd = args[:cut], args[cut + 1:]
print("# (a) systemd-run " + " ".join(args))
unit = [a for a in opts if a.startswith("--unit=")]
assert len(unit) == 1 and unit[0].startswith("--unit=pagecliff-bench-") and unit[0].endswith(".scope"), opts
for want in ("--scope", "--quiet", "--collect"):
    assert want in opts, f"{want} missing: {opts}"
assert "-p" in opts and opts[opts.index("-p") + 1] == "Delegate=yes", opts
assert cmd[0] == exe and cmd[1] == "bench", cmd
assert "--mem-limit" in cmd and cmd[cmd.index("--mem-limit") + 1] == "48m", cmd
PY
grep -q "memory cap: $own is systemd's and holds other processes: running again in the transient scope pagecliff-bench-[0-9]*.scope" "$T/err3" ||
	fail "(a) bench did not say it runs again in a scope: $(cat "$T/err3")"
capped "$T/r3.json" "$scope/pagecliff-" || fail "(a) report: see above"
[ -z "$(find "$scope" -mindepth 1 -type d)" ] || fail "(a) left below the scope $scope"
[ -z "$(find "$own" -mindepth 1 -type d)" ] || fail "(a) left below $own"
echo "PASS: cgroup v2 as hosts have it: own tree, another tree, systemd scope"
