// SPDX-License-Identifier: MIT
/*
 * doctor's answer to the report's question, "is there any tuning that can
 * be applied to get around the CPU bottleneck?": what to do on this host,
 * in order of effect, each with the finding and figure behind it.  A pure
 * function of the facts the checks recorded, so fixture trees test it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "doctor.h"
#include "sample.h"

void doctor_facts_init(struct doctor_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->uring = -1;
	f->mem_total = f->wsf = f->zone_reclaim = f->cg_limit = SAMPLE_UNKNOWN;
	f->max_sectors_kb = f->small_kb = f->read_ahead_kb = SAMPLE_UNKNOWN;
	f->dontcache = -1;
	f->balloon_reporting = -1;
}

struct answer {
	const struct doctor_facts *f;
	struct doctor_step *steps;
	size_t n;
};

static struct doctor_step *step(struct answer *a, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static struct doctor_step *step(struct answer *a, const char *id, const char *fmt, ...)
{
	struct doctor_step *s;
	va_list ap;

	if (a->n >= DOCTOR_MAX_STEPS)
		return NULL;
	s = &a->steps[a->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->id, sizeof(s->id), "%s", id);
	va_start(ap, fmt);
	vsnprintf(s->what, sizeof(s->what), fmt, ap);
	va_end(ap);
	return s;
}

static void because(struct doctor_step *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void because(struct doctor_step *s, const char *fmt, ...)
{
	va_list ap;

	if (!s)
		return;
	va_start(ap, fmt);
	vsnprintf(s->because, sizeof(s->because), fmt, ap);
	va_end(ap);
}

static const char *ver_str(int v, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d", v / 1000, v % 1000);
	return buf;
}

static const char *gib_str(uint64_t bytes, char *buf, size_t len)
{
	double v = (double)bytes;
	const char *u = "B";

	if (v >= 1024.0 * 1024 * 1024) {
		v /= 1024.0 * 1024 * 1024;
		u = "GiB";
	} else if (v >= 1024.0 * 1024) {
		v /= 1024.0 * 1024;
		u = "MiB";
	}
	snprintf(buf, len, "%.0f %s", v, u);
	return buf;
}

/* The first data file system that opted in to RWF_DONTCACHE by this kernel,
 * or -1; with @ret_later the first that will, on a later one. */
static int dontcache_fs(const struct doctor_facts *f, int *ret_later)
{
	*ret_later = -1;
	for (unsigned int i = 0; i < f->nfs; i++) {
		if (!f->fs[i].dontcache_since)
			continue;
		if (f->kver >= f->fs[i].dontcache_since)
			return (int)i;
		if (*ret_later < 0)
			*ret_later = (int)i;
	}
	return -1;
}

/* 1: which strategy pagecliff's auto would take here, and why. */
static void answer_strategy(struct answer *a)
{
	const struct doctor_facts *f = a->f;
	int later, fs = dontcache_fs(f, &later);
	int dc = f->dontcache == 1 || (f->dontcache < 0 && f->kver >= 6014 && fs >= 0);
	const char *uring = f->uring > 0 ? "io_uring" : "threads (io_uring is off)";
	struct doctor_step *s;
	if (!f->kver) {
		s = step(a, "strategy", "stream big files through pagecliff (`pagecliff cat`, "
			 "`cp`, `run -- PROGRAM`, or the library's auto mode): it probes each "
			 "file and picks O_DIRECT, RWF_DONTCACHE or drop-behind");
		because(s, "kernel version unknown: what this host offers cannot be told");
		return;
	}
	if (dc) {
		s = step(a, "strategy", "stream big files through pagecliff (`pagecliff cat`, "
			 "`cp`, `run -- PROGRAM`, or the library's auto mode): files not cached are "
			 "read O_DIRECT through %s, cached ones with RWF_DONTCACHE, so the page cache "
			 "never fills", uring);
		because(s, "Linux %s has RWF_DONTCACHE (6.14+)%s%s%s", f->release,
			f->dontcache == 1 ? ", and the probe saw it work here" : ", and ",
			f->dontcache == 1 ? "" : fs >= 0 ? f->fs[fs].type : "",
			f->dontcache == 1 ? "" : fs >= 0 ? " opted in" : "");
		return;
	}
	s = step(a, "strategy", "stream big files through pagecliff (`pagecliff cat`, `cp`, "
		 "`run -- PROGRAM`, or the library's auto mode): files not cached are read "
		 "O_DIRECT through %s, partly cached ones with drop-behind (fadvise DONTNEED "
		 "behind the reader), so the page cache never fills", uring);
	if (f->kver < 6014)
		because(s, "Linux %s has no RWF_DONTCACHE (6.14+): lost is the kernel dropping "
			"the pages it brought in right after the copy (about 65%% faster than "
			"buffered once the cache is full, half the CPU, in its cover letter); "
			"pagecliff uses O_DIRECT and drop-behind instead", f->release);
	else
		because(s, "Linux %s has RWF_DONTCACHE, but %s: pagecliff uses O_DIRECT and "
			"drop-behind instead", f->release, f->dontcache == 0 ?
			"the probe saw it refused on these file systems" :
			"none of these file systems opted in yet");
}

/* 2: a kernel that brings RWF_DONTCACHE and large folios to these file
 * systems: the later of the two versions, each named with its file system. */
static void answer_kernel(struct answer *a)
{
	const struct doctor_facts *f = a->f;
	int later, fs = dontcache_fs(f, &later), lf = -1, need;
	struct doctor_step *s;
	char v[16], w[16], x[16];

	for (unsigned int i = 0; i < f->nfs; i++)
		if (!f->fs[i].large_folios && lf < 0)
			lf = (int)i;
	if (!f->kver || ((fs >= 0 || later < 0) && lf < 0))
		return;
	if (fs >= 0)
		later = -1;	/* RWF_DONTCACHE is here already */
	need = later >= 0 ? f->fs[later].dontcache_since : 0;
	if (lf >= 0 && f->fs[lf].lf_since > need)
		need = f->fs[lf].lf_since;
	s = step(a, "kernel", "plan a kernel of Linux %s or later: %s%s%s%s%s",
		 ver_str(need, v, sizeof(v)), later >= 0 ? "RWF_DONTCACHE on " : "",
		 later >= 0 ? f->fs[later].type : "", later >= 0 && lf >= 0 ? ", " : "",
		 lf >= 0 ? "large folios on " : "", lf >= 0 ? f->fs[lf].type : "");
	if (later >= 0 && lf >= 0)
		because(s, "this is Linux %s: %s opted in to RWF_DONTCACHE in %s; %s caches files "
			"in 4 KiB pages until %s, each reclaimed and taken off the page-cache lock "
			"one by one", f->release, f->fs[later].type,
			ver_str(f->fs[later].dontcache_since, w, sizeof(w)), f->fs[lf].type,
			ver_str(f->fs[lf].lf_since, x, sizeof(x)));
	else if (later >= 0)
		because(s, "this is Linux %s: %s opted in to RWF_DONTCACHE in %s", f->release,
			f->fs[later].type, ver_str(f->fs[later].dontcache_since, w, sizeof(w)));
	else
		because(s, "this is Linux %s: %s caches files in 4 KiB pages until %s, each "
			"reclaimed and taken off the page-cache lock one by one", f->release,
			f->fs[lf].type, ver_str(f->fs[lf].lf_since, x, sizeof(x)));
}

/* 3, 4: vm settings. */
static void answer_vm(struct answer *a)
{
	const struct doctor_facts *f = a->f;
	struct doctor_step *s;
	char g[32];

	if (sample_known(f->wsf) && f->wsf <= 10) {
		s = step(a, "vm.watermark_scale_factor", "sysctl vm.watermark_scale_factor=200 "
			 "(max 1000): kswapd wakes earlier, fewer readers fall into direct reclaim; "
			 "measure with `pagecliff bench` before and after");
		if (sample_known(f->mem_total))
			because(s, "it is %llu: kswapd wakes when free memory is within %.2f%% of RAM "
				"(%s of %s) of the min watermark", (unsigned long long)f->wsf,
				(double)f->wsf / 100.0,
				gib_str(f->mem_total / 10000 * f->wsf, g, sizeof(g)),
				gib_str(f->mem_total, g + 16, 16));
		else
			because(s, "it is %llu (%.2f%% of RAM)", (unsigned long long)f->wsf,
				(double)f->wsf / 100.0);
	}
	if (sample_known(f->zone_reclaim) && f->zone_reclaim) {
		s = step(a, "vm.zone_reclaim_mode", "sysctl vm.zone_reclaim_mode=0");
		because(s, "it is %llu: readers reclaim their node's page cache before using free "
			"memory on %s", (unsigned long long)f->zone_reclaim,
			f->numa_nodes == 2 ? "the other node" : "other nodes");
	}
	if (f->numa_nodes > 1) {
		s = step(a, "memory.numa", "do not expect binding threads and memory to a node to "
			 "help: cut the page-cache churn (step 1) instead");
		because(s, "%d NUMA nodes, one kswapd each: %d kswapd threads reclaim for every "
			"reader; in the report, binding to the disk's node did not help",
			f->numa_nodes, f->numa_nodes);
	}
}

/* 5: a memory cgroup's limit brings the cliff early. */
static void answer_cgroup(struct answer *a)
{
	const struct doctor_facts *f = a->f;
	struct doctor_step *s;
	char g[32];

	if (!sample_known(f->cg_limit) || !f->cg_limit)
		return;
	s = step(a, "memory.cgroup", "raise this memory cgroup's limit for buffered streams, or "
		 "stream through pagecliff (step 1)");
	because(s, "its limit is %s: the cliff comes after about that much buffered data, not "
		"RAM size, with the cgroup's own reclaim", gib_str(f->cg_limit, g, sizeof(g)));
}

/* 6: the device's request size for O_DIRECT. */
static void answer_device(struct answer *a)
{
	const struct doctor_facts *f = a->f;
	struct doctor_step *s;

	if (!f->ndisks || !sample_known(f->max_sectors_kb))
		return;
	s = step(a, "block.request", "read O_DIRECT in blocks of %llu KiB or more with several "
		 "in flight (pagecliff's direct mode keeps 8 in flight, from huge pages)",
		 (unsigned long long)f->max_sectors_kb);
	if (sample_known(f->small_kb) && f->small_kb < f->max_sectors_kb)
		because(s, "%u disk%s (%s%s%s): max_sectors_kb %llu, but a buffer in 4 KiB pages "
			"reaches them in pieces of at most %llu KiB", f->ndisks,
			f->ndisks == 1 ? "" : "s", f->disk_first, f->ndisks > 1 ? " to " : "",
			f->ndisks > 1 ? f->disk_last : "", (unsigned long long)f->max_sectors_kb,
			(unsigned long long)f->small_kb);
	else
		because(s, "%u disk%s (%s%s%s): max_sectors_kb %llu", f->ndisks,
			f->ndisks == 1 ? "" : "s", f->disk_first, f->ndisks > 1 ? " to " : "",
			f->ndisks > 1 ? f->disk_last : "", (unsigned long long)f->max_sectors_kb);
	if (sample_known(f->read_ahead_kb) && f->read_ahead_kb < 128) {
		s = step(a, "block.read_ahead", "raise read_ahead_kb to 1024 for buffered streams");
		because(s, "it is %llu KiB on a data disk; turning read-ahead off made the "
			"report's reads about 90%% slower", (unsigned long long)f->read_ahead_kb);
	}
}

/* 7, 8: what the kernel lacks that pagecliff works around; VMs. */
static void answer_rest(struct answer *a)
{
	const struct doctor_facts *f = a->f;
	struct doctor_step *s;

	if (f->kver && f->kver < 6005) {
		s = step(a, "kernel.cachestat", "nothing to do: pagecliff counts cached pages "
			 "with mincore(2) on a mapping instead");
		because(s, "Linux %s has no cachestat(2) (6.5+): counting is slower on big files, "
			"and a file it cannot write shows every page as cached", f->release);
	}
	if (f->balloon_reporting == 1) {
		s = step(a, "vm.balloon", "when measuring, keep memory caps at 1 GiB or less, or "
			 "touch the memory first, and rerun: the first growth of the cache is slow");
		because(s, "the virtio balloon reports free pages to the host: memory freed a "
			"while ago costs a host fault on its next touch");
	}
}

size_t doctor_answer(const struct doctor_facts *f, struct doctor_step *ret)
{
	struct answer a = { f, ret, 0 };

	answer_strategy(&a);
	answer_kernel(&a);
	answer_vm(&a);
	answer_cgroup(&a);
	answer_device(&a);
	answer_rest(&a);
	return a.n;
}
