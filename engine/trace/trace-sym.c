// SPDX-License-Identifier: MIT
/*
 * Kernel symbols for trace: /proc/kallsyms parsed into a sorted table, and
 * the choice of a lock wait's caller, the first stack frame outside the
 * lock and scheduler functions (as perf lock contention does).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "trace.h"

/* Symbols room is made for first; it doubles from there. */
#define SYMS_FIRST 4096

struct trace_sym {
	uint64_t addr;
	char *name;
};

struct trace_ksyms {
	struct trace_sym *sym;
	size_t count;
	char *names;			/* all names, NUL-separated */
	uint64_t lock_lo, lock_hi, sched_lo, sched_hi;
};

static int sym_cmp(const void *a, const void *b)
{
	const struct trace_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Text symbols only ("t" or "T"), and the section markers. */
static int parse_line(const char *line, uint64_t *addr, char *type, const char **name,
		      size_t *len)
{
	char *end;
	const char *p;

	*addr = strtoull(line, &end, 16);
	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
		return -EINVAL;
	*type = end[1];
	*name = p = end + 3;
	while (*p && *p != '\n' && *p != ' ' && *p != '\t')
		p++;
	*len = (size_t)(p - *name);
	return *len ? 0 : -EINVAL;
}

static void mark_ranges(struct trace_ksyms *k, const char *name, uint64_t addr)
{
	if (!strcmp(name, "__lock_text_start"))
		k->lock_lo = addr;
	else if (!strcmp(name, "__lock_text_end"))
		k->lock_hi = addr;
	else if (!strcmp(name, "__sched_text_start"))
		k->sched_lo = addr;
	else if (!strcmp(name, "__sched_text_end"))
		k->sched_hi = addr;
}

static int fill(struct trace_ksyms *k, const char *text)
{
	size_t cap = 0, used = 0, ncap = 0;
	int nonzero = 0;

	for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		uint64_t addr;
		const char *name;
		size_t len;
		char type;

		if (parse_line(l, &addr, &type, &name, &len) || (type != 't' && type != 'T'))
			continue;
		nonzero |= addr != 0;
		if (k->count == cap) {
			void *p;

			cap = cap ? cap * 2 : SYMS_FIRST;
			p = realloc(k->sym, cap * sizeof(*k->sym));
			if (!p)
				return -ENOMEM;
			k->sym = p;
		}
		if (used + len + 1 > ncap) {
			void *p = realloc(k->names, ncap = (ncap + len + 1) * 2);

			if (!p)
				return -ENOMEM;
			k->names = p;
		}
		memcpy(k->names + used, name, len);
		k->names[used + len] = 0;
		k->sym[k->count].addr = addr;
		k->sym[k->count++].name = (char *)(uintptr_t)used;	/* offset until done */
		mark_ranges(k, k->names + used, addr);
		used += len + 1;
	}
	if (!k->count)
		return -ENODATA;
	return nonzero ? 0 : -EPERM;
}

int trace_ksyms_parse(const char *text, struct trace_ksyms **ret)
{
	struct trace_ksyms *k = calloc(1, sizeof(*k));
	int err;

	if (!k)
		return -ENOMEM;
	err = fill(k, text);
	if (err) {
		trace_ksyms_free(k);
		return err;
	}
	for (size_t i = 0; i < k->count; i++)
		k->sym[i].name = k->names + (uintptr_t)k->sym[i].name;
	qsort(k->sym, k->count, sizeof(*k->sym), sym_cmp);
	*ret = k;
	return 0;
}

int trace_ksyms_load(const char *root, struct trace_ksyms **ret)
{
	char *text;
	int err = sample_slurp(root, "/proc/kallsyms", &text);

	if (err)
		return err;
	err = trace_ksyms_parse(text, ret);
	free(text);
	return err;
}

void trace_ksyms_free(struct trace_ksyms *k)
{
	if (!k)
		return;
	free(k->sym);
	free(k->names);
	free(k);
}

const char *trace_ksyms_find(const struct trace_ksyms *k, uint64_t addr, uint64_t *ret_off)
{
	size_t lo = 0, hi = k->count;

	if (!k->count || addr < k->sym[0].addr)
		return NULL;
	while (hi - lo > 1) {		/* last symbol at or below addr */
		size_t mid = lo + (hi - lo) / 2;

		if (k->sym[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (ret_off)
		*ret_off = addr - k->sym[lo].addr;
	return k->sym[lo].name;
}

uint64_t trace_ksyms_addr(const struct trace_ksyms *k, const char *name)
{
	for (size_t i = 0; i < k->count; i++)	/* by address: no order by name */
		if (!strcmp(k->sym[i].name, name))
			return k->sym[i].addr;
	return 0;
}

/* Functions that take or wait for locks, and the tracing glue above them. */
static const char *const lock_prefixes[] = {
	"bpf_", "__bpf_", "__traceiter_", "trace_contention", "perf_trace_",
	"native_queued_spin_lock", "queued_spin_lock", "__pv_queued_spin_lock",
	"pv_queued_spin_lock", "queued_read_lock", "queued_write_lock", "do_raw_",
	"_raw_", "__raw_", "rwsem_down_", "rwsem_optimistic", "down_read", "down_write",
	"__down", "mutex_lock", "__mutex_lock", "mutex_optimistic", "osq_lock",
	"rt_mutex", "__rt_mutex", "rtlock_", "percpu_down", "__percpu_down",
	"percpu_rwsem", "schedule", "__schedule", "io_schedule", "raw_spin_rq_lock",
	"task_rq_lock", "__task_rq_lock", "double_rq_lock", "_double_lock_balance", NULL,
};

int trace_ksyms_is_lock(const struct trace_ksyms *k, uint64_t addr)
{
	const char *name = trace_ksyms_find(k, addr, NULL);

	if ((k->lock_lo && addr >= k->lock_lo && addr < k->lock_hi) ||
	    (k->sched_lo && addr >= k->sched_lo && addr < k->sched_hi))
		return 1;
	if (!name)
		return 0;
	for (size_t i = 0; lock_prefixes[i]; i++)
		if (!strncmp(name, lock_prefixes[i], strlen(lock_prefixes[i])))
			return 1;
	return 0;
}

int trace_caller_frame(const struct trace_ksyms *k, const uint64_t *ips, size_t n)
{
	for (size_t i = 0; i < n && ips[i]; i++)
		if (!trace_ksyms_is_lock(k, ips[i]))
			return (int)i;
	return -1;
}
