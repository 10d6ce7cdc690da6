# SPDX-License-Identifier: MIT
# Shared by the doctor scripts that read fixture trees (after their own
# `set -u`): the fixtures folder, the script's first argument, in $fx;
# pagecliff in $pc; python3 to check JSON, else a skip; the test harness;
# and a fresh directory $tmp, removed at exit.
fx=${1:?usage: $(basename "$0") FIXTURES_DIR}
pc=${PAGECLIFF:?PAGECLIFF is not set}
command -v python3 >/dev/null || { echo "SKIP: no python3 to check JSON"; exit 77; }
. "$(dirname "$0")/../harness.sh"
make_tmpdir tmp "${TMPDIR:-/tmp}"
