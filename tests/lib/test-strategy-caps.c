// SPDX-License-Identifier: MIT
/*
 * Every ops table declares what it can do in its flags, and the core acts on
 * the flags alone: a table whose flags and function pointers disagree would
 * have the core call a NULL pointer or never use what the strategy offers.
 * Checks each read and write table, and that direct (the one zero-copy read
 * strategy) declares it.
 */
#include <stdio.h>

#include "helpers.h"
#include "internal.h"
#include "wstrategy.h"

static int read_table_ok(const struct pcl_strategy_ops *o)
{
	int zc = !!(o->flags & PCL_CAP_ZEROCOPY);

	if (zc != (o->next != NULL)) {
		fprintf(stderr, "%s: PCL_CAP_ZEROCOPY %d but next() %s\n", o->name,
			zc, o->next ? "set" : "NULL");
		return 0;
	}
	if (!o->init || !o->read || !o->pread) {
		fprintf(stderr, "%s: init, read and pread are required\n", o->name);
		return 0;
	}
	return 1;
}

static int write_table_ok(const struct pc_wstrategy_ops *o)
{
	int zc = !!(o->flags & PCL_WCAP_ZEROCOPY);

	if (zc != (o->lend != NULL) || zc != (o->commit != NULL)) {
		fprintf(stderr, "%s: PCL_WCAP_ZEROCOPY %d but lend() %s, commit() %s\n",
			o->name, zc, o->lend ? "set" : "NULL", o->commit ? "set" : "NULL");
		return 0;
	}
	if (!o->init || !o->pwrite) {
		fprintf(stderr, "%s: init and pwrite are required\n", o->name);
		return 0;
	}
	return 1;
}

int main(void)
{
	const struct pc_wstrategy_ops *w[] = {
		&pcl_wstrat_buffered, &pcl_wstrat_dontcache,
		&pcl_wstrat_dropbehind, &pcl_wstrat_direct,
	};
	unsigned int nread = 0;
	int ok = 1;

	for (int id = 0; id < PC_STRATEGY_COUNT; id++) {
		const struct pcl_strategy_ops *o = pcl_strategy_ops(id);

		if (!o)
			continue;
		nread++;
		T_CHECK(o->id == (enum pc_strategy)id, "table %d holds %s", id, o->name);
		ok &= read_table_ok(o);
	}
	T_CHECK(nread == PC_STRATEGY_COUNT - 1, "%u read tables, want %d", nread,
		PC_STRATEGY_COUNT - 1);
	for (unsigned int i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		ok &= write_table_ok(w[i]);
	T_CHECK(pcl_strat_direct.flags & PCL_CAP_ZEROCOPY, "direct lends no buffer");
	T_CHECK(pcl_strat_direct.flags & PCL_CAP_SMALL_READS,
		"direct leaves small reads to the core's buffer");
	T_CHECK(!(pcl_strat_buffered.flags & PCL_CAP_SMALL_READS),
		"buffered claims its own read-ahead buffer");
	T_CHECK(pcl_wstrat_direct.flags & PCL_WCAP_ZEROCOPY, "direct writes lend nothing");
	T_CHECK(ok, "a table's flags and pointers disagree");
	printf("%u read and %zu write tables declare what they do\n", nread,
	       sizeof(w) / sizeof(w[0]));
	return T_EXIT_PASS;
}
