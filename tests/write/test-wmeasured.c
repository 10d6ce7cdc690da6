// SPDX-License-Identifier: MIT
/*
 * A write stream's "bytes dropped" is what left the page cache, as
 * cachestat(2) sees the file that holds the pages, not what was asked of
 * POSIX_FADV_DONTNEED.  On the file system named by argv[1]:
 *
 *   tmpfs    a tmpfs mounted for the test: nothing can be dropped, so 0, and
 *            the reason says the file system has no writeback
 *   overlay  overlayfs over the build folder's file system: the pages live
 *            in the upper file, counted there
 *   xfs, ext4  a loop device: the drops are real and counted
 *
 * A 64 MiB file is written fresh with the dropbehind strategy in 1 MiB
 * pieces; then written - cached(after) must equal bytes_dropped.  With
 * dontcache the kernel evicts what it wrote, so the stream's own count may
 * only be at most what left.  Reclaim (DAMON here) can
 * take pages behind the stream's back, which makes the difference larger
 * than what the stream dropped: such a run is tried again, three times;
 * a stream that counts what it asked for is wrong every time.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "wtest.h"

#define MIB (1ull << 20)
#define SIZE (64 * MIB)

static char top[512], merged[4200], upper_dir[4200], mnt[4200];
static int mounted_merged, mounted_tmpfs;

static void undo_mounts(void)
{
	if (mounted_merged)
		umount2(merged, MNT_DETACH);
	if (mounted_tmpfs)
		umount2(mnt, MNT_DETACH);
	mounted_merged = mounted_tmpfs = 0;
	if (top[0])
		t_rmtree(top);
	top[0] = 0;
}

static void on_signal(int sig)
{
	undo_mounts();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void guard(void)
{
	atexit(undo_mounts);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
}

/* Where the stream writes (*ret_dir) and where its pages live (*ret_real). */
static void setup(const char *what, const char **ret_dir, const char **ret_real)
{
	char lower[4300], work[4300], opts[16384];

	if (!strcmp(what, "xfs") || !strcmp(what, "ext4")) {
		t_tmpdir(top, sizeof(top), t_loopfs(what, 512 * MIB));
		*ret_dir = *ret_real = top;
		return;
	}
	if (geteuid())
		t_skip("mounting %s needs root", what);
	t_tmpdir(top, sizeof(top), t_workdir());
	guard();
	if (!strcmp(what, "tmpfs")) {
		snprintf(mnt, sizeof(mnt), "%s/mnt", top);
		T_CHECK(!mkdir(mnt, 0755), "mkdir %s", mnt);
		if (mount("tmpfs", mnt, "tmpfs", 0, "size=128m"))
			t_skip("cannot mount tmpfs: %s", strerror(errno));
		mounted_tmpfs = 1;
		*ret_dir = *ret_real = mnt;
		return;
	}
	if (strcmp(what, "overlay"))
		t_fail("usage: test-wmeasured tmpfs|overlay|xfs|ext4");
	snprintf(lower, sizeof(lower), "%s/lower", top);
	snprintf(upper_dir, sizeof(upper_dir), "%s/upper", top);
	snprintf(work, sizeof(work), "%s/work", top);
	snprintf(merged, sizeof(merged), "%s/merged", top);
	T_CHECK(!mkdir(lower, 0755) && !mkdir(upper_dir, 0755) && !mkdir(work, 0755) &&
		!mkdir(merged, 0755), "mkdir in %s", top);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", lower, upper_dir,
		 work);
	if (mount("overlay", merged, "overlay", 0, opts))
		t_skip("cannot mount overlayfs: %s", strerror(errno));
	mounted_merged = 1;
	*ret_dir = merged;
	*ret_real = upper_dir;
}

struct run {
	const char *dir, *real;
	enum pc_strategy st;
	int memory_fs;
};

/*
 * One run: write the file, close, count.  0 the count matches, T_WARM_LOST
 * the cache lost more than the stream dropped (reclaim: try again); fails
 * the test when the stream claims more than left.
 */
static int attempt(void *arg)
{
	const struct run *r = arg;
	const char *dir = r->dir, *real = r->real;
	enum pc_strategy st = r->st;
	int memory_fs = r->memory_fs;
	char path[4300], rpath[4300];
	struct pc_wstream *s;
	struct pc_wstats ws;
	uint64_t cached, left;
	char *buf = aligned_alloc(MIB, MIB);
	int fd;

	T_CHECK(buf, "no memory");
	snprintf(path, sizeof(path), "%s/f", dir);
	snprintf(rpath, sizeof(rpath), "%s/f", real);
	unlink(path);
	s = wt_open(path, O_WRONLY | O_CREAT | O_TRUNC, st);
	for (uint64_t off = 0; off < SIZE; off += MIB) {
		t_pattern_fill(buf, off, MIB, 7);
		T_CHECK(pc_wstream_write(s, buf, MIB) == (ssize_t)MIB, "write at %llu",
			(unsigned long long)off);
	}
	T_CHECK(!pc_wstream_close_stats(s, &ws), "close %s", path);
	fd = open(rpath, O_RDONLY);
	T_CHECK(fd >= 0, "open %s", rpath);
	cached = wt_cached(fd, 0, 0);
	close(fd);
	free(buf);
	left = SIZE - cached;
	printf("%s%s: %llu bytes written, %llu dropped by its count, %llu not cached after (%s)\n",
	       real == dir ? "" : "overlay upper: ", pc_strategy_name(ws.strategy),
	       (unsigned long long)SIZE, (unsigned long long)ws.bytes_dropped,
	       (unsigned long long)left, ws.reason);
	if (ws.bytes_dropped > left)
		t_fail("%s: the stream says %llu bytes dropped, only %llu left the cache",
		       pc_strategy_name(ws.strategy), (unsigned long long)ws.bytes_dropped,
		       (unsigned long long)left);
	if (memory_fs && !strstr(ws.reason, "no writeback"))
		t_fail("on tmpfs the reason does not say there is no writeback: '%s'", ws.reason);
	/* RWF_DONTCACHE writes are evicted by the kernel, not by the stream */
	if (ws.strategy == PC_DONTCACHE)
		return 0;
	return ws.bytes_dropped == left ? 0 : T_WARM_LOST;
}

int main(int argc, char **argv)
{
	static const enum pc_strategy strategies[] = { PC_DROPBEHIND, PC_DONTCACHE };
	const char *dir, *real;

	if (argc != 2)
		t_fail("usage: test-wmeasured tmpfs|overlay|xfs|ext4");
	setup(argv[1], &dir, &real);
	for (unsigned int i = 0; i < 2; i++) {
		struct run r = { dir, real, strategies[i], !strcmp(argv[1], "tmpfs") };

		if (t_warm_tries(attempt, &r))
			t_fail("%s: the count and the cache differ in 3 runs of 3",
			       pc_strategy_name(strategies[i]));
	}
	undo_mounts();
	printf("bytes dropped as cachestat sees them on %s\n", argv[1]);
	return 0;
}
