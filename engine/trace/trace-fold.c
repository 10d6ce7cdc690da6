// SPDX-License-Identifier: MIT
/*
 * The arithmetic of trace, apart from the kernel: shares and work per GiB
 * between two snapshots, the lock kinds, the callers table, and the replay
 * of recorded tracepoint events through the accounting that
 * bpf/pagecliff.bpf.c does.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* contention_begin's flags (include/trace/events/lock.h). */
#define LCB_F_SPIN	(1U << 0)
#define LCB_F_READ	(1U << 1)
#define LCB_F_WRITE	(1U << 2)
#define LCB_F_RT	(1U << 3)
#define LCB_F_PERCPU	(1U << 4)
#define LCB_F_MUTEX	(1U << 5)

const char *trace_lock_kind(unsigned int flags)
{
	if (flags & LCB_F_PERCPU)
		return flags & LCB_F_WRITE ? "percpu rwsem (write)" : "percpu rwsem (read)";
	if (flags & LCB_F_MUTEX)
		return flags & LCB_F_SPIN ? "mutex (spinning)" : "mutex";
	if (flags & LCB_F_RT)
		return flags & LCB_F_READ ? "rt rwlock (read)" :
		       flags & LCB_F_WRITE ? "rt rwlock (write)" : "rt mutex";
	if (flags & LCB_F_SPIN)
		return flags & LCB_F_READ ? "rwlock (read)" :
		       flags & LCB_F_WRITE ? "rwlock (write)" : "spin lock";
	if (flags & LCB_F_READ)
		return "rwsem (read)";
	if (flags & LCB_F_WRITE)
		return "rwsem (write)";
	return "lock";
}

void trace_snap_add_caller(struct trace_snap *s, const char *name, const char *kind,
			   uint64_t ns)
{
	size_t i;

	for (i = 0; i < s->ncallers; i++)
		if (!strcmp(s->callers[i].name, name) && !strcmp(s->callers[i].kind, kind))
			break;
	if (i == s->ncallers) {
		if (i == TRACE_MAX_CALLERS) {
			s->callers_truncated = 1;
			return;
		}
		snprintf(s->callers[i].name, sizeof(s->callers[i].name), "%s", name);
		snprintf(s->callers[i].kind, sizeof(s->callers[i].kind), "%s", kind);
		s->callers[i].ns = 0;
		s->ncallers++;
	}
	s->callers[i].ns += ns;
}

/* @b - @a, 0 when it went back (a reload, a lost open span). */
static uint64_t up(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

static double pct(uint64_t ns, double secs, unsigned int n)
{
	return n && secs > 0 ? 100.0 * ns / 1e9 / (secs * n) : NAN;
}

static double ms_s(uint64_t ns, double secs)
{
	return secs > 0 ? ns / 1e6 / secs : NAN;
}

/* What was not measured is unknown, not 0. */
static void forget_unknown(unsigned int unknown, struct trace_shares *r)
{
	if (unknown & (1u << TRACE_DIRECT))
		r->direct_pct = r->direct_ms_s = NAN;
	if (unknown & (1u << TRACE_MEMCG))
		r->memcg_pct = r->memcg_ms_s = NAN;
	if (unknown & (1u << TRACE_LOCK))
		r->lock_pct = r->lock_ms_s = NAN;
	if (unknown & (1u << TRACE_THROTTLE))
		r->throttle_pct = r->throttle_ms_s = NAN;
	if (unknown & (1u << TRACE_KSWAPD))
		r->kswapd_pct = NAN;
}

static uint64_t caller_ns(const struct trace_snap *s, const struct trace_caller *c)
{
	for (size_t i = 0; i < s->ncallers; i++)
		if (!strcmp(s->callers[i].name, c->name) && !strcmp(s->callers[i].kind, c->kind))
			return s->callers[i].ns;
	return 0;
}

/* The TRACE_TOP callers of @b by their wait since @a, largest first. */
static void top_callers(const struct trace_snap *a, const struct trace_snap *b,
			struct trace_shares *ret)
{
	ret->ntop = 0;
	for (size_t i = 0; i < b->ncallers; i++) {
		struct trace_caller c = b->callers[i];
		unsigned int j;

		c.ns = up(caller_ns(a, &c), c.ns);
		if (!c.ns)
			continue;
		for (j = ret->ntop; j > 0 && ret->top[j - 1].ns < c.ns; j--)
			if (j < TRACE_TOP)
				ret->top[j] = ret->top[j - 1];
		if (j < TRACE_TOP) {
			ret->top[j] = c;
			if (ret->ntop < TRACE_TOP)
				ret->ntop++;
		}
	}
}

void trace_interval(const struct trace_snap *a, const struct trace_snap *b,
		    unsigned int nthreads, unsigned int nnodes, struct trace_shares *ret)
{
	double secs = b->t - a->t;
	uint64_t d[TRACE_NKINDS];

	memset(ret, 0, sizeof(*ret));
	ret->secs = secs;
	for (int k = 0; k < TRACE_NKINDS; k++)
		d[k] = up(a->ns[k], b->ns[k]);
	ret->direct_pct = pct(d[TRACE_DIRECT], secs, nthreads);
	ret->memcg_pct = pct(d[TRACE_MEMCG], secs, nthreads);
	ret->lock_pct = pct(d[TRACE_LOCK], secs, nthreads);
	ret->throttle_pct = pct(d[TRACE_THROTTLE], secs, nthreads);
	ret->kswapd_pct = pct(d[TRACE_KSWAPD], secs, nnodes);
	ret->direct_ms_s = ms_s(d[TRACE_DIRECT], secs);
	ret->memcg_ms_s = ms_s(d[TRACE_MEMCG], secs);
	ret->lock_ms_s = ms_s(d[TRACE_LOCK], secs);
	ret->throttle_ms_s = ms_s(d[TRACE_THROTTLE], secs);
	forget_unknown(a->unknown | b->unknown, ret);
	top_callers(a, b, ret);
}

void trace_work(const struct trace_snap *a, const struct trace_snap *b, uint64_t bytes,
		struct trace_work *ret)
{
	double gib = bytes / 1073741824.0;
	unsigned int unknown = a->counts_unknown | b->counts_unknown;

	for (int c = 0; c < TRACE_NCOUNTS; c++)
		ret->count[c] = gib > 0 && !(unknown & (1u << c)) ?
			up(a->count[c], b->count[c]) / gib : NAN;
	ret->lock_waits = ret->lock_ms = NAN;
	if (gib > 0 && !((a->unknown | b->unknown) & (1u << TRACE_LOCK))) {
		ret->lock_waits = up(a->n[TRACE_LOCK], b->n[TRACE_LOCK]) / gib;
		ret->lock_ms = up(a->ns[TRACE_LOCK], b->ns[TRACE_LOCK]) / 1e6 / gib;
	}
}

/* Replay: the BPF program's state, with an open span per thread and kind. */
struct fold_span {
	unsigned int tid, kind;
	uint64_t ts, lock;
	unsigned int flags;
};

struct trace_fold {
	pid_t tgid;
	struct trace_snap sums;		/* finished spans only */
	struct fold_span *open;
	size_t nopen, cap;
	uint64_t kswapd[TRACE_MAX_NODES];
};

int trace_fold_new(struct trace_fold **ret, pid_t tgid)
{
	struct trace_fold *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->tgid = tgid;
	*ret = f;
	return 0;
}

void trace_fold_free(struct trace_fold *f)
{
	if (f)
		free(f->open);
	free(f);
}

static struct fold_span *find_open(struct trace_fold *f, unsigned int tid, unsigned int kind)
{
	for (size_t i = 0; i < f->nopen; i++)
		if (f->open[i].tid == tid && f->open[i].kind == kind)
			return &f->open[i];
	return NULL;
}

static int begin(struct trace_fold *f, unsigned int tid, unsigned int kind, uint64_t ts,
		 uint64_t lock, unsigned int flags)
{
	if (find_open(f, tid, kind))
		return 0;		/* nested begin: the first one stays */
	if (f->nopen == f->cap) {
		void *p = realloc(f->open, (f->cap = f->cap ? f->cap * 2 : 16) * sizeof(*f->open));

		if (!p)
			return -ENOMEM;
		f->open = p;
	}
	f->open[f->nopen++] = (struct fold_span){ tid, kind, ts, lock, flags };
	return 0;
}

static void end(struct trace_fold *f, unsigned int tid, unsigned int kind, uint64_t ts)
{
	struct fold_span *s = find_open(f, tid, kind);
	char name[32];

	if (!s)
		return;			/* began before the recording */
	f->sums.ns[kind] += ts - s->ts;
	f->sums.n[kind]++;
	if (kind == TRACE_LOCK) {
		snprintf(name, sizeof(name), "0x%" PRIx64, s->lock);
		trace_snap_add_caller(&f->sums, name, trace_lock_kind(s->flags), ts - s->ts);
	}
	*s = f->open[--f->nopen];
}

/* contention_begin's "(flags=SPIN|READ)" back to bits. */
static unsigned int parse_flags(const char *p)
{
	static const char *const names[] = { "SPIN", "READ", "WRITE", "RT", "PERCPU", "MUTEX" };
	unsigned int flags = 0;

	p = strstr(p, "flags=");
	if (!p)
		return 0;
	for (p += 6; *p && *p != ')';) {
		size_t n = strcspn(p, "|)");

		for (unsigned int i = 0; i < 6; i++)
			if (strlen(names[i]) == n && !strncmp(p, names[i], n))
				flags |= 1U << i;
		p += n + (p[n] == '|');
	}
	return flags;
}

static long field(const char *args, const char *name, long fallback)
{
	const char *p = strstr(args, name);

	return p ? strtol(p + strlen(name), NULL, 0) : fallback;
}

/* Apply event @ev with @args at @ts (ns) by thread @tid. */
static int apply(struct trace_fold *f, const char *ev, const char *args, unsigned int tid,
		 int mine, uint64_t ts)
{
	long nid;

	if (!strcmp(ev, "mm_vmscan_kswapd_wake") || !strcmp(ev, "mm_vmscan_kswapd_sleep")) {
		nid = field(args, "nid=", -1);
		if (nid < 0 || nid >= TRACE_MAX_NODES)
			return -EINVAL;
		if (ev[17] == 'w' && !f->kswapd[nid])
			f->kswapd[nid] = ts;
		else if (ev[17] == 's' && f->kswapd[nid]) {
			f->sums.ns[TRACE_KSWAPD] += ts - f->kswapd[nid];
			f->sums.n[TRACE_KSWAPD]++;
			f->kswapd[nid] = 0;
		}
		return 0;
	}
	if (!mine)
		return 0;
	if (!strcmp(ev, "mm_vmscan_direct_reclaim_begin"))
		return begin(f, tid, TRACE_DIRECT, ts, 0, 0);
	if (!strcmp(ev, "mm_vmscan_memcg_reclaim_begin"))
		return begin(f, tid, TRACE_MEMCG, ts, 0, 0);
	if (!strcmp(ev, "contention_begin"))
		return begin(f, tid, TRACE_LOCK, ts, strtoull(args, NULL, 16), parse_flags(args));
	if (!strcmp(ev, "mm_vmscan_direct_reclaim_end"))
		end(f, tid, TRACE_DIRECT, ts);
	else if (!strcmp(ev, "mm_vmscan_memcg_reclaim_end"))
		end(f, tid, TRACE_MEMCG, ts);
	else if (!strcmp(ev, "contention_end"))
		end(f, tid, TRACE_LOCK, ts);
	else if (!strcmp(ev, "balance_dirty_pages") && field(args, " pause=", 0) > 0) {
		/* the text gives the pause in ms */
		f->sums.ns[TRACE_THROTTLE] += (uint64_t)field(args, " pause=", 0) * 1000000;
		f->sums.n[TRACE_THROTTLE]++;
	}
	return 0;
}

/*
 * "  comm-TID  (  TGID) [CPU] FLAGS  SECS.USECS: EVENT: ARGS": the comm may
 * hold dashes and spaces, so the parse anchors on " (" and "]".
 */
int trace_fold_line(struct trace_fold *f, const char *line)
{
	const char *open = strstr(line, " ("), *colon, *ev, *p, *dash;
	char name[64];
	unsigned long tid, tgid;
	double secs;
	size_t n;

	if (!open || !strchr(open, ']'))
		return line[strspn(line, " \t\n")] && line[0] != '#' ? -EINVAL : 0;
	for (dash = open; dash > line && dash[-1] != '-'; dash--)
		;
	tid = strtoul(dash, NULL, 10);
	tgid = strtoul(open + 2 + strspn(open + 2, " "), NULL, 10);
	p = strchr(open, ']') + 1;
	p += strspn(p, " ");
	p += strcspn(p, " ");		/* the irq/preempt flags */
	secs = strtod(p, (char **)&colon);
	if (dash == line || colon == p || *colon != ':')
		return -EINVAL;
	ev = colon + 1 + strspn(colon + 1, " ");
	n = strcspn(ev, ":");
	if (!ev[n] || n >= sizeof(name))
		return -EINVAL;
	memcpy(name, ev, n);
	name[n] = 0;
	return apply(f, name, ev + n + 1, (unsigned int)tid,
		     !f->tgid || (pid_t)tgid == f->tgid, (uint64_t)llround(secs * 1e9));
}

void trace_fold_snap(const struct trace_fold *f, double t, struct trace_snap *ret)
{
	uint64_t now = (uint64_t)llround(t * 1e9);

	*ret = f->sums;
	ret->t = t;
	ret->counts_unknown = (1u << TRACE_NCOUNTS) - 1;	/* spans only are replayed */
	for (size_t i = 0; i < f->nopen; i++)
		if (now > f->open[i].ts)
			ret->ns[f->open[i].kind] += now - f->open[i].ts;
	for (int nid = 0; nid < TRACE_MAX_NODES; nid++)
		if (f->kswapd[nid] && now > f->kswapd[nid])
			ret->ns[TRACE_KSWAPD] += now - f->kswapd[nid];
}
