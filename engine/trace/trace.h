/* SPDX-License-Identifier: MIT */
/*
 * trace: time spent in direct and memory-cgroup reclaim, in contended-lock
 * waits (and where), kswapd awake, and balance_dirty_pages pauses, and the
 * counts of kernel work that grows with cores (page-cache insertions and
 * deletions, fadvise calls, drain work queued on every CPU, IPIs), from the
 * kernel's tracepoints through a small BPF program (bpf/pagecliff.bpf.c).
 * trace_open() loads and attaches it (for a process and its children, or for
 * all), trace_read() takes a cumulative snapshot (one lookup per map: the
 * cost does not grow with the event rate),
 * trace_interval() turns two snapshots into shares.  Symbolization
 * (trace_ksyms_*) and the replay of recorded events (trace_fold_*) are pure
 * and always built, so tests feed them fixtures.  0 or -errno, never prints.
 */
#ifndef PC_CLI_TRACE_H
#define PC_CLI_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace-shared.h"

#define TRACE_MAX_CALLERS 64
#define TRACE_TOP 3

/* Lock wait at one caller: "__remove_mapping", "spin lock". */
struct trace_caller {
	char name[64];			/* symbol, or "0x..." when unknown */
	char kind[24];			/* "spin lock", "mutex", "rwsem", ... */
	uint64_t ns;			/* cumulative */
};

/* Cumulative figures since the program was loaded, at time t. */
struct trace_snap {
	double t;			/* CLOCK_MONOTONIC seconds */
	uint64_t ns[TRACE_NKINDS];	/* finished spans plus open ones up to t */
	uint64_t n[TRACE_NKINDS];	/* finished spans */
	uint64_t dropped;
	unsigned int unknown;		/* 1 << kind: not measured (tracepoint missing) */
	uint64_t count[TRACE_NCOUNTS];	/* kernel work done (enum trace_count) */
	unsigned int counts_unknown;	/* 1 << count: not counted */
	size_t ncallers;
	int callers_truncated;
	struct trace_caller callers[TRACE_MAX_CALLERS];
};

/* Between two snapshots: percent of the threads' time, NAN unknown. */
struct trace_shares {
	double secs;
	double direct_pct, memcg_pct, lock_pct, kswapd_pct, throttle_pct;
	double direct_ms_s, memcg_ms_s, lock_ms_s, throttle_ms_s;	/* per second, all threads */
	unsigned int ntop;
	struct trace_caller top[TRACE_TOP];	/* by time in the interval (ns: the interval's) */
};

/* Kernel work per GiB moved between two snapshots, NAN where not counted. */
struct trace_work {
	double count[TRACE_NCOUNTS];	/* enum trace_count */
	double lock_waits, lock_ms;	/* contended-lock waits and their time */
};

struct trace;

/*
 * Load and attach the program, counting threads of process @tgid (0: all).
 * On failure *why (of @size) says what is missing: "needs root or CAP_BPF
 * and CAP_PERFMON", "built without BPF support"...  -ENOTSUP when built
 * without it, -EPERM when refused.
 */
int trace_open(struct trace **ret, pid_t tgid, char *why, size_t size);
/* Detach and unload everything; NULL is fine. */
void trace_close(struct trace *t);
/* A cumulative snapshot now. */
int trace_read(struct trace *t, struct trace_snap *ret);
/* Whether this build has the BPF program. */
int trace_built(void);

/*
 * Shares from @a to @b: reclaim, lock and throttle time over @nthreads
 * threads' time, kswapd over @nnodes nodes'.  Zero threads or nodes: NAN.
 */
void trace_interval(const struct trace_snap *a, const struct trace_snap *b,
		    unsigned int nthreads, unsigned int nnodes, struct trace_shares *ret);
/* The work from @a to @b per GiB of @bytes moved (none moved: NAN). */
void trace_work(const struct trace_snap *a, const struct trace_snap *b, uint64_t bytes,
		struct trace_work *ret);
/* Add @ns of lock wait at @name/@kind to @s's callers (merged by both). */
void trace_snap_add_caller(struct trace_snap *s, const char *name, const char *kind,
			   uint64_t ns);
/* "spin lock", "rwlock (read)", "mutex"... for contention_begin's flags. */
const char *trace_lock_kind(unsigned int flags);

/* Kernel symbols from /proc/kallsyms text, sorted by address. */
struct trace_ksyms;
int trace_ksyms_parse(const char *text, struct trace_ksyms **ret);
/* /proc/kallsyms under @root (NULL: "/"); -EPERM when addresses are hidden. */
int trace_ksyms_load(const char *root, struct trace_ksyms **ret);
void trace_ksyms_free(struct trace_ksyms *k);
/* The symbol holding @addr and the offset into it; NULL when none. */
const char *trace_ksyms_find(const struct trace_ksyms *k, uint64_t addr, uint64_t *ret_off);
/* The address of function @name, 0 when there is none. */
uint64_t trace_ksyms_addr(const struct trace_ksyms *k, const char *name);
/* Whether @addr is in a lock or scheduler function (not the caller). */
int trace_ksyms_is_lock(const struct trace_ksyms *k, uint64_t addr);
/* The first frame of @ips outside the lock functions, or -1. */
int trace_caller_frame(const struct trace_ksyms *k, const uint64_t *ips, size_t n);

/*
 * Replay of recorded events (tracefs text, one event a line, as
 * /sys/kernel/tracing/trace prints them with options/record-tgid) through
 * the same accounting as the BPF program; lock waits are keyed by the lock
 * address.  For tests and for checking the program against a recording.
 */
struct trace_fold;
int trace_fold_new(struct trace_fold **ret, pid_t tgid);
void trace_fold_free(struct trace_fold *f);
/* One line; lines that are not one of the traced events are ignored. 0 or -EINVAL. */
int trace_fold_line(struct trace_fold *f, const char *line);
/* The cumulative snapshot at @t seconds (the recording's clock). */
void trace_fold_snap(const struct trace_fold *f, double t, struct trace_snap *ret);

#endif
