// SPDX-License-Identifier: MIT
/*
 * Every row of the registry declares what its strategy can do, and the cores
 * act on the declaration alone: a row whose capabilities and ops disagree
 * would have a core call a NULL pointer or never use what the strategy
 * offers.  Checks each row's directions, ops and fallbacks, that the names
 * are the rows', which the preload shim acts with, and what direct (the
 * one zero-copy strategy) declares.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "internal.h"
#include "wstrategy.h"

static int read_ops_ok(const struct pcl_strategy *r)
{
	const struct pcl_strategy_ops *o = r->read;
	int zc = !!(r->caps & PCL_CAP_ZEROCOPY);

	if (!(r->caps & PCL_CAP_READ) != !o) {
		fprintf(stderr, "%s: PCL_CAP_READ and read ops disagree\n", r->name);
		return 0;
	}
	if (!o)
		return !(r->caps & (PCL_CAP_ZEROCOPY | PCL_CAP_SMALL_READS));
	if (zc != (o->next != NULL)) {
		fprintf(stderr, "%s: PCL_CAP_ZEROCOPY %d but next() %s\n", r->name,
			zc, o->next ? "set" : "NULL");
		return 0;
	}
	if (!o->init || !o->read || !o->pread) {
		fprintf(stderr, "%s: init, read and pread are required\n", r->name);
		return 0;
	}
	return 1;
}

static int write_ops_ok(const struct pcl_strategy *r)
{
	const struct pcl_wstrategy_ops *o = r->write;
	int zc = !!(r->caps & PCL_WCAP_ZEROCOPY);

	if (!(r->caps & PCL_CAP_WRITE) != !o) {
		fprintf(stderr, "%s: PCL_CAP_WRITE and write ops disagree\n", r->name);
		return 0;
	}
	if (!o)
		return !(r->caps & (PCL_WCAP_ZEROCOPY | PCL_WCAP_APPEND));
	if (zc != (o->lend != NULL) || zc != (o->commit != NULL)) {
		fprintf(stderr, "%s: PCL_WCAP_ZEROCOPY %d but lend() %s, commit() %s\n",
			r->name, zc, o->lend ? "set" : "NULL", o->commit ? "set" : "NULL");
		return 0;
	}
	if (!o->init || !o->pwrite) {
		fprintf(stderr, "%s: init and pwrite are required\n", r->name);
		return 0;
	}
	return 1;
}

/* A fallback is "none" or another strategy that serves the direction. */
static int fallback_ok(const struct pcl_strategy *r, enum pc_strategy to, unsigned int dir)
{
	if (to == PCL_NO_FALLBACK)
		return 1;
	if (to == PC_AUTO || (unsigned int)to >= PC_STRATEGY_COUNT ||
	    &pcl_strategies[to] == r || !(pcl_strategies[to].caps & dir)) {
		fprintf(stderr, "%s: falls back to %d\n", r->name, (int)to);
		return 0;
	}
	return 1;
}

/* Each chain ends: walking it visits no row twice. */
static int chain_ends(enum pc_strategy id, unsigned int dir)
{
	for (int steps = 0; steps < PC_STRATEGY_COUNT; steps++) {
		id = dir == PCL_CAP_READ ? pcl_strategies[id].read_fallback :
					   pcl_strategies[id].write_fallback;
		if (id == PCL_NO_FALLBACK)
			return 1;
	}
	fprintf(stderr, "%s: its fallbacks go round\n", pcl_strategies[id].name);
	return 0;
}

int main(void)
{
	const struct pcl_strategy *r;
	unsigned int n = 0;
	int ok = 1;

	T_CHECK(!pcl_strategies[PC_AUTO].read && !pcl_strategies[PC_AUTO].write,
		"auto's row holds ops: the cores would use them instead of choosing");
	for (int id = PC_AUTO + 1; id < PC_STRATEGY_COUNT; id++) {
		enum pc_strategy back;

		r = &pcl_strategies[id];
		T_CHECK(r->name && !strcmp(pc_strategy_name(id), r->name) &&
			!pc_strategy_parse(r->name, &back) && back == (enum pc_strategy)id,
			"row %d: its name is not the library's", id);
		T_CHECK(r->caps & (PCL_CAP_READ | PCL_CAP_WRITE), "%s serves nothing", r->name);
		ok &= read_ops_ok(r) && write_ops_ok(r);
		ok &= fallback_ok(r, r->read_fallback, PCL_CAP_READ) &&
		      fallback_ok(r, r->write_fallback, PCL_CAP_WRITE);
		ok &= chain_ends(id, PCL_CAP_READ) && chain_ends(id, PCL_CAP_WRITE);
		T_CHECK(pc_strategy_caps(id) == ((r->caps & PCL_CAP_READ ? PC_STRATEGY_READS : 0) |
						 (r->caps & PCL_CAP_WRITE ? PC_STRATEGY_WRITES : 0) |
						 (r->caps & PCL_CAP_PRELOAD ? PC_STRATEGY_PRELOAD : 0)),
			"%s: pc_strategy_caps() is %u", r->name, pc_strategy_caps(id));
		T_CHECK(!(r->caps & PCL_CAP_PRELOAD) || (r->caps & PCL_CAP_READ),
			"%s: the shim acts with it, but it cannot read", r->name);
		n++;
	}
	T_CHECK(pc_strategy_caps(PC_AUTO) ==
		(PC_STRATEGY_READS | PC_STRATEGY_WRITES | PC_STRATEGY_PRELOAD) &&
		pc_strategy_caps(PC_STRATEGY_COUNT) == 0, "pc_strategy_caps() of auto, of none");
	/* The shim's off is buffered's reading: two names for one would be one too many. */
	T_CHECK(!(pc_strategy_caps(PC_BUFFERED) & PC_STRATEGY_PRELOAD),
		"buffered is a shim mode beside off");
	T_CHECK(pc_strategy_parse(PC_PRELOAD_OFF, &(enum pc_strategy){ PC_AUTO }) == -EINVAL,
		"the shim's off is a strategy's name");
	r = &pcl_strategies[PC_DIRECT];
	T_CHECK(r->caps & PCL_CAP_ZEROCOPY, "direct lends no buffer");
	T_CHECK(r->caps & PCL_CAP_SMALL_READS, "direct leaves small reads to the core's buffer");
	T_CHECK(!(pcl_strategies[PC_BUFFERED].caps & PCL_CAP_SMALL_READS),
		"buffered claims its own read-ahead buffer");
	T_CHECK(r->caps & PCL_WCAP_ZEROCOPY, "direct writes lend nothing");
	T_CHECK(ok, "a row's capabilities, ops and fallbacks disagree");
	printf("%u rows declare what they do, and their fallbacks end\n", n);
	return T_EXIT_PASS;
}
