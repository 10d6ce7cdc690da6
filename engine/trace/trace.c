// SPDX-License-Identifier: MIT
/*
 * trace's kernel side: load bpf/pagecliff.bpf.c through its generated
 * skeleton, attach it (links are file descriptors: they go with the process,
 * nothing is pinned), and read its maps into cumulative snapshots.  Without
 * BPF support at build time every call says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trace.h"

#ifdef HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bpf-open.h"
#include "clock.h"

struct trace {
	struct pagecliff_bpf *skel;
	struct trace_ksyms *ksyms;	/* NULL when kallsyms hides addresses */
	int ncpus, hz;
	unsigned int unknown;		/* 1 << kind: its tracepoints are missing */
	unsigned int counts_unknown;	/* 1 << count: not counted here */
	void *percpu;			/* ncpus values, for per-CPU lookups */
};

/* A per-CPU value of any of the maps: the largest. */
#define PERCPU_VALUE (sizeof(struct trace_sums) > sizeof(struct trace_counts) ? \
		      sizeof(struct trace_sums) : sizeof(struct trace_counts))

int trace_built(void)
{
	return 1;
}

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* PC_BPF_DEBUG=1 in the environment: libbpf's and the verifier's log. */
static int debug_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return vfprintf(stderr, fmt, ap);
}

static void say_why(int err, char *why, size_t size)
{
	if (err == -EPERM || (err == -EACCES && geteuid()))
		snprintf(why, size, "refused by the kernel: needs root or CAP_BPF and CAP_PERFMON");
	else if (err == -EACCES)
		snprintf(why, size, "the kernel's verifier refused the program");
	else if (err == -ENOENT || err == -ESRCH || err == -EINVAL)
		snprintf(why, size, "this kernel lacks the tracepoints or BTF (%s)", strerror(-err));
	else
		snprintf(why, size, "cannot load the BPF program: %s", strerror(-err));
}

/* Arguments of tracepoint @tp in the kernel's BTF, -1 when it has none. */
static int tp_nargs(const struct btf *btf, const char *tp)
{
	char name[96];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) : -1;
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);	/* pointer */
	t = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;
	return t && btf_is_func_proto(t) ? btf_vlen(t) - 1 : -1;	/* less the void * */
}

/*
 * The counting programs: each left out, and its counts unknown, where its
 * tracepoint is missing (ipi_send_* before 6.4) or what it compares with
 * is (the drain work's function when kallsyms hides addresses).
 */
static void fit_counts(struct trace *t, const struct btf *btf)
{
	static const struct { const char *tp; unsigned int counts; } tps[] = {
		{ "mm_filemap_add_to_page_cache", 1u << TRACE_ADDED },
		{ "mm_filemap_delete_from_page_cache",
		  1u << TRACE_DELETED | 1u << TRACE_DELETED_KSWAPD },
		{ "sys_enter", 1u << TRACE_FADVISE | 1u << TRACE_DONTNEED },
		{ "workqueue_queue_work", 1u << TRACE_DRAIN },
		{ "ipi_send_cpu", 1u << TRACE_IPI }, { "ipi_send_cpumask", 1u << TRACE_IPI },
	};
	struct bpf_program *prog;
	unsigned int off = 0;

	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
		if (tp_nargs(btf, tps[i].tp) < 0)
			off |= tps[i].counts;
	t->skel->rodata->drain_fn = t->ksyms ?
		trace_ksyms_addr(t->ksyms, "lru_add_drain_per_cpu") : 0;
	if (!t->skel->rodata->drain_fn)
		off |= 1u << TRACE_DRAIN;
#ifdef SYS_fadvise64
	t->skel->rodata->fadvise_nr = SYS_fadvise64;
#else
	off |= 1u << TRACE_FADVISE | 1u << TRACE_DONTNEED;
#endif
	t->skel->rodata->dontneed_advice = POSIX_FADV_DONTNEED;
	t->skel->rodata->cpumask_words = (unsigned int)(t->ncpus + 63) / 64;
	t->counts_unknown = off;
	bpf_object__for_each_program(prog, t->skel->obj) {
		const char *sec = bpf_program__section_name(prog);

		if (strncmp(bpf_program__name(prog), "pc_count_", strlen("pc_count_")))
			continue;
		for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
			if (!strcmp(sec + strlen("tp_btf/"), tps[i].tp) && (off & tps[i].counts))
				bpf_program__set_autoload(prog, false);
	}
}

/*
 * Leave out programs whose tracepoint this kernel lacks (their kind is then
 * unknown), and keep the throttle program that knows where this kernel's
 * balance_dirty_pages has its pause (8 arguments since 6.x, 12 before).
 */
static void fit_kernel(struct trace *t)
{
	static const struct { const char *tp; unsigned int kind; } tps[] = {
		{ "mm_vmscan_direct_reclaim_begin", TRACE_DIRECT },
		{ "mm_vmscan_direct_reclaim_end", TRACE_DIRECT },
		{ "mm_vmscan_memcg_reclaim_begin", TRACE_MEMCG },
		{ "mm_vmscan_memcg_reclaim_end", TRACE_MEMCG },
		{ "contention_begin", TRACE_LOCK }, { "contention_end", TRACE_LOCK },
		{ "mm_vmscan_kswapd_wake", TRACE_KSWAPD },
		{ "mm_vmscan_kswapd_sleep", TRACE_KSWAPD },
		{ "balance_dirty_pages", TRACE_THROTTLE },
	};
	struct btf *btf = btf__load_vmlinux_btf();
	struct bpf_program *prog;
	int bdp = tp_nargs(btf, "balance_dirty_pages");

	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
		if (tp_nargs(btf, tps[i].tp) < 0)
			t->unknown |= 1u << tps[i].kind;
	if (bdp != 8 && bdp != 12)
		t->unknown |= 1u << TRACE_THROTTLE;
	bpf_program__set_autoload(t->skel->progs.pc_dirty_throt, bdp == 8);
	bpf_program__set_autoload(t->skel->progs.pc_dirty_old, bdp == 12);
	bpf_program__set_autoload(t->skel->progs.pc_filemap_add, false);	/* outside/hot.c's */
	bpf_object__for_each_program(prog, t->skel->obj) {
		const char *sec = bpf_program__section_name(prog);

		for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
			if (!strcmp(sec + strlen("tp_btf/"), tps[i].tp) &&
			    (t->unknown & (1u << tps[i].kind)))
				bpf_program__set_autoload(prog, false);
	}
	fit_counts(t, btf);
	btf__free(btf);
}

int trace_open(struct trace **ret, pid_t tgid, char *why, size_t size)
{
	struct trace *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return -ENOMEM;
	libbpf_set_print(getenv("PC_BPF_DEBUG") ? debug_print : quiet_print);
	t->ncpus = libbpf_num_possible_cpus();
	t->percpu = t->ncpus > 0 ? calloc((size_t)t->ncpus, PERCPU_VALUE) : NULL;
	t->skel = pcl_bpf_open();
	err = !t->percpu ? -ENOMEM : !t->skel ? -errno : 0;
	if (err)
		goto out_err;
	t->skel->rodata->target_tgid = (unsigned int)tgid;
	if (trace_ksyms_load(NULL, &t->ksyms))
		t->ksyms = NULL;	/* addresses hidden: no callers, no drain count */
	fit_kernel(t);
	err = pagecliff_bpf__load(t->skel);
	if (!err)
		err = pagecliff_bpf__attach(t->skel);
	if (err)
		goto out_err;
	t->hz = t->skel->kconfig ? t->skel->kconfig->CONFIG_HZ : 0;
	if (t->hz <= 0)			/* no kernel config to read HZ from */
		t->unknown |= 1u << TRACE_THROTTLE;
	*ret = t;
	return 0;
out_err:
	say_why(err, why, size);
	trace_close(t);
	return err;
}

void trace_close(struct trace *t)
{
	if (!t)
		return;
	pagecliff_bpf__destroy(t->skel);
	trace_ksyms_free(t->ksyms);
	free(t->percpu);
	free(t);
}

static int read_sums(struct trace *t, struct trace_snap *s)
{
	struct trace_sums *v = t->percpu;
	unsigned int zero = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.pc_sums), &zero, v))
		return -errno;
	for (int c = 0; c < t->ncpus; c++) {
		for (int k = 0; k < TRACE_NKINDS; k++) {
			s->ns[k] += v[c].ns[k];
			s->n[k] += v[c].n[k];
		}
		s->dropped += v[c].dropped;
	}
	/* the program counts throttling in jiffies */
	s->ns[TRACE_THROTTLE] = t->hz > 0 ? s->ns[TRACE_THROTTLE] * (1000000000u / t->hz) : 0;
	return 0;
}

static int read_counts(struct trace *t, struct trace_snap *s)
{
	struct trace_counts *v = t->percpu;
	unsigned int zero = 0;

	s->counts_unknown = t->counts_unknown;
	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.pc_counts), &zero, v))
		return -errno;
	for (int c = 0; c < t->ncpus; c++)
		for (int k = 0; k < TRACE_NCOUNTS; k++)
			s->count[k] += v[c].n[k];
	return 0;
}

/* Spans still open at @now: a long reclaim counts in every interval it spans. */
static void read_open(struct trace *t, struct trace_snap *s, uint64_t now)
{
	int fd = bpf_map__fd(t->skel->maps.pc_starts);
	struct trace_start_key key, next, *prev = NULL;
	struct trace_start v;
	uint64_t ts;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (!bpf_map_lookup_elem(fd, &next, &v) && next.kind < TRACE_NKINDS && now > v.ts)
			s->ns[next.kind] += now - v.ts;
		key = next;
		prev = &key;
	}
	fd = bpf_map__fd(t->skel->maps.pc_kswapd_at);
	for (unsigned int nid = 0; nid < TRACE_MAX_NODES; nid++)
		if (!bpf_map_lookup_elem(fd, &nid, &ts) && ts && now > ts)
			s->ns[TRACE_KSWAPD] += now - ts;
}

/* The caller of a lock wait from its stack: a symbol, or its address. */
static void caller_name(struct trace *t, long long stackid, char *buf, size_t size)
{
	uint64_t ips[TRACE_STACK_DEPTH] = { 0 };
	unsigned int id = (unsigned int)stackid;
	const char *name;
	int i;

	snprintf(buf, size, "unknown");
	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.pc_stacks), &id, ips))
		return;
	if (!t->ksyms) {
		snprintf(buf, size, "0x%" PRIx64, ips[0]);
		return;
	}
	i = trace_caller_frame(t->ksyms, ips, TRACE_STACK_DEPTH);
	name = i >= 0 ? trace_ksyms_find(t->ksyms, ips[i], NULL) : NULL;
	if (name)
		snprintf(buf, size, "%s", name);
}

static void read_locks(struct trace *t, struct trace_snap *s)
{
	int fd = bpf_map__fd(t->skel->maps.pc_lock_wait);
	struct trace_lock_key key, next, *prev = NULL;
	uint64_t *v = t->percpu;	/* ncpus u64 fit in ncpus sums */
	char name[64];

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		uint64_t ns = 0;

		if (!bpf_map_lookup_elem(fd, &next, v)) {
			for (int c = 0; c < t->ncpus; c++)
				ns += v[c];
			caller_name(t, next.stackid, name, sizeof(name));
			trace_snap_add_caller(s, name, trace_lock_kind(next.flags), ns);
		}
		key = next;
		prev = &key;
	}
}

int trace_read(struct trace *t, struct trace_snap *ret)
{
	struct trace_snap *s = calloc(1, sizeof(*s));
	uint64_t now;
	int err;

	if (!s)
		return -ENOMEM;
	err = read_sums(t, s);	/* sums first: a span ending meanwhile counts later */
	if (!err)
		err = read_counts(t, s);
	if (err)
		goto out;
	s->unknown = t->unknown;
	now = pcc_now_ns();
	read_open(t, s, now);
	read_locks(t, s);
	s->t = now / 1e9;
	*ret = *s;
out:
	free(s);
	return err;
}

#else /* !HAVE_BPF */

int trace_built(void)
{
	return 0;
}

int trace_open(struct trace **ret, pid_t tgid, char *why, size_t size)
{
	snprintf(why, size, "built without BPF support (meson -Dbpf=enabled needs clang, bpftool, libbpf)");
	return -ENOTSUP;
}

void trace_close(struct trace *t)
{
}

int trace_read(struct trace *t, struct trace_snap *ret)
{
	return -ENOTSUP;
}

#endif
