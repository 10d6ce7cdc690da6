/* SPDX-License-Identifier: MIT */
/*
 * What the BPF program (pagecliff.bpf.c) and its readers (engine/trace/trace.c,
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

/*
 * The kernel's view of streams (outside/kview.c): the page ranges each
 * thread adds to the cache per file, sent as records through a ring buffer.
 * A thread's contiguous run is sent every KV_CHUNK pages and when it breaks;
 * @run says how long the run it belongs to was by then, which tells a
 * stream from scattered reads.
 */
#define KV_CHUNK 64			/* pages */
#define KV_MAX_TARGETS 8192
#define KV_PARENT_LEVELS 4		/* a target's descendants this deep are followed */

struct kv_key {
	unsigned long long ino;
	unsigned int dev;		/* the kernel's dev_t, as hot_key's */
	unsigned int tid;
};

struct kv_run {
	unsigned long long start, end;	/* pages not sent yet: [start, end) */
	unsigned long long run_start;	/* where the contiguous run began */
	unsigned int tgid, pad;
};

struct kv_rec {
	unsigned long long ino;
	unsigned long long start, end;	/* page indices added: [start, end) */
	unsigned long long run;		/* pages in the run up to end */
	unsigned int dev;
	unsigned int tgid;		/* in the watcher's PID namespace */
};

#endif
