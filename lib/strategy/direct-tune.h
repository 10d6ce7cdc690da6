/* SPDX-License-Identifier: MIT */
/*
 * The depth tuner of the direct pipeline: a pure function from what it has
 * seen and one more throughput figure to the next number of reads in flight.
 * No clock, no I/O: the caller measures a window and hands in its rate, so
 * the tuner can be tested on synthetic curves (tests/lib/test-direct-tune.c).
 *
 * Depth is counted in slots (chunks) in flight, the bytes in flight; they go
 * out in requests of pcl_tune_req() slots each, so that growing the bytes in
 * flight grows the requests' size first (up to req_max) and their number
 * after, and shrinking takes both back the same way.
 */
#ifndef PCL_DIRECT_TUNE_H
#define PCL_DIRECT_TUNE_H

enum pcl_tune_phase { PCL_TUNE_GROW, PCL_TUNE_HOLD, PCL_TUNE_UP, PCL_TUNE_DOWN };

struct pcl_tune_depth {
	unsigned int depth;		/* reads in flight for the next window */
	unsigned int min, max;		/* the range it may use */
	enum pcl_tune_phase phase;
	unsigned int best;		/* growing: the depth of best_rate */
	double best_rate;
	unsigned int hold;		/* holding or probing: the depth held */
	double ref;			/* the held depth's smoothed rate */
	unsigned int since;		/* windows held since the last probe */
	unsigned int every[2];		/* windows between probes up, down */
	int next_up;			/* the next probe goes up */
	unsigned int low;		/* windows in a row well under ref */
	unsigned int req_max;		/* the largest request, in slots (>= 1) */
	unsigned int req_dev;		/* the device's own request, in slots (0: none) */
};

/* Start at @start reads in flight, within [@min, @max]. */
void pcl_tune_depth_init(struct pcl_tune_depth *t, unsigned int start,
			unsigned int min, unsigned int max);

/*
 * One window at t->depth read at @rate (bytes per second, > 0): returns the
 * depth for the next window (also t->depth).
 */
unsigned int pcl_tune_depth_step(struct pcl_tune_depth *t, double rate);

/* Let requests grow to @req_max slots (1, the default after init: one each). */
void pcl_tune_req_max(struct pcl_tune_depth *t, unsigned int req_max);

/*
 * The device's largest request is @slots slots (its queue's max_sectors_kb:
 * what its own readahead issues); requests start that large (up to
 * req_max) where at least two stay in flight.
 */
void pcl_tune_req_dev(struct pcl_tune_depth *t, unsigned int slots);

/*
 * The slots per request at t->depth: at the lowest depth one (or the
 * device's own size, keeping two in flight), and for each doubling above it
 * twice as many, up to req_max; a power of two that keeps at least t->min
 * requests in flight.
 */
unsigned int pcl_tune_req(const struct pcl_tune_depth *t);

#endif
