# SPDX-License-Identifier: MIT
# Shared by the pagecliff-mpi tests: mpirun on this one machine, as root
# when so, over shared memory only (no network needed), always under a
# timeout so that a hang fails the test instead of blocking the suite.
. "$(dirname "$0")/../bench/harness.sh"
[ -n "${PAGECLIFF_MPI:-}" ] || skip "built without MPI (meson -Dmpi=auto found none): no pagecliff-mpi"
command -v mpirun >/dev/null || skip "no mpirun (Debian: openmpi-bin)"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# self,vader: shared memory, no second interface needed
export OMPI_MCA_btl=self,vader
# no Infiniband or other fabrics probed on a VM
export OMPI_MCA_pml=ob1 OMPI_MCA_btl_base_warn_component_unused=0

# Under AddressSanitizer: no leak check in the ranks.  Open MPI leaves its
# own allocations at MPI_Finalize (it ships valgrind suppressions for them)
# and unloads its plugins first, so their stacks cannot be named in an LSan
# suppression; every other ASan and UBSan check stays on.  Bench's own code
# is leak-checked by the bench suite.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# mpirun_np N SECONDS ARGS...: pagecliff-mpi on N ranks, killed after SECONDS.
mpirun_np() {
	local n=$1 secs=$2
	shift 2
	timeout -k 5 "$secs" mpirun --oversubscribe -np "$n" "$PAGECLIFF_MPI" "$@"
}

# Start pagecliff-mpi on 3 ranks in the background (ARGS...), its report in
# $T/out and what the ranks say in $T/err; return when 3 lines of
# $T/err match the pattern WAIT_FOR (one per rank), and set MPIRUN and
# RANKS (the ranks' pids).
start_3() {
	timeout -k 5 150 mpirun --oversubscribe -np 3 "$PAGECLIFF_MPI" "$@" >"$T/out" 2>"$T/err" &
	TPID=$!
	for _ in $(seq 600); do
		[ "$(grep -c "$WAIT_FOR" "$T/err")" = 3 ] && break
		kill -0 $TPID 2>/dev/null || fail "mpirun ended early: $(tail -5 "$T/err")"
		sleep 0.1
	done
	[ "$(grep -c "$WAIT_FOR" "$T/err")" = 3 ] ||
		{ kill $TPID; fail "the ranks did not reach their phases"; }
	MPIRUN=$(pgrep -P $TPID mpirun)
	RANKS=$(pgrep -P "$MPIRUN")
	[ "$(echo $RANKS | wc -w)" = 3 ] || fail "not 3 ranks: $RANKS"
}

# The pid of rank $1 among $RANKS.
rank_pid() {
	for p in $RANKS; do
		tr '\0' '\n' <"/proc/$p/environ" | grep -qx "OMPI_COMM_WORLD_RANK=$1" && echo "$p"
	done
}

# kill_rank N SIGNAL: send SIGNAL to rank N of start_3's ranks and wait for
# mpirun; fails unless it exits non-zero before its timeout.  Sets VICTIM
# (the rank's pid) and RC (mpirun's exit status).
kill_rank() {
	VICTIM=$(rank_pid "$1")
	[ -n "$VICTIM" ] || fail "no rank $1 among mpirun's children ($RANKS)"
	kill -"$2" "$VICTIM"
	wait $TPID
	RC=$?
	[ $RC = 124 ] && fail "mpirun hung after rank $1 got SIG$2: $(tail -5 "$T/err")"
	[ $RC != 0 ] || fail "mpirun exited 0 after rank $1 got SIG$2"
}

timeout 30 mpirun --oversubscribe -np 1 true >/dev/null 2>&1 ||
	skip "mpirun cannot start a rank here: $(timeout 30 mpirun --oversubscribe -np 1 true 2>&1 | head -3)"
