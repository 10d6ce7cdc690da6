/* SPDX-License-Identifier: MIT */
/*
 * pagecliff-mpi: `pagecliff bench` on every rank of an MPI job.  mpi-main.c
 * reads the command line (placeholders, --stonewall) and refuses a bad job
 * once; mpi-sync.c keeps the ranks' phases together and gathers every
 * rank's timeline to rank 0, which writes the one report.
 */
#ifndef PC_MPI_PCMPI_H
#define PC_MPI_PCMPI_H

#include "bench.h"

/* Join the job: rank, size, every rank's host name; @live: rank 0 shows
 * the status line.  0, or -1 (said). */
int mpi_sync_init(int stonewall, int live);
int mpi_sync_rank(void);
int mpi_sync_size(void);
const char *mpi_sync_host(int rank);
/* The hooks bench-run.c calls; rank 0 also keeps every host's figures. */
const struct bench_hooks *mpi_sync_hooks(void);
/*
 * Leave with this rank's exit status @code: rank 0 waits for every rank's,
 * all agree on the worst, and MPI is finalized unless a rank is lost.
 * Returns the status to exit with.
 */
int mpi_sync_leave(int code);

#endif
