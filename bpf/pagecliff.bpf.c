// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pagecliff's kernel-event counters: time spent in direct and memory-cgroup
 * reclaim, in contended-lock waits (by kernel stack), kswapd awake, and
 * balance_dirty_pages pauses.  Each begin stores a per-thread timestamp;
 * each end adds the span to per-CPU sums, which user space reads once per
 * interval.  And, for the host guard (outside/hot.c), the pages added to the
 * page cache per file and the process that added them last.  BTF
 * tracepoints (tp_btf): no tracefs, no kprobes needed.
 * Threads are counted when their process is target_tgid or its child (0: every one).
 * Every program and map name starts with "pc_", so tests can find leftovers.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trace-shared.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile unsigned int target_tgid;
extern int CONFIG_HZ __kconfig __weak;

/* Keeps CONFIG_HZ in the object so the reader sees it in the skeleton. */
int kernel_hz;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct trace_sums);
} pc_sums SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct trace_start_key);
	__type(value, struct trace_start);
} pc_starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACE_MAX_NODES);
	__type(key, __u32);
	__type(value, __u64);		/* kswapd's wake time per node, 0 asleep */
} pc_kswapd_at SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1024);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, TRACE_STACK_DEPTH * sizeof(__u64));
} pc_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct trace_lock_key);
	__type(value, __u64);		/* nanoseconds waited */
} pc_lock_wait SEC(".maps");

/* Just what wanted() reads of a task: the parent of its process. */
struct task_struct___pcp {
	int tgid;
	struct task_struct___pcp *group_leader;
	struct task_struct___pcp *real_parent;
} __attribute__((preserve_access_index));

/*
 * The current thread counts when its process is target_tgid or a child of
 * it (bench's workers under a cgroup v2 cap run in a child of bench's).
 */
static __always_inline int wanted(__u32 *ret_tid)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct___pcp *task;

	*ret_tid = (__u32)id;
	if (!target_tgid || (id >> 32) == target_tgid)
		return 1;
	task = (void *)bpf_get_current_task();
	return BPF_CORE_READ(task, group_leader, real_parent, tgid) == (int)target_tgid;
}

static __always_inline void add(unsigned int kind, __u64 ns)
{
	__u32 zero = 0;
	struct trace_sums *s = bpf_map_lookup_elem(&pc_sums, &zero);

	if (!s || kind >= TRACE_NKINDS)
		return;
	s->ns[kind] += ns;
	s->n[kind]++;
}

static __always_inline void dropped(void)
{
	__u32 zero = 0;
	struct trace_sums *s = bpf_map_lookup_elem(&pc_sums, &zero);

	if (s)
		s->dropped++;
}

/* Open a span; an open one of the same kind is kept (nested begins). */
static __always_inline void span_begin(unsigned int kind, long long stackid,
				       unsigned int flags)
{
	struct trace_start_key k = { .kind = kind };
	struct trace_start v = { .stackid = stackid, .flags = flags };

	if (!wanted(&k.tid))
		return;
	v.ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&pc_starts, &k, &v, BPF_NOEXIST) == -7 /* E2BIG */)
		dropped();
}

/* Close a span: add it to the sums; returns its start record's copy. */
static __always_inline int span_end(unsigned int kind, struct trace_start *ret, __u64 *ret_ns)
{
	struct trace_start_key k = { .kind = kind };
	struct trace_start *v;

	if (!wanted(&k.tid))
		return 0;
	v = bpf_map_lookup_elem(&pc_starts, &k);
	if (!v)
		return 0;		/* began before we were attached */
	*ret = *v;
	bpf_map_delete_elem(&pc_starts, &k);
	*ret_ns = bpf_ktime_get_ns() - ret->ts;
	add(kind, *ret_ns);
	return 1;
}

/* A span between a tracepoint pair "TP_begin" and "TP_end", with no stack. */
#define SPAN_PROGS(name, kind, tp)						\
SEC("tp_btf/" tp "_begin")							\
int BPF_PROG(pc_##name##_begin)							\
{										\
	span_begin(kind, -1, 0);						\
	return 0;								\
}										\
SEC("tp_btf/" tp "_end")							\
int BPF_PROG(pc_##name##_end)							\
{										\
	struct trace_start st;							\
	__u64 ns;								\
										\
	span_end(kind, &st, &ns);						\
	return 0;								\
}

SPAN_PROGS(direct, TRACE_DIRECT, "mm_vmscan_direct_reclaim")
SPAN_PROGS(memcg, TRACE_MEMCG, "mm_vmscan_memcg_reclaim")

SEC("tp_btf/contention_begin")
int BPF_PROG(pc_lock_begin, void *lock, unsigned int flags)
{
	__u32 tid;

	if (!wanted(&tid))
		return 0;
	span_begin(TRACE_LOCK, bpf_get_stackid(ctx, &pc_stacks, 0), flags);
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(pc_lock_end)
{
	struct trace_lock_key lk = { 0 };
	struct trace_start st;
	__u64 ns, *w;

	if (!span_end(TRACE_LOCK, &st, &ns) || st.stackid < 0)
		return 0;
	lk.stackid = st.stackid;
	lk.flags = st.flags;
	w = bpf_map_lookup_elem(&pc_lock_wait, &lk);
	if (w) {
		*w += ns;
		return 0;
	}
	bpf_map_update_elem(&pc_lock_wait, &lk, &ns, BPF_NOEXIST);
	return 0;
}

SEC("tp_btf/mm_vmscan_kswapd_wake")
int BPF_PROG(pc_kswapd_wake, int nid)
{
	__u32 n = nid;
	__u64 *t = bpf_map_lookup_elem(&pc_kswapd_at, &n);

	if (t && !*t)
		*t = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/mm_vmscan_kswapd_sleep")
int BPF_PROG(pc_kswapd_sleep, int nid)
{
	__u32 n = nid;
	__u64 *t = bpf_map_lookup_elem(&pc_kswapd_at, &n);

	if (t && *t) {
		add(TRACE_KSWAPD, bpf_ktime_get_ns() - *t);
		*t = 0;
	}
	return 0;
}

/*
 * The pause is in jiffies (the reader converts with CONFIG_HZ); the task
 * sleeps it right after the event, killable only.  Its place among the
 * arguments changed in 6.x (wb, dtc, ..., pause 7th; before: wb and five
 * limits, pause 11th): the loader keeps the program that fits the kernel.
 */
static __always_inline void throttled(long pause)
{
	__u32 tid;

	kernel_hz = CONFIG_HZ;
	if (wanted(&tid) && pause > 0)
		add(TRACE_THROTTLE, (__u64)pause);
}

SEC("tp_btf/balance_dirty_pages")
int BPF_PROG(pc_dirty_throt, void *wb, void *dtc, unsigned long dirty_ratelimit,
	     unsigned long task_ratelimit, unsigned long dirtied, unsigned long period,
	     long pause)
{
	throttled(pause);
	return 0;
}

SEC("tp_btf/balance_dirty_pages")
int BPF_PROG(pc_dirty_old, void *wb, unsigned long thresh, unsigned long bg_thresh,
	     unsigned long dirty, unsigned long bdi_thresh, unsigned long bdi_dirty,
	     unsigned long dirty_ratelimit, unsigned long task_ratelimit, unsigned long dirtied,
	     unsigned long period, long pause)
{
	throttled(pause);
	return 0;
}

/*
 * Kernel work that grows with cores, counted per event into pc_counts:
 * pages added to and deleted from the page cache, fadvise calls, the
 * lru_add_drain_per_cpu work lru_add_drain_all() queues on each CPU with
 * pages in its batches, and IPIs sent to other CPUs.  The reader sets the
 * constants and leaves out a program whose tracepoint this kernel lacks
 * (ipi_send_cpu and ipi_send_cpumask came in 6.4).
 */
const volatile long fadvise_nr = -1;		/* this architecture's fadvise64 */
const volatile unsigned long dontneed_advice = 4;	/* POSIX_FADV_DONTNEED */
const volatile __u64 drain_fn;			/* lru_add_drain_per_cpu, 0 unknown */
const volatile unsigned int cpumask_words;	/* longs of a cpumask with a bit a CPU */

#define PC_MASK_WORDS 16		/* an IPI to CPUs past 1024 is not counted */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct trace_counts);
} pc_counts SEC(".maps");

static __always_inline void count(unsigned int what, __u64 n)
{
	__u32 zero = 0;
	struct trace_counts *c = bpf_map_lookup_elem(&pc_counts, &zero);

	if (c && what < TRACE_NCOUNTS)
		c->n[what] += n;
}

static __always_inline int counted(void)
{
	__u32 tid;

	return wanted(&tid);
}

/* Pages in a folio: the guard's, below. */
struct folio___pc;
static __always_inline __u64 folio_pages(struct folio___pc *folio);

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(pc_count_add, struct folio___pc *folio)
{
	if (counted())
		count(TRACE_ADDED, folio_pages(folio));
	return 0;
}

/* Whether the current task is a kswapd thread ("kswapd0", one a node). */
static __always_inline int in_kswapd(void)
{
	char c[8] = { 0 };

	bpf_get_current_comm(c, sizeof(c));
	return c[0] == 'k' && c[1] == 's' && c[2] == 'w' && c[3] == 'a' && c[4] == 'p' &&
	       c[5] == 'd';
}

/* A traced process is no kswapd: its own deletions skip the name's copy. */
SEC("tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(pc_count_delete, struct folio___pc *folio)
{
	if (target_tgid && counted())
		count(TRACE_DELETED, folio_pages(folio));
	else if (in_kswapd())
		count(TRACE_DELETED_KSWAPD, folio_pages(folio));
	else if (counted())
		count(TRACE_DELETED, folio_pages(folio));
	return 0;
}

/* Every system call passes here: fadvise64's number first, then the thread. */
SEC("tp_btf/sys_enter")
int BPF_PROG(pc_count_fadvise, struct pt_regs *regs, long id)
{
	if (id != fadvise_nr || !counted())
		return 0;
	count(TRACE_FADVISE, 1);
	if (PT_REGS_PARM4_CORE_SYSCALL(regs) == dontneed_advice)
		count(TRACE_DONTNEED, 1);
	return 0;
}

struct work_struct___pc {
	void *func;
} __attribute__((preserve_access_index));

SEC("tp_btf/workqueue_queue_work")
int BPF_PROG(pc_count_drain, int req_cpu, void *pwq, struct work_struct___pc *work)
{
	if (drain_fn && (__u64)BPF_CORE_READ(work, func) == drain_fn && counted())
		count(TRACE_DRAIN, 1);
	return 0;
}

/* IPIs to other CPUs: one to its own CPU (irq_work's) is no cross-CPU work. */
SEC("tp_btf/ipi_send_cpu")
int BPF_PROG(pc_count_ipi, unsigned int cpu)
{
	if (cpu != bpf_get_smp_processor_id() && counted())
		count(TRACE_IPI, 1);
	return 0;
}

SEC("tp_btf/ipi_send_cpumask")
int BPF_PROG(pc_count_ipis, void *mask)
{
	unsigned int self = bpf_get_smp_processor_id();
	unsigned long w;
	__u64 n = 0;

	if (!counted())
		return 0;
#pragma unroll
	for (unsigned int i = 0; i < PC_MASK_WORDS; i++) {
		if (i >= cpumask_words)
			break;
		if (bpf_probe_read_kernel(&w, sizeof(w), (unsigned long *)mask + i))
			continue;
		if (self / 64 == i)
			w &= ~(1ul << (self % 64));
		n += __builtin_popcountl(w);
	}
	count(TRACE_IPI, n);
	return 0;
}

/*
 * Pages added to the page cache per file (filemap:mm_filemap_add_to_page_cache),
 * for the host guard, which reads and clears the map each interval.  The
 * adder's process id is the one seen in the guard's PID namespace, whose
 * inode number is hot_ns_ino.
 */
#define PC_PF_KTHREAD 0x00200000	/* include/linux/sched.h */
#define PC_MAX_NS_LEVEL 8		/* namespaces nested deeper are not looked at */

const volatile unsigned int hot_ns_ino;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);	/* full: the coldest file goes */
	__uint(max_entries, HOT_MAX_FILES);
	__type(key, struct hot_key);
	__type(value, struct hot_val);
} pc_hot SEC(".maps");

/*
 * The few kernel fields read, in types of our own (CO-RE finds them by name
 * without the ___pc): vmlinux.h's task_struct or folio would bring the BTF
 * of half the kernel into the object, twenty times its size.
 */
struct ns_common___pc {
	unsigned int inum;
} __attribute__((preserve_access_index));

struct pid_namespace___pc {
	struct ns_common___pc ns;
} __attribute__((preserve_access_index));

struct upid___pc {
	int nr;
	struct pid_namespace___pc *ns;
} __attribute__((preserve_access_index));

struct pid___pc {
	unsigned int level;
	struct upid___pc numbers[1];
} __attribute__((preserve_access_index));

struct task_struct___pc {
	unsigned int flags;
	struct task_struct___pc *group_leader;
	struct task_struct___pc *real_parent;
	struct pid___pc *thread_pid;
} __attribute__((preserve_access_index));

struct super_block___pc {
	__u32 s_dev;
} __attribute__((preserve_access_index));

struct inode___pc {
	unsigned long i_ino;
	struct super_block___pc *i_sb;
} __attribute__((preserve_access_index));

struct address_space___pc {
	struct inode___pc *host;
} __attribute__((preserve_access_index));

struct folio___pc {
	struct address_space___pc *mapping;
	unsigned long index;
	unsigned char _folio_order;	/* 6.1 to 6.5 */
	unsigned long _flags_1;		/* a large folio's order in its low byte */
} __attribute__((preserve_access_index));

/* @task's process id in the guard's namespace, 0 (a kernel thread) or HOT_OTHER_NS. */
static __always_inline unsigned int task_tgid(struct task_struct___pc *task)
{
	struct pid___pc *pid;
	struct upid___pc up;
	unsigned int level;

	if (BPF_CORE_READ(task, flags) & PC_PF_KTHREAD)
		return 0;
	pid = BPF_CORE_READ(task, group_leader, thread_pid);
	level = pid ? BPF_CORE_READ(pid, level) : 0;
	for (unsigned int l = 0; pid && l <= level && l < PC_MAX_NS_LEVEL; l++)
		if (!bpf_core_read(&up, sizeof(up), &pid->numbers[l]) &&
		    BPF_CORE_READ(up.ns, ns.inum) == hot_ns_ino)
			return (unsigned int)up.nr;
	return HOT_OTHER_NS;
}

/* The current process's id in the guard's namespace, 0 or HOT_OTHER_NS. */
static __always_inline unsigned int adder_tgid(void)
{
	return task_tgid((void *)bpf_get_current_task());
}

/*
 * Pages in @folio: 1, or 2^order of a large one.  Its flags are its first
 * word in every kernel (in newer ones a struct of one word: no CO-RE here).
 */
static __always_inline __u64 folio_pages(struct folio___pc *folio)
{
	unsigned long flags = 0, flags1 = 0;
	unsigned char order = 0;

	bpf_probe_read_kernel(&flags, sizeof(flags), folio);
	if (!(flags & (1ul << bpf_core_enum_value(enum pageflags, PG_head))))
		return 1;
	/* 6.1 to 6.5: a byte of its own; later, the low byte of _flags_1 */
	if (bpf_core_field_exists(folio->_folio_order))
		return bpf_core_read(&order, sizeof(order), &folio->_folio_order) ? 1 :
		       1ull << order;
	if (!bpf_core_field_exists(folio->_flags_1) ||
	    bpf_core_read(&flags1, sizeof(flags1), &folio->_flags_1))
		return 1;
	return 1ull << (flags1 & 0xff);
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(pc_filemap_add, struct folio___pc *folio)
{
	struct inode___pc *host = BPF_CORE_READ(folio, mapping, host);
	struct hot_key k = { 0 };
	struct hot_val v = { 0 }, *old;

	if (!host)
		return 0;
	k.ino = BPF_CORE_READ(host, i_ino);
	k.dev = BPF_CORE_READ(host, i_sb, s_dev);
	v.tgid = adder_tgid();
	if (v.tgid == HOT_OTHER_NS)
		return 0;	/* not the guard's to follow: no room taken */
	v.pages = folio_pages(folio);
	old = bpf_map_lookup_elem(&pc_hot, &k);
	if (old) {
		__sync_fetch_and_add(&old->pages, v.pages);
		old->tgid = v.tgid;
		return 0;
	}
	bpf_map_update_elem(&pc_hot, &k, &v, BPF_NOEXIST);	/* lost a race: a few pages */
	return 0;
}

/*
 * The kernel's view of streams: per thread and file, the runs of page
 * indices it adds, sent to the watcher (outside/kview.c) as kv_rec through
 * pc_kv_ring.  Only the watcher's targets (pc_kv_targets) and their
 * descendants KV_PARENT_LEVELS deep are looked at, unless kv_all.
 */
const volatile unsigned int kv_all;
__u64 kv_lost;				/* records the ring had no room for */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KV_MAX_TARGETS);
	__type(key, __u32);
	__type(value, __u8);
} pc_kv_targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct kv_key);
	__type(value, struct kv_run);
} pc_kv_runs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} pc_kv_ring SEC(".maps");

/* Pages a followed process dropped itself, per file (key: tid is its tgid). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct kv_key);
	__type(value, __u64);
} pc_kv_self SEC(".maps");

/* The current process's id when it is followed, else 0. */
static __always_inline unsigned int kv_wanted(void)
{
	struct task_struct___pc *task = (void *)bpf_get_current_task();
	unsigned int tgid = task_tgid(task), up;

	if (!tgid || tgid == HOT_OTHER_NS)
		return 0;
	if (kv_all || bpf_map_lookup_elem(&pc_kv_targets, &tgid))
		return tgid;
	for (int l = 0; l < KV_PARENT_LEVELS; l++) {
		task = BPF_CORE_READ(task, group_leader, real_parent);
		if (!task)
			return 0;
		up = task_tgid(task);
		if (!up || up == HOT_OTHER_NS)
			return 0;
		if (bpf_map_lookup_elem(&pc_kv_targets, &up))
			return tgid;
	}
	return 0;
}

/* Send what @r holds of @k's run; it then holds nothing. */
static __always_inline void kv_send(const struct kv_key *k, struct kv_run *r)
{
	struct kv_rec rec = {
		.ino = k->ino, .dev = k->dev, .tgid = r->tgid,
		.start = r->start, .end = r->end, .run = r->end - r->run_start,
	};

	if (r->end <= r->start)
		return;
	/* adaptive: a wake-up only when the watcher had taken every record */
	if (bpf_ringbuf_output(&pc_kv_ring, &rec, sizeof(rec), 0))
		__sync_fetch_and_add(&kv_lost, 1);
	r->start = r->end;
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(pc_kv_add, struct folio___pc *folio)
{
	struct inode___pc *host = BPF_CORE_READ(folio, mapping, host);
	struct kv_key k = { 0 };
	struct kv_run v = { 0 }, *r;
	unsigned long long idx, nr;
	unsigned int tgid;

	if (!host || !(tgid = kv_wanted()))
		return 0;
	k.ino = BPF_CORE_READ(host, i_ino);
	k.dev = BPF_CORE_READ(host, i_sb, s_dev);
	k.tid = (__u32)bpf_get_current_pid_tgid();
	idx = BPF_CORE_READ(folio, index);
	nr = folio_pages(folio);
	r = bpf_map_lookup_elem(&pc_kv_runs, &k);
	if (r && r->end == idx) {
		r->end += nr;
		if (r->end - r->start >= KV_CHUNK)
			kv_send(&k, r);
		return 0;
	}
	if (r) {
		kv_send(&k, r);
		r->run_start = r->start = idx;
		r->end = idx + nr;
		r->tgid = tgid;
		return 0;
	}
	v.run_start = v.start = idx;
	v.end = idx + nr;
	v.tgid = tgid;
	bpf_map_update_elem(&pc_kv_runs, &k, &v, BPF_NOEXIST);
	return 0;
}

#define PC_PF_MEMALLOC 0x00000800	/* include/linux/sched.h: in reclaim */

/*
 * A page of a file leaving the cache in a followed process's own context,
 * not in reclaim: the process drops its own pages (fadvise, RWF_DONTCACHE:
 * the shim, dd iflag=nocache), and its stream is its own to care for.
 */
SEC("tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(pc_kv_del, struct folio___pc *folio)
{
	struct task_struct___pc *task = (void *)bpf_get_current_task();
	struct inode___pc *host;
	struct kv_key k = { 0 };
	__u64 nr, *v;

	if (BPF_CORE_READ(task, flags) & (PC_PF_MEMALLOC | PC_PF_KTHREAD))
		return 0;	/* reclaim and kswapd: the cheap test first */
	host = BPF_CORE_READ(folio, mapping, host);
	if (!host || !(k.tid = kv_wanted()))
		return 0;
	k.ino = BPF_CORE_READ(host, i_ino);
	k.dev = BPF_CORE_READ(host, i_sb, s_dev);
	nr = folio_pages(folio);
	v = bpf_map_lookup_elem(&pc_kv_self, &k);
	if (v)
		__sync_fetch_and_add(v, nr);
	else
		bpf_map_update_elem(&pc_kv_self, &k, &nr, BPF_NOEXIST);
	return 0;
}
