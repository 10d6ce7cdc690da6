/* SPDX-License-Identifier: MIT */
/*
 * What the files of bench's phases share: a worker (bench-worker.c runs
 * it, the sampler reads its counts, bench-run.c starts and joins it) and a
 * sample at one instant (bench-sampler.c).
 */
#ifndef PC_CLI_BENCH_RUN_H
#define PC_CLI_BENCH_RUN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench.h"
#include "sample.h"
#include "trace.h"

struct worker {
	pthread_t thread;
	struct bench_run *run;
	unsigned int k;			/* file index; directory k / numjobs */
	struct pc_opts opts;
	int node;			/* NUMA node to pin to, -1 none */
	_Atomic uint64_t bytes;
	_Atomic int done;
	_Atomic int flushing;		/* in the final fdatasync */
	_Atomic pid_t tid;
	int error;
	struct pc_stats stats;
	struct pc_wstats wstats;
	double sync_secs;
	int have_stats;
} __attribute__((aligned(64)));

/* A sample and the workers' byte counts at one instant. */
struct tick {
	struct sample s;
	uint64_t bytes[BENCH_MAX_DIRS * 64];
	double t;
	struct trace_snap tr;		/* kernel-event counters, when tr_ok */
	int tr_ok;
};

/* bench-worker.c */
/* The NUMA node of each directory (-1: none) into @nodes; run->numa_desc says it. */
void bench_numa_plan(struct bench_run *run, int *nodes);
/* Start one thread per file; on a failure stop and join those started. */
int bench_workers_start(struct bench_run *run, struct bench_phase *ph, struct worker *w,
			const int *nodes);

/* bench-sampler.c */
/*
 * Sample phase @mode into rows until its workers finish, the runtime ends
 * or a signal comes; across hosts, until the ranks agree it is over.
 * @ticks: four, the sampler's own.
 */
void bench_sample_phase(struct bench_run *run, struct bench_phase *ph, unsigned int mode,
			struct worker *w, struct tick *ticks);

#endif
