// SPDX-License-Identifier: MIT
/*
 * auto for writes counts what is cached as the read side does, through the
 * probe: on overlayfs (every container) the pages live in the real upper
 * file and the overlay file's own mapping is empty, so a raw cachestat(2) of
 * the stream's fd counts nothing and auto would pick direct, whose writes
 * make the kernel invalidate the cached pages under them.
 *
 * A 16 MiB file in the upper layer with 4 MiB of it cached is written
 * whole through the overlay with auto: opened read-write, write-only (as
 * cp opens its target), and write-only by `nobody` (a root-owned 0666
 * file).  Each time auto must say what is cached and not pick direct, the
 * cached range must still be cached after close (counted on the upper
 * file) and the file must hold the new bytes.  Reclaim (DAMON) may take
 * warm pages before the stream opens, when direct is right: three tries.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
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
#define SIZE (16 * MIB)
#define HOT_OFF (4 * MIB)
#define HOT_LEN (4 * MIB)

static char top[4096], merged[4200];
static int mounted;

static void undo_mount(void)
{
	if (mounted && !umount2(merged, MNT_DETACH))
		mounted = 0;
}

static void on_signal(int sig)
{
	undo_mount();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void mount_overlay(char *upper_file, size_t size)
{
	char lower[4200], upper[4200], work[4200], opts[16384];

	snprintf(lower, sizeof(lower), "%s/lower", top);
	snprintf(upper, sizeof(upper), "%s/upper", top);
	snprintf(work, sizeof(work), "%s/work", top);
	snprintf(merged, sizeof(merged), "%s/merged", top);
	T_CHECK(!mkdir(lower, 0755) && !mkdir(upper, 0755) && !mkdir(work, 0755) &&
		!mkdir(merged, 0755), "mkdir in %s", top);
	snprintf(upper_file, size, "%s/data", upper);
	t_make_file(upper_file, SIZE, 1);
	T_CHECK(!chmod(upper_file, 0666), "chmod %s", upper_file);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", lower, upper, work);
	atexit(undo_mount);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (mount("overlay", merged, "overlay", 0, opts))
		t_skip("cannot mount overlayfs: %s", strerror(errno));
	mounted = 1;
}

/* Read [@off, @off + @len) of @path into the cache, without readahead. */
static void warm(const char *path, uint64_t off, uint64_t len)
{
	char *buf = malloc(MIB);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	T_CHECK(fd >= 0 && buf, "open %s", path);
	T_CHECK(!posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), "fadvise %s", path);
	for (uint64_t o = off; o < off + len; o += MIB)
		T_CHECK(pread(fd, buf, MIB, o) == (ssize_t)MIB, "warm %s", path);
	close(fd);
	free(buf);
}

static uint64_t cached(const char *path, uint64_t off, uint64_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t bytes;

	T_CHECK(fd >= 0, "open %s", path);
	bytes = wt_cached(fd, off, len);
	close(fd);
	return bytes;
}

struct job {
	const char *path;	/* through the overlay */
	int flags;
	uint32_t seed;
	uid_t uid;		/* 0: stay root */
	gid_t gid;
};

/* Write the whole file with auto; exit 0, or 3 when auto chose direct. */
static int write_all(void *arg)
{
	const struct job *j = arg;
	char *buf = aligned_alloc(MIB, MIB);
	struct pc_wstream *s;
	struct pc_wstats st;

	T_CHECK(buf, "no memory");
	if (j->uid) {
		T_CHECK(!setgroups(0, NULL) && !setresgid(j->gid, j->gid, j->gid) &&
			!setresuid(j->uid, j->uid, j->uid), "become %u: %s",
			(unsigned int)j->uid, strerror(errno));
	}
	s = wt_open(j->path, j->flags, PC_AUTO);
	for (uint64_t off = 0; off < SIZE; off += MIB) {
		t_pattern_fill(buf, off, MIB, j->seed);
		T_CHECK(pc_wstream_write(s, buf, MIB) == (ssize_t)MIB, "write at %llu",
			(unsigned long long)off);
	}
	T_CHECK(!pc_wstream_close_stats(s, &st), "close %s", j->path);
	free(buf);
	printf("  auto chose %s: %s\n", pc_strategy_name(st.strategy), st.reason);
	if (st.strategy == PC_DIRECT)
		return 3;
	T_CHECK(strstr(st.reason, "KiB of the file are cached"),
		"auto did not say what is cached: %s", st.reason);
	return 0;
}

/* One try: warm the range, write the file with auto, see what stayed. */
struct wauto_try {
	const char *what;
	struct job *j;
	const char *upper_file;
	uint64_t hot;
	int rc, n;
};

static int wauto_attempt(void *arg)
{
	struct wauto_try *t = arg;

	t_evict(t->upper_file);
	warm(t->upper_file, HOT_OFF, HOT_LEN);
	t->j->seed++;
	t->rc = t_in_child(write_all, t->j);
	T_CHECK(t->rc == 0 || t->rc == 3, "%s: the writer exited %d", t->what, t->rc);
	t->hot = cached(t->upper_file, HOT_OFF, HOT_LEN);
	printf("%s, try %d: %llu of %llu KiB cached before kept\n", t->what, ++t->n,
	       (unsigned long long)(t->hot >> 10), (unsigned long long)(HOT_LEN >> 10));
	wt_check_file(t->upper_file, SIZE, t->j->seed);
	return t->rc == 0 && t->hot == HOT_LEN ? 0 : T_WARM_LOST;
}

static void check(const char *what, struct job *j, const char *upper_file)
{
	struct wauto_try t = { .what = what, .j = j, .upper_file = upper_file, .rc = 3 };

	t_warm_tries(wauto_attempt, &t);
	T_CHECK(t.rc == 0, "%s: auto chose direct for a file with %llu KiB cached", what,
		(unsigned long long)(HOT_LEN >> 10));
	T_CHECK(t.hot == HOT_LEN, "%s: %llu KiB of the range cached before were dropped",
		what, (unsigned long long)((HOT_LEN - t.hot) >> 10));
}

int main(void)
{
	char upper_file[4300], over[4300];
	struct passwd *pw;
	struct job j;

	if (geteuid() != 0)
		t_skip("needs root to mount an overlay");
	pw = getpwnam("nobody");
	if (!pw)
		t_skip("no user 'nobody'");
	t_tmpdir(top, sizeof(top), t_workdir());
	T_CHECK(!chmod(top, 0755), "chmod %s", top);
	mount_overlay(upper_file, sizeof(upper_file));
	snprintf(over, sizeof(over), "%s/data", merged);

	j = (struct job){ .path = over, .flags = O_RDWR, .seed = 10 };
	check("read-write", &j, upper_file);
	j.flags = O_WRONLY;
	check("write-only", &j, upper_file);
	j.uid = pw->pw_uid;
	j.gid = pw->pw_gid;
	check("nobody, write-only", &j, upper_file);

	undo_mount();
	T_CHECK(!mounted, "cannot unmount %s", merged);
	t_rmtree(top);
	printf("PASS\n");
	return T_EXIT_PASS;
}
