// SPDX-License-Identifier: MIT
/*
 * auto for writes: choose a strategy for one file and say why.  O_DIRECT
 * through io_uring leaves nothing in the cache and costs the least CPU, but
 * the kernel invalidates cached pages under a direct write, so it is chosen
 * only for a file with nothing cached; otherwise RWF_DONTCACHE, which keeps
 * pages cached before.  A strategy the kernel or file system refuses falls
 * back along its chain (direct, dontcache, dropbehind), each step with its
 * reason.
 */
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "wstrategy.h"

enum pc_strategy pcl_wauto_choose(struct pc_wstream *s)
{
	struct pcl_cachestat cs;
	int ret;

	if (s->append) {
		pcl_wset_reason(s, "auto: O_APPEND: dontcache");
		return PC_DONTCACHE;
	}
	s->stats.syscalls++;
	ret = pcl_cachestat(s->fd, 0, 0, &cs);
	if (ret) {
		pcl_wset_reason(s, "auto: cannot tell what is cached (%s): dontcache",
			       strerror(-ret));
		return PC_DONTCACHE;
	}
	if (cs.nr_cache) {
		pcl_wset_reason(s, "auto: %llu KiB of the file are cached: dontcache keeps them",
			       (unsigned long long)cs.nr_cache * sysconf(_SC_PAGESIZE) / 1024);
		return PC_DONTCACHE;
	}
	pcl_wset_reason(s, "auto: nothing of the file is cached: direct writes, no page cache");
	return PC_DIRECT;
}
