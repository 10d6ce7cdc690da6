// SPDX-License-Identifier: MIT
/*
 * The dropper driven as the preload shim drives it for `dd bs=4k`: a 4 KiB
 * read at a time, before() and advance() around each.  With two ranges
 * cached before, not batch-aligned, its own accounting must keep exactly
 * their pages and drop exactly the rest, and its fadvise calls must cover
 * no page of the ranges (counted right after, on a cold-page witness).
 * The dropper's decisions are checked, not only the cache; reclaim taking a
 * warm page before its snapshot shows as a short count, and is tried again.
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

/* Whether exactly the two ranges, @want bytes, are cached in five tries. */
static int warm_ranges(const char *path, int rfd, uint64_t want)
{
	for (int tries = 0; tries < 5; tries++) {
		t_evict(path);
		warm(rfd, 0, 4 * MIB);
		warm(rfd, 40 * MIB, 12 * MIB);
		if (t_cached(path) == want)
			return 1;
	}
	return 0;
}

/*
 * Drive a dropper over the whole file as the shim does.  Returns 0 when
 * its accounting kept exactly the warm ranges, 1 when pages were missing
 * from its count (reclaim took warm pages between the count and its
 * snapshots, or a range before its drop: a dropper that counts wrong does
 * so every time); fails outright on more kept than was cached.
 */
static int drive(const char *path, uint64_t warm_bytes)
{
	uint64_t page = sysconf(_SC_PAGESIZE), total = pcl_align_up(FILE_SIZE, page);
	struct pcl_dropper d;
	char buf[4096];
	int fd, lost;

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
	T_CHECK(d.bytes_kept <= warm_bytes, "kept %llu bytes, %llu were cached before",
		(unsigned long long)d.bytes_kept, (unsigned long long)warm_bytes);
	T_CHECK(d.bytes_dropped + d.bytes_kept <= total,
		"dropped %llu + kept %llu, the file has %llu",
		(unsigned long long)d.bytes_dropped, (unsigned long long)d.bytes_kept,
		(unsigned long long)total);
	T_CHECK(t_cached(path) <= warm_bytes, "%llu bytes cached after, %llu before",
		(unsigned long long)t_cached(path), (unsigned long long)warm_bytes);
	lost = d.bytes_kept != warm_bytes || d.bytes_dropped + d.bytes_kept != total;
	pcl_dropper_release(&d);
	close(fd);
	return lost;
}

struct run {
	const char *path;
	int rfd, tries;
};

/* One try: warm the ranges and drive; T_WARM_LOST when pages went missing. */
static int attempt(void *arg)
{
	const uint64_t warm_bytes = 16 * MIB;
	struct run *r = arg;

	if (!warm_ranges(r->path, r->rfd, warm_bytes)) {
		if (r->tries++ == 0)
			t_skip("could not warm exactly the two ranges in 5 tries (%llu bytes cached)",
			       (unsigned long long)t_cached(r->path));
		return T_WARM_LOST;
	}
	r->tries++;
	return drive(r->path, warm_bytes) ? T_WARM_LOST : 0;
}

int main(void)
{
	char dir[4096], path[4200];
	struct run r = { .path = path };

	t_tmpdir(dir, sizeof(dir), t_workdir());
	snprintf(path, sizeof(path), "%s/f", dir);
	t_make_file(path, FILE_SIZE, 11);
	r.rfd = open(path, O_RDONLY);
	T_CHECK(r.rfd >= 0 && !posix_fadvise(r.rfd, 0, 0, POSIX_FADV_RANDOM), "open");
	T_CHECK(t_warm_tries(attempt, &r) == 0,
		"three tries, each kept or dropped other than the warm ranges");
	close(r.rfd);
	t_rmtree(dir);
	printf("PASS\n");
	return T_EXIT_PASS;
}
