// SPDX-License-Identifier: MIT
/*
 * The dropper driven as the preload shim drives it for `dd bs=4k`: a 4 KiB
 * read at a time, before() and advance() around each.  With two ranges
 * cached before, not batch-aligned, its own accounting must keep exactly
 * their pages and drop exactly the rest, and its fadvise calls must cover
 * no page of the ranges (counted right after, on a cold-page witness).
 * Unlike test-shim-keep.sh this does not depend on nothing else evicting
 * the warm pages: the dropper's decisions are checked, not only the cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "dropper.h"
#include "helpers.h"

#define MIB (1ull << 20)
#define FILE_SIZE (96 * MIB + 5)

/* Read [off, off + len) with readahead off, so exactly it is cached. */
static void warm(int fd, uint64_t off, uint64_t len)
{
	char buf[65536];

	for (uint64_t o = off; o < off + len; o += sizeof(buf))
		T_CHECK(pread(fd, buf, sizeof(buf), o) == sizeof(buf), "warm");
}

int main(void)
{
	uint64_t page = sysconf(_SC_PAGESIZE), warm_bytes, before;
	struct pc_dropper d;
	char dir[4096], path[4200], buf[4096];
	int fd, rfd;

	t_tmpdir(dir, sizeof(dir), t_workdir());
	snprintf(path, sizeof(path), "%s/f", dir);
	t_make_file(path, FILE_SIZE, 11);
	rfd = open(path, O_RDONLY);
	T_CHECK(rfd >= 0 && !posix_fadvise(rfd, 0, 0, POSIX_FADV_RANDOM), "open");
	warm_bytes = 16 * MIB;
	/* reclaim on a busy machine may take a warm page meanwhile: try again */
	for (int tries = 0; tries < 5; tries++) {
		t_evict(path);
		warm(rfd, 0, 4 * MIB);
		warm(rfd, 40 * MIB, 12 * MIB);
		before = t_cached(path);
		if (before == warm_bytes)
			break;
	}
	if (before != warm_bytes)
		t_skip("could not warm exactly the two ranges in 5 tries (%llu bytes cached)",
		       (unsigned long long)before);
	fd = open(path, O_RDONLY);
	T_CHECK(fd >= 0, "open");
	T_CHECK(!pcl_dropper_init(&d, fd, 8 * MIB, 0), "dropper init");
	for (uint64_t off = 0; off < FILE_SIZE; off += sizeof(buf)) {
		ssize_t n;

		pcl_dropper_before(&d, fd, off, sizeof(buf));
		n = pread(fd, buf, sizeof(buf), off);
		T_CHECK(n > 0, "read at %llu", (unsigned long long)off);
		pcl_dropper_advance(&d, fd, off + n, 0);
	}
	pcl_dropper_advance(&d, fd, FILE_SIZE, 1);
	printf("kept %llu, dropped %llu, unknown %llu, %llu syscalls; %llu cached after\n",
	       (unsigned long long)d.bytes_kept, (unsigned long long)d.bytes_dropped,
	       (unsigned long long)d.bytes_unknown, (unsigned long long)d.syscalls,
	       (unsigned long long)t_cached(path));
	T_CHECK(d.bytes_kept == warm_bytes, "kept %llu bytes, %llu were cached before",
		(unsigned long long)d.bytes_kept, (unsigned long long)warm_bytes);
	T_CHECK(d.bytes_dropped + d.bytes_kept == pc_align_up(FILE_SIZE, page),
		"dropped %llu + kept %llu, the file has %llu",
		(unsigned long long)d.bytes_dropped, (unsigned long long)d.bytes_kept,
		(unsigned long long)pc_align_up(FILE_SIZE, page));
	T_CHECK(t_cached(path) <= warm_bytes, "%llu bytes cached after, %llu before",
		(unsigned long long)t_cached(path), (unsigned long long)warm_bytes);
	pcl_dropper_release(&d);
	close(fd);
	close(rfd);
	t_rmtree(dir);
	printf("PASS\n");
	return T_EXIT_PASS;
}
