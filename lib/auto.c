// SPDX-License-Identifier: MIT
/*
 * auto: choose a strategy for one file from what its file system and the
 * kernel support, and say why.
 *
 * Preference, measured on our machines (docs/PERFORMANCE.md): RWF_DONTCACHE
 * where supported (fastest with the copy API, keeps what was cached, drops
 * what it brought in); a file mostly in the cache is read buffered (the
 * cache is the fastest device); large files go direct through io_uring;
 * anything else drops behind with fadvise, which works everywhere.
 */
#include <string.h>

#include "internal.h"

/* Below this many bytes a file is not worth an O_DIRECT pipeline. */
#define AUTO_DIRECT_MIN (4 * PC_MIB)

enum pc_strategy pc_auto_choose(struct pc_stream *s)
{
	struct pc_probe p;
	uint64_t pct;

	s->stats.syscalls += 6;
	if (pc_probe_fd(s->fd, &p)) {
		pc_set_reason(s, "auto: probe failed: dropbehind works everywhere");
		return PC_DROPBEHIND;
	}
	if (p.dontcache) {
		pc_set_reason(s, "auto: RWF_DONTCACHE supported: cached pages are used and kept, new ones dropped");
		return PC_DONTCACHE;
	}
	pct = p.file_size ? p.cached_bytes * 100 / p.file_size : 100;
	if (pct >= 90) {
		pc_set_reason(s, "auto: %llu%% of the file is cached and RWF_DONTCACHE is refused (%s): buffered reads from the cache",
			      (unsigned long long)pct, strerror(-p.dontcache_err));
		return PC_BUFFERED;
	}
	if (p.direct && p.uring && p.file_size >= AUTO_DIRECT_MIN) {
		pc_set_reason(s, "auto: RWF_DONTCACHE refused (%s); O_DIRECT and io_uring work: direct with %u reads in flight",
			      strerror(-p.dontcache_err), s->opts.inflight);
		return PC_DIRECT;
	}
	pc_set_reason(s, "auto: RWF_DONTCACHE refused (%s), %s: dropbehind",
		      strerror(-p.dontcache_err),
		      !p.direct ? "O_DIRECT refused" :
		      !p.uring ? "io_uring unavailable" : "file under 4 MiB");
	return PC_DROPBEHIND;
}
