// SPDX-License-Identifier: MIT
/*
 * The direct pipeline's depth tuner on synthetic throughput curves, no I/O:
 * a curve that rises and flattens settles at its knee; noise does not make
 * it swing; a curve that falls past a depth, or a device that slows down
 * with depth no longer helping, makes it shallower.  Requests grow with the
 * depth (pcl_tune_req()): a device that wants large requests and not many
 * settles where they are largest, and one that wants neither stays put.
 */
#include <stdio.h>
#include <stdlib.h>

#include "direct-tune.h"
#include "helpers.h"

#define WINDOWS 400

/* Rate at @depth: rises linearly to @knee, flat after (GB/s-like units). */
static double knee_curve(unsigned int depth, unsigned int knee)
{
	return depth < knee ? 2.0 * depth / knee : 2.0;
}

/* Rises to @knee, then loses 20% per doubling: too deep hurts. */
static double peak_curve(unsigned int depth, unsigned int knee)
{
	double r = 2.0;

	if (depth < knee)
		return 2.0 * depth / knee;
	for (unsigned int d = knee; d < depth; d *= 2)
		r *= 0.8;
	return r;
}

/* Uniform noise of +-@amp, from a fixed seed: the test repeats exactly. */
static double noise(double amp)
{
	return 1.0 + amp * (2.0 * rand() / RAND_MAX - 1.0);
}

struct run {
	unsigned int mode;		/* the depth used most */
	unsigned int off_mode;		/* windows at another depth */
	unsigned int last;
	double mean;			/* mean rate over the second half */
};

static void run_curve(struct pcl_tune_depth *t, int peak, unsigned int knee,
		      double amp, struct run *r)
{
	unsigned int count[257] = { 0 };
	double sum = 0;

	for (int w = 0; w < WINDOWS; w++) {
		unsigned int d = t->depth;
		double rate = (peak ? peak_curve(d, knee) : knee_curve(d, knee)) * noise(amp);

		T_CHECK(d >= t->min && d <= t->max && d <= 256, "depth %u out of [%u, %u]",
			d, t->min, t->max);
		count[d]++;
		if (w >= WINDOWS / 2)
			sum += rate;
		pcl_tune_depth_step(t, rate);
	}
	r->mode = 1;
	for (unsigned int d = 1; d <= 256; d++)
		if (count[d] > count[r->mode])
			r->mode = d;
	r->off_mode = WINDOWS - count[r->mode];
	r->last = t->depth;
	r->mean = sum / (WINDOWS / 2);
}

/* A device that wants large requests: 0.5 per slot of request, up to 2.0. */
static double req_curve(const struct pcl_tune_depth *t)
{
	double r = 0.5 * pcl_tune_req(t);

	return r < 2.0 ? r : 2.0;
}

/* Run the request-size curve; returns the mean rate of the second half. */
static double run_req_curve(struct pcl_tune_depth *t, unsigned int *ret_mode)
{
	unsigned int count[257] = { 0 };
	double sum = 0;

	*ret_mode = 1;
	for (int w = 0; w < WINDOWS; w++) {
		double rate = req_curve(t);

		count[t->depth]++;
		if (w >= WINDOWS / 2)
			sum += rate;
		pcl_tune_depth_step(t, rate);
	}
	for (unsigned int d = 1; d <= 256; d++)
		if (count[d] > count[*ret_mode])
			*ret_mode = d;
	return sum / (WINDOWS / 2);
}

static void check_req_rule(void)
{
	static const unsigned int want[][4] = {
		/* min, req_max, depth, slots per request */
		{ 8, 4, 8, 1 }, { 8, 4, 16, 2 }, { 8, 4, 32, 4 }, { 8, 4, 64, 4 },
		{ 8, 1, 64, 1 }, { 2, 4, 8, 4 }, { 2, 4, 4, 2 }, { 8, 8, 24, 2 },
	};
	static const unsigned int dev[][5] = {
		/* min, req_max, depth, device's slots, slots per request */
		{ 8, 4, 8, 4, 4 }, { 8, 4, 8, 2, 2 }, { 8, 4, 8, 8, 4 }, { 8, 4, 8, 1, 1 },
		{ 8, 4, 8, 0, 1 }, { 4, 4, 4, 4, 2 }, { 1, 4, 1, 4, 1 }, { 8, 4, 32, 2, 4 },
	};
	struct pcl_tune_depth t;

	pcl_tune_depth_init(&t, 8, 8, 64);
	T_CHECK(pcl_tune_req(&t) == 1, "a new tuner makes requests of %u slots",
		pcl_tune_req(&t));
	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		pcl_tune_depth_init(&t, want[i][2], want[i][0], 64);
		pcl_tune_req_max(&t, want[i][1]);
		T_CHECK(pcl_tune_req(&t) == want[i][3],
			"min %u, req_max %u, depth %u: requests of %u slots, not %u",
			want[i][0], want[i][1], want[i][2], pcl_tune_req(&t), want[i][3]);
	}
	/* The device's own size from the start, two requests in flight at least. */
	for (unsigned int i = 0; i < sizeof(dev) / sizeof(dev[0]); i++) {
		pcl_tune_depth_init(&t, dev[i][2], dev[i][0], 64);
		pcl_tune_req_max(&t, dev[i][1]);
		pcl_tune_req_dev(&t, dev[i][3]);
		T_CHECK(pcl_tune_req(&t) == dev[i][4],
			"min %u, req_max %u, depth %u, device %u: requests of %u slots, not %u",
			dev[i][0], dev[i][1], dev[i][2], dev[i][3], pcl_tune_req(&t), dev[i][4]);
	}
}

int main(void)
{
	struct pcl_tune_depth t;
	struct run r;

	srand(16);

	/* Rises then flattens at 24: at 32 (the first doubling past it) within 4 windows... */
	pcl_tune_depth_init(&t, 8, 2, 64);
	for (int w = 0; w < 4; w++)
		pcl_tune_depth_step(&t, knee_curve(t.depth, 24));
	T_CHECK(t.depth == 32, "knee 24 from 8: at %u after 4 windows, not 32", t.depth);
	/* ...and settles there. */
	pcl_tune_depth_init(&t, 8, 2, 64);
	run_curve(&t, 0, 24, 0, &r);
	T_CHECK(r.mode == 32, "knee 24 from 8: settled at %u, not 32", r.mode);
	T_CHECK(r.mean >= 0.95 * 2.0, "knee 24: mean rate %.3f of 2.0", r.mean);
	T_CHECK(r.off_mode <= WINDOWS / 10, "knee 24: %u windows off the knee", r.off_mode);

	/* Already past the knee at the start: comes down to it (16), no further. */
	pcl_tune_depth_init(&t, 64, 2, 64);
	run_curve(&t, 0, 16, 0, &r);
	T_CHECK(r.mode == 16, "knee 16 from 64: settled at %u, not 16", r.mode);
	T_CHECK(r.mean >= 0.95 * 2.0, "knee 16 from 64: mean rate %.3f", r.mean);

	/* A CPU-bound device (flat from 1): never deeper than where it started. */
	pcl_tune_depth_init(&t, 8, 2, 64);
	run_curve(&t, 0, 1, 0, &r);
	T_CHECK(r.mode <= 8, "flat curve: settled at %u, deeper than 8", r.mode);

	/* Noise of +-5% on the knee-24 curve: holds one depth, no wild swings. */
	pcl_tune_depth_init(&t, 8, 2, 64);
	run_curve(&t, 0, 24, 0.05, &r);
	T_CHECK(r.mode >= 24 && r.mode <= 64, "noisy knee 24: settled at %u", r.mode);
	T_CHECK(r.off_mode <= WINDOWS / 8, "noisy knee 24: %u of %d windows off depth %u",
		r.off_mode, WINDOWS, r.mode);
	T_CHECK(r.mean >= 0.93 * 2.0, "noisy knee 24: mean rate %.3f", r.mean);

	/* Past a peak at 16 deeper reads lose: stops at 16 growing from 4... */
	pcl_tune_depth_init(&t, 4, 2, 64);
	run_curve(&t, 1, 16, 0, &r);
	T_CHECK(r.mode == 16, "peak 16 from 4: settled at %u", r.mode);
	/* ...and shrinks to it from 64. */
	pcl_tune_depth_init(&t, 64, 2, 64);
	run_curve(&t, 1, 16, 0, &r);
	T_CHECK(r.mode == 16 && r.last == 16, "peak 16 from 64: mode %u, last %u",
		r.mode, r.last);

	/* Settled at 32 on a knee-24 device that then only needs 4: shrinks. */
	pcl_tune_depth_init(&t, 8, 2, 64);
	run_curve(&t, 0, 24, 0, &r);
	T_CHECK(t.depth == 32, "before the change: %u", t.depth);
	run_curve(&t, 0, 4, 0, &r);
	T_CHECK(r.last <= 8 && r.mode <= 8, "after the device needs 4: mode %u, last %u",
		r.mode, r.last);

	/* One depth allowed: stays there. */
	pcl_tune_depth_init(&t, 8, 8, 8);
	run_curve(&t, 0, 24, 0.05, &r);
	T_CHECK(r.off_mode == 0 && r.mode == 8, "min == max: %u windows off 8", r.off_mode);
	/* Requests follow the depth: 1 slot at the start, up to req_max. */
	check_req_rule();
	/* A device that wants 4-slot requests: grows to 32 (8 x 4), no further... */
	pcl_tune_depth_init(&t, 8, 8, 64);
	pcl_tune_req_max(&t, 4);
	T_CHECK(run_req_curve(&t, &r.mode) >= 0.95 * 2.0, "large requests: mean rate low");
	T_CHECK(r.mode == 32 && pcl_tune_req(&t) == 4,
		"large requests: settled at depth %u, requests of %u slots", r.mode,
		pcl_tune_req(&t));
	/* ...and with requests held at one slot, depth buys it nothing. */
	pcl_tune_depth_init(&t, 8, 8, 64);
	run_req_curve(&t, &r.mode);
	T_CHECK(r.mode == 8, "one-slot requests: settled at %u, not 8", r.mode);
	printf("direct-tune: all curves settle as expected\n");
	return 0;
}
