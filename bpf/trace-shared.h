/* SPDX-License-Identifier: MIT */
/*
 * What the BPF program (pagecliff.bpf.c) and its readers (cli/trace/trace.c,
 * outside/hot.c) share: the kinds of time measured, the layout of the per-CPU
 * sums and of the per-thread start records, and the pages added per file.  Plain C types only: it is included both with
 * vmlinux.h (BPF) and with the C library (user space).
 */
#ifndef PC_TRACE_SHARED_H
#define PC_TRACE_SHARED_H

enum trace_kind {
	TRACE_DIRECT,			/* vmscan:mm_vmscan_direct_reclaim_begin/end */
	TRACE_MEMCG,			/* vmscan:mm_vmscan_memcg_reclaim_begin/end */
	TRACE_LOCK,			/* lock:contention_begin/end */
	TRACE_KSWAPD,			/* vmscan:mm_vmscan_kswapd_wake/sleep, per node */
	TRACE_THROTTLE,			/* writeback:balance_dirty_pages pauses */
	TRACE_NKINDS,
};

#define TRACE_MAX_NODES 64
#define TRACE_STACK_DEPTH 16

/* Per-CPU sums since load: nanoseconds and completed spans per kind. */
struct trace_sums {
	unsigned long long ns[TRACE_NKINDS];	/* throttle: jiffies paused */
	unsigned long long n[TRACE_NKINDS];
	unsigned long long dropped;	/* begins not recorded: start map full */
};

/* Key of a thread's open span: thread id and kind. */
struct trace_start_key {
	unsigned int tid;
	unsigned int kind;
};

struct trace_start {
	unsigned long long ts;		/* bpf_ktime_get_ns() at the begin */
	long long stackid;		/* lock waits: the begin's kernel stack, or < 0 */
	unsigned int flags;		/* lock waits: LCB_F_* of contention_begin */
	unsigned int pad;
};

/* Lock wait by where it was taken: stack id and lock flags. */
struct trace_lock_key {
	long long stackid;
	unsigned int flags;
	unsigned int pad;
};

/*
 * Kernel work counted per event (pc_counts, per CPU): the work that grows
 * with cores.  By the traced threads, but for the pages kswapd deletes,
 * which it does for every process.
 */
enum trace_count {
	TRACE_ADDED,			/* pages added to the page cache */
	TRACE_DELETED,			/* pages deleted from it */
	TRACE_DELETED_KSWAPD,		/* pages deleted from it by kswapd */
	TRACE_FADVISE,			/* fadvise64 system calls */
	TRACE_DONTNEED,			/* of them POSIX_FADV_DONTNEED */
	TRACE_DRAIN,			/* lru_add_drain_per_cpu work queued, one a CPU */
	TRACE_IPI,			/* IPIs sent to other CPUs, one a CPU */
	TRACE_NCOUNTS,
};

struct trace_counts {
	unsigned long long n[TRACE_NCOUNTS];
};

/* Pages added to the page cache per file: the key is the kernel's (s_dev, i_ino). */
#define HOT_MAX_FILES 4096
#define HOT_OTHER_NS 0xffffffffu	/* an adder outside the guard's PID namespace: not counted */

struct hot_key {
	unsigned long long ino;
	unsigned int dev;		/* the kernel's dev_t: major << 20 | minor */
	unsigned int pad;
};

struct hot_val {
	unsigned long long pages;	/* since the reader last took the entry out */
	unsigned int tgid;		/* the last adder: its pid, 0 a kernel thread */
	unsigned int pad;
};

#endif
