#!/bin/bash
# SPDX-License-Identifier: MIT
# The two set-up commands of the README, for a fresh Debian 12 machine:
#   ./setup.sh        install what is missing, build, run `pagecliff bench`
#   ./setup.sh test   install what is missing, build, run the whole suite:
#                     the plain build's, Debian's kernels in guests,
#                     AddressSanitizer+UBSan and ThreadSanitizer over the
#                     concurrent parts side by side (each test takes its
#                     turn on the machine: tests/turn.sh), then the fuzzers
#                     for a short fixed time
# Both are idempotent.  Installing packages, the RAM testbed and the memory
# cap need root; without root this says what it could not do.
set -u
cd "$(dirname "$0")" || exit 1

# What the build and the main job need; what the tests need besides
# (the fault rig, fuzzers, valgrind, the shim's comparison, the chart's
# rendering in a real browser).
packages=(build-essential meson ninja-build pkg-config liburing-dev
	  xfsprogs e2fsprogs util-linux python3
	  python3-dev			# the Python module (meson -Dpython=auto)
	  libbpf-dev clang bpftool	# kernel-event tracing (meson -Dbpf=auto)
	  libopenmpi-dev openmpi-bin)	# pagecliff-mpi and tests/mpi (meson -Dmpi=auto)
test_packages=(fio libfuse3-dev fuse3 clang nocache valgrind chromium bc time rsync pv cpio git
	btrfs-progs
	dpkg-dev debhelper lintian fakeroot man-db	# tests/pkg: build, check, install the .debs
	python3-prometheus-client	# tests/ops: watch's OpenMetrics, by a strict parser
	python3-pytest dh-python	# tests/python; python3-pagecliff's package
	qemu-system-x86 busybox-static kmod xz-utils zstd	# tests/vm: Debian's 6.1 and 6.12 kernels
	golang-go restic sqlite3 nodejs)	# tests/outside: Go, restic, sqlite3, node under the watcher

# install_missing PACKAGE...
install_missing() {
	local missing=()

	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "setup: these packages are missing and installing them needs root:" >&2
		echo "  sudo apt-get install -y ${missing[*]}" >&2
		return 1
	fi
	echo "setup: installing ${missing[*]}"
	apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# build DIR [meson options]: configure once, then compile.
build() {
	local dir=$1
	shift
	local werror=()

	[ "${CI:-}" = true ] && werror=(-Dwerror=true)
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "${werror[@]}" "$@" >/dev/null || return 1
	fi
	ninja -C "$dir" >/dev/null || ninja -C "$dir"
}

# stage NAME COMMAND...: run COMMAND with its output in NAME.log of the
# logs folder, and say when it ended; the logs are printed in order at the end.
stage() {
	local name=$1
	shift
	"$@" >"$logs/$name.log" 2>&1
	echo "$?" >"$logs/$name.rc"
	echo "== $name ended: $(tail -n 1 "$logs/$name.log")"
}

run_tests() {
	local rc=0 name
	local asan=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:quarantine_size_mb=32
		    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 PAGECLIFF_TEST_QUICK=1)
	local tsan=(TSAN_OPTIONS=halt_on_error=1 PAGECLIFF_TEST_QUICK=1)
	local asan_args=(--no-suite pkg --no-suite vm --no-suite field --no-suite mpi --no-suite python)
	local tsan_args=(--suite bench --suite fault)

	[ "$(id -u)" = 0 ] || echo "setup: not root: tests that need loop devices, mounts, cgroups or sysctls will skip" >&2
	build build || return 1
	build build-asan -Db_sanitize=address,undefined -Db_lundef=false || return 1
	build build-tsan -Db_sanitize=thread -Db_lundef=false || return 1
	logs=$(mktemp -d "${TMPDIR:-/tmp}/pagecliff-tests-XXXXXX") || return 1
	# The suites: the plain build's; Debian's 6.1 and 6.12 kernels and the
	# many-CPU guest under QEMU (suite vm, two guests at a time: their page
	# cache is their own); AddressSanitizer + UndefinedBehaviorSanitizer;
	# ThreadSanitizer over the concurrent parts (bench's sampler and workers,
	# the rig).  ASan keeps up to 256 MiB of freed memory in quarantine by
	# default, all charged to the memory cgroup a test caps at 256 MiB: bench
	# was killed by its own cap (trace-live, exit 137); 32 MiB still catches
	# reuse.  pkg and vm run once, in the plain build.  The field suite runs
	# other people's programs: its shim half is never sanitized, its watcher
	# half repeats what the outside suite runs under ASan.  mpi's ranks run
	# bench, which the bench suite runs under ASan.  The Python module cannot
	# be loaded into Debian's unsanitized interpreter.  The sanitized runs take
	# the quick form of the longest tests (PAGECLIFF_TEST_QUICK: every edge,
	# fewer repetitions between them): the plain build runs them whole.
	# First the tests that share the machine, of the three builds side by
	# side; then those that have the machine to themselves, one at a time
	# (tests/run.sh, tests/turn.sh), with the guests and the fuzzers beside
	# them.  A guest's page cache and memory are its own, a fuzzer's are in
	# its process, and their CPU is load like a build's beside CI, which these
	# tests bear: in the shared part the guests took two fifths of the CPU of
	# a machine already busy (560 of 1440 CPU seconds), in the alone part the
	# CPU is mostly idle (plain: 141 CPU seconds in 352 s of tests).
	echo "== tests: the plain build's, ASan+UBSan's and TSan's side by side"
	stage plain env PAGECLIFF_PART=shared PAGECLIFF_LOGBASE=shared \
		tests/run.sh build --no-rebuild --no-suite vm &
	stage asan env "${asan[@]}" PAGECLIFF_PART=shared PAGECLIFF_LOGBASE=shared \
		tests/run.sh build-asan --no-rebuild "${asan_args[@]}" &
	stage tsan env "${tsan[@]}" PAGECLIFF_PART=shared PAGECLIFF_LOGBASE=shared \
		tests/run.sh build-tsan --no-rebuild "${tsan_args[@]}" &
	wait
	echo "== tests: those that have the machine to themselves, one at a time, the guests and the fuzzers"
	stage vm env PAGECLIFF_LOGBASE=vmlog PAGECLIFF_JOBS=2 \
		tests/run.sh build --no-rebuild --suite vm &
	stage fuzz env FUZZ_SECONDS="${FUZZ_SECONDS:-10}" tests/fuzz/run-fuzzers.sh &
	stage plain-alone env PAGECLIFF_PART=alone PAGECLIFF_LOGBASE=alone \
		tests/run.sh build --no-rebuild --no-suite vm
	stage asan-alone env "${asan[@]}" PAGECLIFF_PART=alone PAGECLIFF_LOGBASE=alone \
		tests/run.sh build-asan --no-rebuild "${asan_args[@]}"
	stage tsan-alone env "${tsan[@]}" PAGECLIFF_PART=alone PAGECLIFF_LOGBASE=alone \
		tests/run.sh build-tsan --no-rebuild "${tsan_args[@]}"
	wait
	for name in plain vm asan tsan fuzz plain-alone asan-alone tsan-alone; do
		echo "== tests: $name"
		cat "$logs/$name.log"
		case $(cat "$logs/$name.rc") in
		0) ;;
		77) [ $name = fuzz ] || rc=1 ;;	# no clang: the fuzzers skip
		*) rc=1 ;;
		esac
	done
	rm -rf "$logs"
	summarize build:shared build:alone build:vmlog build-asan:shared build-asan:alone \
		build-tsan:shared build-tsan:alone
	return $rc
}

# The tail of each failed test's output, then the totals: CI keeps only the
# end of what a run prints, and meson printed the logs where the tests failed.
summarize() {
	python3 - "$@" <<'PY'
import json, os, sys
c = {"passed": 0, "failed": 0, "skipped": 0}
failed = []
for arg in sys.argv[1:]:	# BUILD or BUILD:LOGBASE
    build, _, base = arg.partition(":")
    log = os.path.join(build, "meson-logs", (base or "testlog") + ".json")
    if not os.path.exists(log):	# meson ran no test there: as tests/run.sh counts it
        c["failed"] += 1
        print("== failed: %s has no test log" % build)
        continue
    for line in open(log):
        r = json.loads(line)
        key = {"OK": "passed", "EXPECTEDFAIL": "passed", "SKIP": "skipped"}.get(r["result"], "failed")
        c[key] += 1
        if key == "failed":
            failed.append((build, r))
for build, r in failed[:6]:
    print("== failed: %s in %s (%s, exit %s, %.2f s); its last lines:" %
          (r["name"], build, r["result"], r["returncode"], r["duration"]))
    for out in (r.get("stdout") or "").splitlines()[-30:]:
        print("   " + out)
print("== all suites")
print("%(passed)d passed, %(failed)d failed, %(skipped)d skipped" % c)
PY
}

case "${1:-}" in
"")
	install_missing "${packages[@]}" || exit 1
	build build || exit 1
	# The chart goes into the build folder, which git ignores: the
	# checkout stays as it was cloned.
	exec ./build/cli/pagecliff bench --plot build/pagecliff-bench.svg
	;;
test)
	install_missing "${packages[@]}" "${test_packages[@]}" || exit 1
	run_tests
	;;
*)
	echo "usage: ./setup.sh [test]" >&2
	exit 2
	;;
esac
