// SPDX-License-Identifier: MIT
/*
 * sample: read /proc and /sys into plain structs, for bench, doctor and
 * watch.  The readers of each file (through the parsers of sample-parse.c),
 * a memory cgroup's figures and limits, one whole sample, and the rates
 * between two samples.  What the kernel does not export stays SAMPLE_UNKNOWN
 * or NAN, never 0.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sample.h"
#include "sample-internal.h"
#include "clock.h"

int sample_read_stat(const char *root, struct sample_cpu *ret)
{
	memset(ret, 0xff, sizeof(*ret));
	return SAMPLE_READ_WITH(root, "/proc/stat", sample_parse_stat, ret);
}

int sample_read_meminfo(const char *root, struct sample_meminfo *ret)
{
	memset(ret, 0xff, sizeof(*ret));
	return SAMPLE_READ_WITH(root, "/proc/meminfo", sample_parse_meminfo, ret);
}

int sample_read_vmstat(const char *root, struct sample_vmstat *ret)
{
	memset(ret, 0xff, sizeof(*ret));
	return SAMPLE_READ_WITH(root, "/proc/vmstat", sample_parse_vmstat, ret);
}

int sample_read_psi(const char *root, struct sample_psi *ret)
{
	int err = SAMPLE_READ_WITH(root, "/proc/pressure/memory", sample_parse_psi, ret);

	if (err) {
		/* a missing file leaves nothing set: make it unknown */
		sample_parse_psi("", ret);
	}
	return err;
}

int sample_read_diskstats(const char *root, struct sample_disks *ret)
{
	ret->count = 0;
	ret->truncated = 0;
	return SAMPLE_READ_WITH(root, "/proc/diskstats", sample_parse_diskstats, ret);
}

/* A limit as read: v1 says "unlimited" with ~2^63, v2 with "max" (no number). */
static uint64_t limit_value(uint64_t v)
{
	return v < (UINT64_C(1) << 62) ? v : SAMPLE_UNKNOWN;
}

static uint64_t min_known(uint64_t a, uint64_t b)
{
	if (!sample_known(a))
		return b;
	if (!sample_known(b))
		return a;
	return a < b ? a : b;
}

/* The lowest memory.max of the v2 groups above @dir (SAMPLE_UNKNOWN: none). */
static uint64_t v2_parent_limit(const char *dir)
{
	char path[PATH_MAX], *slash;
	uint64_t lowest = SAMPLE_UNKNOWN;

	snprintf(path, sizeof(path), "%s", dir);
	while ((slash = strrchr(path, '/')) && slash != path) {
		char file[4200];
		uint64_t v;

		*slash = '\0';
		/* the root group and anything above it have no memory.max */
		snprintf(file, sizeof(file), "%s/memory.max", path);
		if (access(file, F_OK))
			break;
		/* "max" does not parse: no limit there */
		if (!sample_read_u64(path, "/memory.max", &v))
			lowest = min_known(lowest, limit_value(v));
	}
	return lowest;
}

/* Limit and usage of a cgroup @dir of @version into @cg. */
static void read_cgroup_limit(const char *dir, int version,
			      struct sample_cgroup *cg)
{
	const char *lim = version == 1 ? "/memory.limit_in_bytes" : "/memory.max";
	const char *use = version == 1 ? "/memory.usage_in_bytes" : "/memory.current";
	uint64_t v;

	if (!sample_read_u64(dir, lim, &v))
		cg->limit = limit_value(v);
	if (!sample_read_u64(dir, use, &v))
		cg->usage = v;
	if (version == 1)
		cg->limit_eff = min_known(limit_value(cg->limit_eff), cg->limit);
	else
		cg->limit_eff = min_known(cg->limit, v2_parent_limit(dir));
}

int sample_read_cgroup(const char *dir, struct sample_cgroup *ret)
{
	char path[PATH_MAX];
	int version, err;

	sample_cgroup_unknown(ret);
	err = sample_path(dir, "/memory.limit_in_bytes", path, sizeof(path));
	if (err)
		return err;
	version = access(path, F_OK) ? 2 : 1;
	err = SAMPLE_READ_WITH(dir, "/memory.stat", sample_parse_memcg_stat, version, ret);
	if (err) {
		sample_cgroup_unknown(ret);
		return err;
	}
	read_cgroup_limit(dir, version, ret);
	return 0;
}

/* Mark every section unknown before reading. */
static void sample_clear(struct sample *s)
{
	memset(s, 0, sizeof(*s));
	memset(&s->cpu, 0xff, sizeof(s->cpu));
	memset(&s->mem, 0xff, sizeof(s->mem));
	memset(&s->vm, 0xff, sizeof(s->vm));
	memset(&s->proc, 0xff, sizeof(s->proc));
	memset(&s->kswapd, 0xff, sizeof(s->kswapd));
	sample_parse_psi("", &s->psi);
	sample_cgroup_unknown(&s->cg);
}

/*
 * Take one sample.  Missing sections (no PSI, no cgroup) are not errors:
 * their _ok flag stays 0.  Fails only when /proc/stat cannot be read.
 */
int sample_take(struct sample *ret, const struct sample_opts *opts)
{
	static const struct sample_opts defaults = { .disks = 1, .kswapd = 1 };
	const struct sample_opts *o = opts ? opts : &defaults;
	const char *root = o->root;
	int err;

	sample_clear(ret);
	ret->time = pcc_now_sec();
	err = sample_read_stat(root, &ret->cpu);
	if (err)
		return err;
	ret->cpu_ok = 1;
	ret->mem_ok = !sample_read_meminfo(root, &ret->mem);
	ret->vm_ok = !sample_read_vmstat(root, &ret->vm);
	ret->psi_ok = !sample_read_psi(root, &ret->psi);
	if (o->cgroup_dir)
		ret->cg_ok = !sample_read_cgroup(o->cgroup_dir, &ret->cg);
	ret->proc_ok = !sample_read_proc(root, o->pid, &ret->proc,
					 &ret->dstate, &ret->threads);
	if (o->kswapd)
		ret->kswapd_ok = !sample_read_kswapd(root, o->kswapd_pids, &ret->kswapd,
						     &ret->kswapd_threads);
	if (o->disks)
		ret->disks_ok = !sample_read_diskstats(root, &ret->disks);
	return 0;
}

uint64_t sample_diff(uint64_t a, uint64_t b)
{
	if (!sample_known(a) || !sample_known(b) || b < a)
		return SAMPLE_UNKNOWN;
	return b - a;
}

double sample_rate(uint64_t a, uint64_t b, double secs)
{
	uint64_t d = sample_diff(a, b);

	if (!sample_known(d) || secs <= 0)
		return NAN;
	return (double)d / secs;
}

const struct sample_disk *sample_disk_find(const struct sample_disks *disks,
					   const char *name)
{
	for (size_t i = 0; i < disks->count; i++) {
		if (!strcmp(disks->disk[i].name, name))
			return &disks->disk[i];
	}
	return NULL;
}

/* Shares of each CPU state over the interval, percent. */
static void cpu_delta(const struct sample_cpu *a, const struct sample_cpu *b,
		      struct sample_delta *d)
{
	uint64_t v[8];
	const uint64_t *pa = &a->user, *pb = &b->user;
	double total = 0;

	/* struct sample_cpu is eight uint64_t in order: walk it as an array */
	for (int i = 0; i < 8; i++) {
		v[i] = sample_diff(pa[i], pb[i]);
		if (sample_known(v[i]))
			total += (double)v[i];
	}
#define PCT(x) (sample_known(x) && total > 0 ? 100.0 * (double)(x) / total : NAN)
	d->usr_pct = sample_known(v[0]) && sample_known(v[1]) ?
		     PCT(v[0] + v[1]) : PCT(v[0]);
	d->sys_pct = PCT(v[2]);
	d->idle_pct = PCT(v[3]);
	d->iowait_pct = PCT(v[4]);
	d->irq_pct = PCT(v[5]);
	d->softirq_pct = PCT(v[6]);
	d->steal_pct = PCT(v[7]);
#undef PCT
}

/* CPU seconds between two task figures, NAN when unknown. */
static double task_secs(const struct sample_task *a, const struct sample_task *b)
{
	uint64_t u = sample_diff(a->utime, b->utime);
	uint64_t s = sample_diff(a->stime, b->stime);
	long hz = sysconf(_SC_CLK_TCK);

	if (!sample_known(u) || !sample_known(s) || hz <= 0)
		return NAN;
	return (double)(u + s) / (double)hz;
}

/* The counters sample_delta() turns into rates: where each goes and comes from. */
#define RATE(to, from) { offsetof(struct sample_delta, to), offsetof(struct sample, from) }
#define VM_RATE(field) RATE(field, vm.field)
#define CG_RATE(field) RATE(cg_##field, cg.field)

static const struct {
	size_t to, from;
} delta_rates[] = {
	VM_RATE(pgscan_direct), VM_RATE(pgsteal_direct), VM_RATE(pgscan_kswapd),
	VM_RATE(pgsteal_kswapd), VM_RATE(pgscan_file), VM_RATE(pgsteal_file),
	VM_RATE(allocstall),
	RATE(psi_some_us, psi.some_total), RATE(psi_full_us, psi.full_total),
	CG_RATE(pgscan), CG_RATE(pgsteal), CG_RATE(pgscan_direct), CG_RATE(pgscan_kswapd),
};

static uint64_t counter_at(const struct sample *s, size_t offset)
{
	return *(const uint64_t *)((const char *)s + offset);
}

void sample_delta(const struct sample *a, const struct sample *b,
		  struct sample_delta *ret)
{
	double t = b->time - a->time;

	ret->secs = t;
	cpu_delta(&a->cpu, &b->cpu, ret);
	ret->proc_cpu_s = task_secs(&a->proc, &b->proc);
	ret->kswapd_cpu_s = task_secs(&a->kswapd, &b->kswapd);
	for (size_t i = 0; i < sizeof(delta_rates) / sizeof(delta_rates[0]); i++) {
		size_t from = delta_rates[i].from;

		*(double *)((char *)ret + delta_rates[i].to) =
			sample_rate(counter_at(a, from), counter_at(b, from), t);
	}
}
