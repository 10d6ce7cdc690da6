// SPDX-License-Identifier: MIT
/*
 * The direct pipeline's depth tuner (see direct-tune.h).  It doubles the
 * reads in flight while each doubling gains at least GAIN, and holds the
 * last depth that gained (the knee).  While holding it probes now and then:
 * one window twice as deep (kept, and growing resumes, if it gains GAIN) and
 * one window half as deep (kept if it loses no more than KEEP: depth that
 * buys nothing is memory pinned for nothing).  A probe that fails waits twice
 * as long before the next one in its direction, so a settled stream rarely
 * pays for probing.  A held rate that falls well under its average for two
 * windows probes at once, downwards first.
 *
 * The depth's slots go out in requests whose size follows the depth
 * (pcl_tune_req()): on a device that wants larger requests (the VM's virtio
 * disk, whose readahead asks for 4 MiB at a time) a doubling that doubles
 * them gains, so depth grows there; on one that does not it gains nothing,
 * and the stream stays at the starting depth with one-chunk requests.
 * Where the device tells its largest request (max_sectors_kb), requests
 * start that large: the 8% rule cannot see a gain through a noisy disk's
 * window-to-window spread (the VM's disk: 1.29 GB/s with 1 MiB requests,
 * 1.53 with 4 MiB, both within one window's noise).
 */
#include "direct-tune.h"

#define GAIN 1.08		/* a rise is at least 8% */
#define KEEP 0.97		/* a shallower depth may lose 3% */
#define FALL 0.80		/* a held rate under 80% of its average */
#define PROBE_FIRST 4		/* windows before the first probe */
#define PROBE_MAX 64		/* the longest wait between probes */

static unsigned int clamp(const struct pcl_tune_depth *t, unsigned int d)
{
	return d < t->min ? t->min : d > t->max ? t->max : d;
}

void pcl_tune_depth_init(struct pcl_tune_depth *t, unsigned int start,
			unsigned int min, unsigned int max)
{
	*t = (struct pcl_tune_depth){ .min = min ? min : 1 };
	t->max = max < t->min ? t->min : max;
	t->depth = clamp(t, start);
	t->phase = PCL_TUNE_GROW;
	t->every[0] = t->every[1] = PROBE_FIRST;
	t->next_up = 1;
	t->req_max = 1;
}

void pcl_tune_req_max(struct pcl_tune_depth *t, unsigned int req_max)
{
	t->req_max = req_max ? req_max : 1;
}

void pcl_tune_req_dev(struct pcl_tune_depth *t, unsigned int slots)
{
	t->req_dev = slots;
}

unsigned int pcl_tune_req(const struct pcl_tune_depth *t)
{
	unsigned int req = 1;

	while (req * 2 <= t->req_max && t->depth / (req * 2) >= t->min)
		req *= 2;
	while (req < t->req_dev && req * 2 <= t->req_max && t->depth / (req * 2) >= 2)
		req *= 2;
	return req;
}

static void hold_at(struct pcl_tune_depth *t, unsigned int depth, double rate)
{
	t->phase = PCL_TUNE_HOLD;
	t->depth = t->hold = depth;
	t->ref = rate;
	t->since = 0;
	t->low = 0;
}

/* Growing: double while it pays, else back to the best and hold. */
static void grow(struct pcl_tune_depth *t, double rate)
{
	if (t->best_rate == 0 || rate >= t->best_rate * GAIN) {
		t->best = t->depth;
		t->best_rate = rate;
		if (t->depth < t->max) {
			t->depth = clamp(t, t->depth * 2);
			return;
		}
	}
	hold_at(t, t->best, t->best_rate);
}

/* Start a probe in the direction due, if there is room that way. */
static void probe(struct pcl_tune_depth *t)
{
	int up = t->next_up;

	if (up && t->hold >= t->max)
		up = 0;
	else if (!up && t->hold <= t->min)
		up = 1;
	if ((up && t->hold >= t->max) || (!up && t->hold <= t->min)) {
		t->since = 0;	/* min == max: nowhere to go */
		return;
	}
	t->next_up = !up;
	t->since = 0;
	t->phase = up ? PCL_TUNE_UP : PCL_TUNE_DOWN;
	t->depth = clamp(t, up ? t->hold * 2 : t->hold / 2);
}

static void hold(struct pcl_tune_depth *t, double rate)
{
	t->low = rate < t->ref * FALL ? t->low + 1 : 0;
	t->ref = 0.75 * t->ref + 0.25 * rate;
	t->since++;
	if (t->low >= 2) {
		t->low = 0;
		t->next_up = 0;
		t->every[0] = t->every[1] = PROBE_FIRST;
		probe(t);
		return;
	}
	if (t->since >= t->every[!t->next_up])
		probe(t);
}

/* A probe's window is in: keep its depth or go back, and space the next. */
static void probed(struct pcl_tune_depth *t, double rate)
{
	int up = t->phase == PCL_TUNE_UP;
	unsigned int *every = &t->every[!up];

	if (up && rate >= t->ref * GAIN) {
		*every = PROBE_FIRST;
		t->phase = PCL_TUNE_GROW;
		t->best = t->hold;
		t->best_rate = t->ref;
		grow(t, rate);
		return;
	}
	if (!up && rate >= t->ref * KEEP) {
		*every = PROBE_FIRST;
		t->next_up = 0;		/* shallower still, next time */
		hold_at(t, t->depth, rate);
		return;
	}
	if (*every < PROBE_MAX)
		*every *= 2;
	t->phase = PCL_TUNE_HOLD;
	t->depth = t->hold;
	t->since = 0;
}

unsigned int pcl_tune_depth_step(struct pcl_tune_depth *t, double rate)
{
	if (!(rate > 0))
		return t->depth;
	switch (t->phase) {
	case PCL_TUNE_GROW:
		grow(t, rate);
		break;
	case PCL_TUNE_HOLD:
		hold(t, rate);
		break;
	case PCL_TUNE_UP:
	case PCL_TUNE_DOWN:
		probed(t, rate);
		break;
	}
	return t->depth;
}
