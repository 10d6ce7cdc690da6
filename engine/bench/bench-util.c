// SPDX-License-Identifier: MIT
/*
 * What every part of pagecliff bench uses and nothing of bench's own: the
 * stop flag, the run's notes, human sizes and the sum of rows over hosts.
 * The leaf of engine/bench: it calls no other file of the folder.
 */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

atomic_int bench_stop;

/* What makes it safe to store from a signal handler. */
static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic_int must be lock-free");

void bench_note(struct bench_run *run, const char *fmt, ...)
{
	va_list ap;

	if (run->nnotes >= sizeof(run->notes) / sizeof(run->notes[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(run->notes[run->nnotes++], sizeof(run->notes[0]), fmt, ap);
	va_end(ap);
}

const char *bench_size(double bytes, char *buf, size_t len)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	if (isnan(bytes)) {
		snprintf(buf, len, "?");
		return buf;
	}
	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
	return buf;
}

/* Add @r's time and bytes into @sum; what a sum over hosts cannot say is NAN. */
void bench_row_add(struct bench_row *sum, const struct bench_row *r)
{
	if (!sum->dt) {
		unsigned int mode = r->mode;

		memset(sum, 0, sizeof(*sum));
		sum->mode = mode;
		sum->cache = sum->cache_limit = sum->reclaim = NAN;
		_Static_assert(sizeof(sum->d) % sizeof(double) == 0, "sample_delta: doubles only");
		for (double *v = (double *)&sum->d; v < (double *)(&sum->d + 1); v++)
			*v = NAN;
		sum->sys_cpu = sum->dirty = sum->writeback = NAN;
		sum->throttled_pct = sum->reclaim_wait_pct = sum->reclaim_pct = NAN;
		sum->direct_reclaim_pct = sum->memcg_reclaim_pct = sum->lock_wait_pct = NAN;
		sum->kswapd_busy_pct = sum->dirty_throttle_pct = sum->top_lock_pct = NAN;
	}
	sum->t = fmax(sum->t, r->t);
	sum->dt = fmax(sum->dt, r->dt);
	sum->bytes += r->bytes;
	sum->bytes_total += r->bytes_total;
	sum->gbps = sum->dt > 0 ? sum->bytes / sum->dt / 1e9 : 0;
	sum->dstate += r->dstate;
	sum->flushing += r->flushing;
}

/* Whether @v is a figure: NAN (unknown) and infinities are not. */
int bench_known(double v)
{
	return !isnan(v) && !isinf(v);
}

const char *bench_engine_name(enum bench_engine e)
{
	static const char *names[] = { "default", "sync", "psync", "io_uring" };

	return names[e];
}
