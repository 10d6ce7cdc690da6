// SPDX-License-Identifier: MIT
/*
 * direct's use of its tuners: the clock and the byte counts behind them.
 * Which way a copy-API read goes (the caller's buffer or the pipeline) is
 * timed here; the pipeline's depth is set by the pure tuner of
 * direct-tune.c from the rates of windows measured here.
 */

#include "direct-tune.h"
#include "direct.h"
#include "clock.h"

/*
 * Copy-API reads into an aligned buffer can go two ways: straight into the
 * caller's buffer (no copy, but only that buffer's bytes in flight) or
 * through the pipeline (its depth of chunks in flight, then a memcpy).  Which
 * is faster depends on the device: one that wants many bytes in flight
 * favours the pipeline, a fast one that leaves the CPU the bottleneck favours
 * the caller's buffer.  The stream times each way over TUNE_TRIAL bytes,
 * keeps the faster for TUNE_KEEP bytes, and tries again.
 */
#define TUNE_TRIAL (128ull << 20)
#define TUNE_KEEP (1ull << 30)

/*
 * A window of the depth tuner: at least 64 MiB, 4 x the bytes in flight and
 * 100 ms (on the VM's disk 32 MiB windows varied 10-fold at one depth).
 */
#define WIN_BYTES (64ull << 20)
#define WIN_SEC 0.1

/* Start timing @way from now. */
static void tune_start(struct tune *t, enum way way, double now)
{
	t->way = way;
	t->bytes = 0;
	t->t0 = now;
}

/*
 * The way for the next read: score the way in use once it has read its
 * share (the time includes the caller's between reads), then move on to the
 * next trial, or keep the faster way, or go back to trying.
 */
enum way pcl_direct_way(struct tune *t)
{
	uint64_t share = t->trial ? TUNE_TRIAL : TUNE_KEEP;
	double now;

	if (t->t0 == 0) {
		t->trial = 1;
		tune_start(t, WAY_USER, pcc_now_sec());
		return t->way;
	}
	if (t->bytes < share)
		return t->way;
	now = pcc_now_sec();
	if (!t->trial) {
		t->trial = 1;
		tune_start(t, WAY_USER, now);
	} else if (t->way == WAY_USER) {
		t->rate[WAY_USER] = t->bytes / (now - t->t0 + 1e-9);
		tune_start(t, WAY_PIPE, now);
	} else {
		t->rate[WAY_PIPE] = t->bytes / (now - t->t0 + 1e-9);
		t->trial = 0;
		tune_start(t, t->rate[WAY_PIPE] > t->rate[WAY_USER] ? WAY_PIPE : WAY_USER,
			   now);
	}
	return t->way;
}

/*
 * Count @n bytes handed out by the pipeline; when the window is full, hand
 * its rate to the tuner, which sets the depth of the next one.  The time
 * includes the caller's between reads: a consumer slower than the device
 * sees no gain from depth, and depth does not grow.
 */
void pcl_direct_account(struct direct *d, size_t n)
{
	uint64_t need = 4ull * d->want * d->chunk;
	double now, sec;

	if (!d->have_ring || d->dt.min == d->dt.max)
		return;
	if (d->win_t0 == 0) {
		d->win_t0 = pcc_now_sec();
		d->win_bytes = 0;
		return;	/* from the first read on: the ramp is not counted */
	}
	d->win_bytes += n;
	if (d->win_bytes < (need > WIN_BYTES ? need : WIN_BYTES))
		return;
	now = pcc_now_sec();
	sec = now - d->win_t0;
	if (sec < WIN_SEC)
		return;
	d->want = pcl_tune_depth_step(&d->dt, d->win_bytes / sec);
	d->req = pcl_tune_req(&d->dt);
	d->win_t0 = now;
	d->win_bytes = 0;
}
