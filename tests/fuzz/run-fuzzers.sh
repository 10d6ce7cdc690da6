#!/bin/bash
# SPDX-License-Identifier: MIT
# Build the libFuzzer targets with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in build-fuzz, then fuzz each for a fixed time
# (FUZZ_SECONDS, default 20) starting from its corpus in tests/fuzz/corpus.
# New inputs go to a scratch folder, never into the tree; a crashing input is
# kept as build-fuzz/artifacts/TARGET-crash-*.  Exit 0 when no target found
# anything, 1 otherwise, 77 without clang.  Usage: run-fuzzers.sh [TARGET...]
set -u

cd "$(dirname "$0")/../.." || exit 1
secs=${FUZZ_SECONDS:-20}
build=${FUZZ_BUILDDIR:-build-fuzz}

command -v clang >/dev/null || { echo "SKIP: clang is not installed"; exit 77; }
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" -Db_sanitize=address,undefined \
		-Db_lundef=false -Dbuildtype=debugoptimized \
		-Dc_args=-fsanitize=fuzzer-no-link >/dev/null ||
		{ echo "FAIL: meson setup of $build with clang"; exit 1; }
fi

targets=("$@")
if [ ${#targets[@]} = 0 ]; then
	for dir in tests/fuzz/corpus/*/; do
		targets+=("$(basename "$dir")")
	done
fi
ninja -C "$build" "${targets[@]/#/tests/fuzz/fuzz-}" >/dev/null ||
	{ echo "FAIL: cannot build the fuzz targets in $build"; exit 1; }

mkdir -p "$build/artifacts"
scratch=$(mktemp -d /tmp/pagecliff-fuzz-XXXXXX)
trap 'rm -rf -- "$scratch"' EXIT
trap 'exit 1' INT TERM

passed=0 failed=0
for t in "${targets[@]}"; do
	mkdir -p "$scratch/$t"
	if "$build/tests/fuzz/fuzz-$t" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$build/artifacts/$t-" \
		"$scratch/$t" "tests/fuzz/corpus/$t" >"$scratch/$t.log" 2>&1; then
		echo "ok   fuzz-$t: $(grep -m1 'stat::number_of_executed_units' "$scratch/$t.log" | awk '{print $2}') runs in ${secs} s"
		passed=$((passed + 1))
	else
		echo "FAIL fuzz-$t:"
		grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$scratch/$t.log" | head -20
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed, 0 skipped"
[ $failed = 0 ]
