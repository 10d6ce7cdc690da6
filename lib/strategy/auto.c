// SPDX-License-Identifier: MIT
/*
 * auto: choose a strategy for one file from what its file system and the
 * kernel support and from how much of it is cached, and say why.
 *
 * Measured on our machines (docs/PERFORMANCE.md): for a file that is not in
 * the cache, O_DIRECT through io_uring is the fastest and cheapest path with
 * either API (reads land in the caller's buffer, or are lent, with no copy);
 * RWF_DONTCACHE comes next and, unlike O_DIRECT, uses pages that are already
 * cached; drop-behind with fadvise works everywhere.  So: a large file that
 * is mostly uncached goes direct; a file with much of it cached goes
 * dontcache (or buffered when dontcache is refused and nearly all is
 * cached); small files go dontcache, else dropbehind.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Below this many bytes a file is not worth an O_DIRECT pipeline. */
#define AUTO_DIRECT_MIN (4 * PC_MIB)

/* Said after a cached share that mincore counted: the kernel lacks cachestat. */
static const char *by_mincore(const struct pc_probe *p)
{
	return p->cachestat ? "" : " (counted by mincore: no cachestat)";
}

static enum pc_strategy choose_cached(struct pc_stream *s,
				      const struct pc_probe *p, unsigned int pct)
{
	if (p->dontcache) {
		pcl_set_reason(s, "auto: %u%% of the file is cached%s: RWF_DONTCACHE reads use those pages and drop the ones they bring in",
			      pct, by_mincore(p));
		return PC_DONTCACHE;
	}
	if (pct >= 90) {
		pcl_set_reason(s, "auto: %u%% of the file is cached%s and RWF_DONTCACHE is refused (%s): buffered reads from the cache",
			      pct, by_mincore(p), strerror(-p->dontcache_err));
		return PC_BUFFERED;
	}
	pcl_set_reason(s, "auto: %u%% of the file is cached%s and RWF_DONTCACHE is refused (%s): dropbehind keeps those pages",
		      pct, by_mincore(p), strerror(-p->dontcache_err));
	return PC_DROPBEHIND;
}

static enum pc_strategy choose_small(struct pc_stream *s,
				     const struct pc_probe *p, const char *share,
				     const char *why)
{
	if (p->dontcache) {
		pcl_set_reason(s, "auto: %s, %s: RWF_DONTCACHE", share, why);
		return PC_DONTCACHE;
	}
	pcl_set_reason(s, "auto: %s, %s, RWF_DONTCACHE refused (%s): dropbehind",
		      share, why, strerror(-p->dontcache_err));
	return PC_DROPBEHIND;
}

/*
 * The cached share of the file in whole percent of its page-rounded size
 * (the cache holds pages: a 1-byte file cached is 100%, never more).
 */
static unsigned int cached_pct(const struct pc_probe *p)
{
	uint64_t pages = pc_align_up(p->file_size, pc_page_size());

	if (!pages || p->cached_bytes >= pages)
		return pages ? 100 : 0;
	return p->cached_bytes * 100 / pages;
}

enum pc_strategy pcl_auto_choose(struct pc_stream *s)
{
	struct pc_probe p;
	unsigned int pct;
	char why[64], share[64];

	/* The probe's calls, counted as it makes them: 16 on XFS or ext4. */
	if (pcl_probe_fd(s->fd, &p, &s->stats.syscalls)) {
		pcl_set_reason(s, "auto: probe failed: dropbehind works everywhere");
		return PC_DROPBEHIND;
	}
	pct = cached_pct(&p);
	if (p.cached_bytes == PC_BYTES_UNKNOWN)
		snprintf(share, sizeof(share), "residency unknown (not writable)");
	else
		snprintf(share, sizeof(share), "%u%% cached%s", pct, by_mincore(&p));
	if (p.cached_bytes != PC_BYTES_UNKNOWN &&
	    p.cached_bytes > pc_align_up(p.file_size, pc_page_size()) / 8)
		return choose_cached(s, &p, pct);
	if (p.file_size < AUTO_DIRECT_MIN)
		return choose_small(s, &p, share, "file under 4 MiB");
	if (!p.direct) {
		snprintf(why, sizeof(why), "O_DIRECT refused (%s)", strerror(-p.direct_err));
		return choose_small(s, &p, share, why);
	}
	if (!p.uring) {
		snprintf(why, sizeof(why), "io_uring unavailable (%s)", strerror(-p.uring_err));
		return choose_small(s, &p, share, why);
	}
	pcl_set_reason(s, "auto: %s, O_DIRECT and io_uring work: direct with %u reads in flight, no page cache",
		      share, s->opts.inflight);
	return PC_DIRECT;
}
