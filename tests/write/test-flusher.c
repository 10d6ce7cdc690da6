// SPDX-License-Identifier: MIT
/*
 * The write-behind engine (lib/flusher.c) on its own, driven as the shim
 * drives it: the bytes reach the disk, the cache holds a few batches, pages
 * someone else dirtied and pages cached before are left alone, and a
 * writeback error is handed back without hiding it from the writer's fsync.
 *
 * With "nocachestat" both run again with cachestat(2) refused (ENOSYS, as
 * before Linux 6.5): the flusher tells from mincore(2) which batches are
 * untouched and still keeps the cache small, also as the shim drives it
 * (the program's write-only descriptor, no wait of our own).
 *
 * usage: test-flusher seq|foreign|error|nocachestat
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "flusher.h"
#include "wtest.h"

#define MIB (1024u * 1024u)
#define BATCH (1u * MIB)

static char buf[4 * MIB];
static int no_cachestat;		/* refuse cachestat(2) before the flusher starts */
static int count_fd = -1;		/* count the cache through this one, not the writer's */

/* Write [off, off + len) of pattern @seed in @chunk pieces through @f. */
static int write_through(struct pcl_flusher *f, int fd, uint64_t off,
			 uint64_t len, size_t chunk, uint32_t seed,
			 uint64_t *ret_peak)
{
	uint64_t end = off + len;
	int err = 0;

	while (off < end && !err) {
		size_t n = end - off < chunk ? end - off : chunk;
		ssize_t w;

		t_pattern_fill(buf, off, n, seed);
		pcl_flusher_before(f, off, n);
		w = pwrite(fd, buf, n, off);
		if (w < 0)
			return -errno;
		err = pcl_flusher_wrote(f, off, w);
		off += w;
		if (ret_peak) {
			uint64_t c = wt_cached(count_fd >= 0 ? count_fd : fd, 0, 0);

			if (c > *ret_peak)
				*ret_peak = c;
		}
	}
	return err;
}

/*
 * @quiet: as the shim drives it, on the program's write-only descriptor and
 * with no wait through a description of our own (PCL_FLUSHER_QUIET).
 */
static int test_seq(const char *dir, int quiet)
{
	uint64_t size = 40 * MIB + 3, peak = 0, bound = (PCL_FLUSHER_INFLIGHT + 2) * BATCH;
	struct pcl_flusher f;
	char path[600];
	int fd, cfd;

	snprintf(path, sizeof(path), "%s/seq%s", dir, quiet ? "-quiet" : "");
	fd = open(path, (quiet ? O_WRONLY : O_RDWR) | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	cfd = quiet ? open(path, O_RDONLY | O_CLOEXEC) : fd;	/* to count through */
	T_CHECK(cfd >= 0, "open: %s", strerror(errno));
	if (no_cachestat)
		t_refuse(T_REFUSE_CACHESTAT);
	T_CHECK(!pcl_flusher_init(&f, fd, quiet ? PCL_FLUSHER_QUIET : -1, BATCH, 0), "init");
	T_CHECK(quiet || f.wait_fd >= 0, "no description to wait through: %s",
		strerror(-f.wait_err));
	count_fd = cfd;
	T_CHECK(!write_through(&f, fd, 0, size, 256 * 1024 + 5, 1, &peak), "write");
	T_CHECK(!pcl_flusher_finish(&f), "finish");
	printf("seq%s: peak %llu KiB cached (bound %llu), dropped %llu, kept %llu, %llu syscalls\n",
	       quiet ? " quiet" : "", (unsigned long long)peak >> 10,
	       (unsigned long long)bound >> 10,
	       (unsigned long long)f.bytes_dropped, (unsigned long long)f.bytes_kept,
	       (unsigned long long)f.syscalls);
	T_CHECK(peak <= bound, "%llu bytes cached while writing", (unsigned long long)peak);
	T_CHECK(wt_cached(cfd, 0, 0) <= 2 * BATCH, "%llu bytes cached after finish",
		(unsigned long long)wt_cached(cfd, 0, 0));
	T_CHECK(f.bytes_dropped >= size - 2 * BATCH, "dropped %llu",
		(unsigned long long)f.bytes_dropped);
	T_CHECK(f.bytes_kept == 0, "kept %llu", (unsigned long long)f.bytes_kept);
	pcl_flusher_release(&f);
	T_CHECK(!fsync(fd), "fsync: %s", strerror(errno));
	close(fd);
	if (quiet)
		close(cfd);
	count_fd = -1;
	wt_check_file(path, size, 1);
	return 0;
}

/*
 * Batch 5 holds a page someone else dirtied, 64 KiB at 9 MiB are cached
 * (clean) before: after the writer overwrote the whole file both are still
 * cached, everything else it wrote is gone.
 */
static int test_foreign(const char *dir)
{
	uint64_t size = 16 * MIB, page = wt_page();
	struct pcl_flusher f;
	char path[600], x[100];
	int fd, other, lost;

	snprintf(path, sizeof(path), "%s/foreign", dir);
	unlink(path);			/* the previous try's */
	t_make_file(path, size, 3);
	t_evict(path);
	other = open(path, O_RDWR | O_CLOEXEC);
	T_CHECK(other >= 0, "open: %s", strerror(errno));
	T_CHECK(pread(other, x, sizeof(x), 9 * MIB) == sizeof(x), "warm");
	T_CHECK(posix_fadvise(other, 9 * MIB, 64 * 1024, POSIX_FADV_WILLNEED) == 0, "willneed");
	T_CHECK(pread(other, buf, 64 * 1024, 9 * MIB) == 64 * 1024, "warm");
	t_pattern_fill(x, 5 * MIB + 10, sizeof(x), 3);
	T_CHECK(pwrite(other, x, sizeof(x), 5 * MIB + 10) == sizeof(x), "dirty");
	T_CHECK(wt_dirty(other, 5 * MIB, BATCH) == page, "page not dirty");

	fd = open(path, O_RDWR | O_CLOEXEC);
	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	if (no_cachestat)
		t_refuse(T_REFUSE_CACHESTAT);
	T_CHECK(!pcl_flusher_init(&f, fd, -1, BATCH, 0), "init");
	T_CHECK(f.warm || no_cachestat, "file not seen as cached");
	T_CHECK(!write_through(&f, fd, 0, size, MIB, 4, NULL), "write");
	T_CHECK(!pcl_flusher_finish(&f), "finish");
	printf("foreign: dropped %llu, kept %llu; cached: batch 5 %llu, at 9 MiB %llu, rest %llu\n",
	       (unsigned long long)f.bytes_dropped, (unsigned long long)f.bytes_kept,
	       (unsigned long long)wt_cached(fd, 5 * MIB, BATCH),
	       (unsigned long long)wt_cached(fd, 9 * MIB, 64 * 1024),
	       (unsigned long long)(wt_cached(fd, 0, 5 * MIB) + wt_cached(fd, 6 * MIB, 3 * MIB)));
	/*
	 * Dirty at the snapshot: its whole batch is left alone.  Written back
	 * by the kernel in between (the machine is shared): a clean page cached
	 * before, kept alone.
	 */
	T_CHECK(wt_cached(fd, 5 * MIB, page) == page, "someone else's page dropped");
	T_CHECK(wt_cached(fd, 5 * MIB, BATCH) == BATCH || wt_cached(fd, 5 * MIB, BATCH) == page,
		"batch 5 half dropped");
	T_CHECK(wt_cached(fd, 0, 5 * MIB) == 0, "own batches left");
	T_CHECK(wt_cached(fd, 6 * MIB, 3 * MIB) == 0, "own batches left");
	/*
	 * The clean 64 KiB cached before, kept (and, without cachestat, their
	 * whole batch).  Reclaim (DAMON, docs/MACHINES.md) may take them behind the
	 * flusher's back, before its snapshot or after: the caller tries again.
	 */
	lost = wt_cached(fd, 9 * MIB, 64 * 1024) != 64 * 1024 ||
	       (no_cachestat && wt_cached(fd, 9 * MIB, BATCH) != BATCH) ||
	       f.bytes_kept < page + 64 * 1024;
	pcl_flusher_release(&f);
	T_CHECK(!fsync(fd), "fsync: %s", strerror(errno));
	close(fd);
	close(other);
	wt_check_file(path, size, 4);
	return lost ? T_WARM_LOST : 0;
}

static int child_foreign(void *dir)
{
	return test_foreign(dir);
}

/*
 * One try of test_foreign().  Without cachestat each try runs in a child of
 * its own: the refusal cannot be undone, and the setup counts dirty pages
 * with cachestat.
 */
static int foreign_try(void *dir)
{
	return no_cachestat ? t_in_child(child_foreign, dir) : test_foreign(dir);
}

/* test_foreign() until the pages cached before are kept. */
static int test_foreign_tries(const char *dir)
{
	int ret = t_warm_tries(foreign_try, (void *)dir);

	T_CHECK(ret != T_WARM_LOST, "pages cached before (at 9 MiB) dropped, three times");
	return ret;
}

/*
 * The device runs out of room under the file system: writeback fails.  The
 * flusher reports it, and the writer's own fsync still sees it.
 */
static int test_error(void)
{
	const char *dir = t_loopfs_make("xfs", 512 * MIB, 96 * MIB, NULL, NULL);
	struct pcl_flusher f;
	char path[600];
	int fd, err, ferr = 0, sync_err;

	snprintf(path, sizeof(path), "%s/err", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	T_CHECK(!pcl_flusher_init(&f, fd, -1, BATCH, 0), "init");
	err = write_through(&f, fd, 0, 128 * MIB, MIB, 5, NULL);
	if (!err)
		ferr = pcl_flusher_finish(&f);
	sync_err = fsync(fd) ? errno : 0;
	printf("error: flusher %s, finish %s, fsync %s\n", strerror(-err),
	       strerror(-ferr), strerror(sync_err));
	T_CHECK(err || ferr, "writeback error swallowed");
	T_CHECK(err == -EIO || err == -ENOSPC || ferr == -EIO || ferr == -ENOSPC,
		"unexpected error %d %d", err, ferr);
	T_CHECK(sync_err == EIO || sync_err == ENOSPC, "fsync did not see the error");
	pcl_flusher_finish(&f);	/* later batches may fail too: reported again */
	pcl_flusher_release(&f);
	close(fd);
	return 0;
}

static int child_seq(void *dir)
{
	return test_seq(dir, 0) || test_seq(dir, 1);
}


int main(int argc, char **argv)
{
	char dir[512];
	int ret;

	if (argc != 2)
		t_fail("usage: test-flusher seq|foreign|error|nocachestat");
	if (!strcmp(argv[1], "error"))
		return test_error();
	if (geteuid())
		t_skip("needs root for a loop device (sync_file_range on tmpfs does nothing)");
	t_tmpdir(dir, sizeof(dir), t_loopfs("xfs", 512ull * MIB));
	if (!strcmp(argv[1], "nocachestat")) {
		no_cachestat = 1;
		ret = t_in_child(child_seq, dir) || test_foreign_tries(dir);
	} else {
		ret = !strcmp(argv[1], "seq") ? test_seq(dir, 0) || test_seq(dir, 1) :
						test_foreign_tries(dir);
	}
	t_rmtree(dir);
	return ret;
}
