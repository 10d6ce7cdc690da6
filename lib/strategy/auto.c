// SPDX-License-Identifier: MIT
/*
 * auto: choose a strategy for one file from one probe of what its file
 * system and the kernel support and of how much of it is cached, and say
 * why.  Pure: a probe in, a strategy and its reason out; the stream cores
 * make the probe (pcl_probe_fd()), as bench's detector judges figures it is
 * handed.
 *
 * Reads.
 * Measured on our machines (docs/PERFORMANCE.md): for a file that is not in
 * the cache, O_DIRECT through io_uring is the fastest and cheapest path with
 * either API (reads land in the caller's buffer, or are lent, with no copy);
 * RWF_DONTCACHE comes next and, unlike O_DIRECT, uses pages that are already
 * cached; drop-behind with fadvise works everywhere.  So: a large file that
 * is mostly uncached goes direct; a file with much of it cached goes
 * dontcache (or buffered when dontcache is refused and nearly all is
 * cached); small files go dontcache, else dropbehind.
 *
 * Writes.
 * A file with nothing cached is written O_DIRECT; one with pages cached (or
 * where that cannot be told, or appended to) keeps them: dontcache from the
 * kernel whose uncached writes kick the flusher (aimed at 7.2), dropbehind
 * before it, where uncached writes run at about 35% of buffered.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Below this many bytes a file is not worth an O_DIRECT pipeline. */
#define AUTO_DIRECT_MIN (4 * PCL_MIB)

/* Said after a cached share that mincore counted: the kernel lacks cachestat. */
static const char *by_mincore(const struct pc_probe *p)
{
	return p->cachestat ? "" : " (counted by mincore: no cachestat)";
}

static enum pc_strategy choose_cached(const struct pc_probe *p, unsigned int pct,
				      char *reason, size_t size)
{
	if (p->dontcache) {
		snprintf(reason, size, "auto: %u%% of the file is cached%s: RWF_DONTCACHE reads use those pages and drop the ones they bring in",
			 pct, by_mincore(p));
		return PC_DONTCACHE;
	}
	if (pct >= 90) {
		snprintf(reason, size, "auto: %u%% of the file is cached%s and RWF_DONTCACHE is refused (%s): buffered reads from the cache",
			 pct, by_mincore(p), strerror(-p->dontcache_err));
		return PC_BUFFERED;
	}
	snprintf(reason, size, "auto: %u%% of the file is cached%s and RWF_DONTCACHE is refused (%s): dropbehind keeps those pages",
		 pct, by_mincore(p), strerror(-p->dontcache_err));
	return PC_DROPBEHIND;
}

static enum pc_strategy choose_small(const struct pc_probe *p, const char *share,
				     const char *why, char *reason, size_t size)
{
	if (p->dontcache) {
		snprintf(reason, size, "auto: %s, %s: RWF_DONTCACHE", share, why);
		return PC_DONTCACHE;
	}
	snprintf(reason, size, "auto: %s, %s, RWF_DONTCACHE refused (%s): dropbehind",
		 share, why, strerror(-p->dontcache_err));
	return PC_DROPBEHIND;
}

/*
 * The cached share of the file in whole percent of its page-rounded size
 * (the cache holds pages: a 1-byte file cached is 100%, never more).
 */
static unsigned int cached_pct(const struct pc_probe *p)
{
	uint64_t pages = pcl_align_up(p->file_size, pcl_page_size());

	if (!pages || p->cached_bytes >= pages)
		return pages ? 100 : 0;
	return p->cached_bytes * 100 / pages;
}

enum pc_strategy pcl_auto_read(const struct pc_probe *p, unsigned int inflight,
			       char *reason, size_t size)
{
	unsigned int pct;
	char why[64], share[64];

	if (!p) {
		snprintf(reason, size, "auto: probe failed: dropbehind works everywhere");
		return PC_DROPBEHIND;
	}
	pct = cached_pct(p);
	if (p->cached_bytes == PC_BYTES_UNKNOWN)
		snprintf(share, sizeof(share), "residency unknown (not writable)");
	else
		snprintf(share, sizeof(share), "%u%% cached%s", pct, by_mincore(p));
	if (p->cached_bytes != PC_BYTES_UNKNOWN &&
	    p->cached_bytes > pcl_align_up(p->file_size, pcl_page_size()) / 8)
		return choose_cached(p, pct, reason, size);
	if (p->file_size < AUTO_DIRECT_MIN)
		return choose_small(p, share, "file under 4 MiB", reason, size);
	if (!p->direct) {
		snprintf(why, sizeof(why), "O_DIRECT refused (%s)", strerror(-p->direct_err));
		return choose_small(p, share, why, reason, size);
	}
	if (!p->uring) {
		snprintf(why, sizeof(why), "io_uring unavailable (%s)", strerror(-p->uring_err));
		return choose_small(p, share, why, reason, size);
	}
	snprintf(reason, size, "auto: %s, O_DIRECT and io_uring work: direct with %u reads in flight, no page cache",
		 share, inflight);
	return PC_DIRECT;
}

/*
 * Where a write would go dontcache: on kernels before the flusher fix an
 * uncached write writes its own range back before it returns, at about 35%
 * of buffered throughput, so write-behind (dropbehind: the flusher starts
 * writeback behind the writer and keeps the pages that were cached before)
 * does the same job faster.  @why says what made dontcache the choice.
 */
static enum pc_strategy keep_cached(int kver, const char *why, char *reason, size_t size)
{
	if (kver && kver < PCL_DONTCACHE_WRITES_FAST) {
		snprintf(reason, size, "auto: %s: dropbehind keeps them; uncached writes "
			 "before Linux 7.2 run at 35%% of buffered", why);
		return PC_DROPBEHIND;
	}
	snprintf(reason, size, "auto: %s: dontcache keeps them", why);
	return PC_DONTCACHE;
}

enum pc_strategy pcl_auto_write(const struct pc_probe *p, int append, int kver,
				char *reason, size_t size)
{
	char why[128];

	if (append)
		return keep_cached(kver, "O_APPEND, what is cached stays", reason, size);
	if (!p || p->cached_bytes == PC_BYTES_UNKNOWN) {
		snprintf(why, sizeof(why), "cannot tell what is cached (%s)",
			 p ? "residency hidden" : "probe failed");
		return keep_cached(kver, why, reason, size);
	}
	if (p->cached_bytes) {
		snprintf(why, sizeof(why), "%llu KiB of the file are cached%s",
			 (unsigned long long)p->cached_bytes / 1024, by_mincore(p));
		return keep_cached(kver, why, reason, size);
	}
	snprintf(reason, size, "auto: nothing of the file is cached: direct writes, no page cache");
	return PC_DIRECT;
}
