// SPDX-License-Identifier: MIT
/*
 * What write streams leave in the page cache, on XFS on a loop device:
 * - footprint: 256 MiB written with each strategy; but for buffered, the
 *   file never has more than 64 MiB cached while it is written or after
 *   close (buffered is printed for comparison: it keeps it all);
 * - foreign: pages cached (clean) before the stream wrote them and a page
 *   someone else dirtied are still cached after the stream overwrote them.
 *
 * usage: test-wcache footprint|foreign
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"
#include "wtest.h"

#define MIB (1024ull * 1024)
#define BOUND (64 * MIB)

static char src[4 * MIB + 1];

/* Write @size bytes with @st in @chunk pieces; the peak cached while at it. */
static uint64_t write_peak(const char *path, enum pc_strategy st, uint64_t size,
			   size_t chunk, int flags, struct pc_wstats *ret_stats)
{
	struct pc_wstream *s = wt_open(path, flags, st);
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;
	uint64_t off = 0, peak = 0;

	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	while (off < size) {
		size_t n = size - off < chunk ? size - off : chunk;
		uint64_t c;

		t_pattern_fill(src, off, n, 13);
		T_CHECK(pc_wstream_write(s, src, n) == (ssize_t)n, "write at %llu",
			(unsigned long long)off);
		off += n;
		c = wt_cached(fd, 0, 0);
		peak = c > peak ? c : peak;
	}
	ret = pc_wstream_close_stats(s, ret_stats);
	T_CHECK(!ret, "close: %s", strerror(-ret));
	close(fd);
	return peak;
}

static int test_footprint(const char *dir)
{
	static const enum pc_strategy sts[] = {
		PC_BUFFERED, PC_DONTCACHE, PC_DROPBEHIND, PC_DIRECT, PC_AUTO,
	};
	static const size_t chunks[] = { MIB, 4 * MIB + 1, 65536 + 3 };
	uint64_t size = 256 * MIB;
	char path[600];

	snprintf(path, sizeof(path), "%s/big", dir);
	for (unsigned int i = 0; i < sizeof(sts) / sizeof(sts[0]); i++) {
		for (unsigned int j = 0; j < sizeof(chunks) / sizeof(chunks[0]); j++) {
			struct pc_wstats st;
			uint64_t peak, after;
			int fd;

			peak = write_peak(path, sts[i], size, chunks[j],
					  O_WRONLY | O_CREAT | O_TRUNC, &st);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			T_CHECK(fd >= 0, "open: %s", strerror(errno));
			after = wt_cached(fd, 0, 0);
			close(fd);
			printf("%-10s (%-10s) chunk %8zu: peak %4llu MiB, after close %4llu MiB, dropped %llu MiB, %llu syscalls\n",
			       pc_strategy_name(sts[i]), pc_strategy_name(st.strategy), chunks[j],
			       (unsigned long long)(peak / MIB), (unsigned long long)(after / MIB),
			       (unsigned long long)(st.bytes_dropped / MIB),
			       (unsigned long long)st.syscalls);
			wt_check_file(path, size, 13);
			if (sts[i] == PC_BUFFERED)
				continue;
			T_CHECK(peak <= BOUND, "%s: %llu MiB cached while writing",
				pc_strategy_name(sts[i]), (unsigned long long)(peak / MIB));
			T_CHECK(after <= BOUND, "%s: %llu MiB cached after close",
				pc_strategy_name(sts[i]), (unsigned long long)(after / MIB));
		}
	}
	return 0;
}

/*
 * A 32 MiB file, cold; 64 KiB at 9 MiB read (cached, clean) and one page at
 * 5 MiB dirtied through another descriptor; then a stream overwrites the
 * file.  Both are still cached after close, and the file holds the stream's
 * bytes.  Returns T_WARM_LOST when the clean 64 KiB were gone: reclaim (DAMON,
 * docs/MACHINES.md) may take them behind the stream's back, a strategy that drops
 * them does so every time, and the caller tries again.
 */
struct foreign {
	const char *path;
	enum pc_strategy st;
};

static int foreign_one(void *arg)
{
	const char *path = ((struct foreign *)arg)->path;
	enum pc_strategy st = ((struct foreign *)arg)->st;
	uint64_t size = 32 * MIB, page = wt_page(), warm = 9 * MIB, dirty = 5 * MIB + 10;
	struct pc_wstats stats;
	char x[100];
	int other, lost;

	unlink(path);
	t_make_file(path, size, 3);
	t_evict(path);
	other = open(path, O_RDWR | O_CLOEXEC);
	T_CHECK(other >= 0, "open: %s", strerror(errno));
	T_CHECK(pread(other, src, 64 * 1024, warm) == 64 * 1024, "warm");
	t_pattern_fill(x, dirty, sizeof(x), 3);
	T_CHECK(pwrite(other, x, sizeof(x), dirty) == sizeof(x), "dirty");
	T_CHECK(wt_dirty(other, dirty - 10, page) == page, "the page is not dirty");
	write_peak(path, st, size, MIB, O_WRONLY, &stats);
	printf("foreign %-10s (%s): cached at 9 MiB %llu KiB, the dirty page %llu KiB, all %llu KiB; kept %llu KiB, dropped %llu KiB\n",
	       pc_strategy_name(st), pc_strategy_name(stats.strategy),
	       (unsigned long long)wt_cached(other, warm, 64 * 1024) / 1024,
	       (unsigned long long)wt_cached(other, dirty - 10, page) / 1024,
	       (unsigned long long)wt_cached(other, 0, 0) / 1024,
	       (unsigned long long)stats.bytes_kept / 1024,
	       (unsigned long long)stats.bytes_dropped / 1024);
	lost = wt_cached(other, warm, 64 * 1024) != 64 * 1024;
	T_CHECK(wt_cached(other, dirty - 10, page) == page,
		"%s: someone else's dirty page was dropped", pc_strategy_name(st));
	T_CHECK(wt_cached(other, 0, 0) <= BOUND, "%s: more than 64 MiB cached",
		pc_strategy_name(st));
	T_CHECK(!fsync(other), "fsync: %s", strerror(errno));
	close(other);
	wt_check_file(path, size, 13);
	return lost ? T_WARM_LOST : 0;
}

static void foreign_tries(const char *path, enum pc_strategy st)
{
	struct foreign f = { path, st };

	T_CHECK(!t_warm_tries(foreign_one, &f), "%s: pages cached before were dropped, three times",
		pc_strategy_name(st));
}

static int test_foreign(const char *dir)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/foreign", dir);
	foreign_tries(path, PC_DONTCACHE);
	foreign_tries(path, PC_DROPBEHIND);
	foreign_tries(path, PC_AUTO);
	return 0;
}

int main(int argc, char **argv)
{
	char dir[512];
	int ret;

	if (argc != 2 || (strcmp(argv[1], "footprint") && strcmp(argv[1], "foreign")))
		t_fail("usage: test-wcache footprint|foreign");
	t_tmpdir(dir, sizeof(dir), t_loopfs("xfs", 1024 * MIB));
	ret = !strcmp(argv[1], "footprint") ? test_footprint(dir) : test_foreign(dir);
	t_rmtree(dir);
	return ret;
}
