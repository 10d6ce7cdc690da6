// SPDX-License-Identifier: MIT
/*
 * engine/sys/cgroup.c: a pagecliff cgroup gets the limit asked for, holds the page
 * cache of a process put in it under that limit, and is gone after removal;
 * a cgroup whose maker died is found and removed as stale, one whose maker
 * lives (its pid not visible, as from another PID namespace) is left alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "helpers.h"

#define LIMIT (64ull << 20)

/* In a child: join @cg, then write and read 128 MiB so the cache hits the cap. */
static int fill_cache(const struct cgroup *cg, const char *dir)
{
	static char buf[1 << 20];
	char path[PATH_MAX + 16];
	int fd;

	if (cgroup_attach(cg, getpid()))
		return 3;
	snprintf(path, sizeof(path), "%s/fill", dir);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0)
		return 4;
	memset(buf, 0x5a, sizeof(buf));
	for (int i = 0; i < 128; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			return 5;
	fsync(fd);
	for (int i = 0; i < 128; i++)
		if (pread(fd, buf, sizeof(buf), (off_t)i << 20) != sizeof(buf))
			return 6;
	close(fd);
	return 0;
}

static void check_capped(void)
{
	struct cgroup_usage u;
	struct cgroup cg;
	char dir[PATH_MAX];
	struct stat st;
	int status, ret;
	pid_t pid;

	ret = cgroup_create(&cg, LIMIT, 0);
	T_CHECK(!ret, "cgroup_create: %s\n", strerror(-ret));
	T_CHECK(!cgroup_read(&cg, &u), "cgroup_read\n");
	T_CHECK(u.limit == LIMIT, "limit %llu, want %llu\n",
		(unsigned long long)u.limit, LIMIT);
	t_tmpdir(dir, sizeof(dir), "/var/tmp");
	pid = fork();
	if (!pid)
		_exit(fill_cache(&cg, dir));
	waitpid(pid, &status, 0);
	T_CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "child status %d\n", status);
	T_CHECK(!cgroup_read(&cg, &u), "cgroup_read after fill\n");
	printf("cgroup v%d %s: usage %llu, cache %llu, limit %llu\n", cg.version,
	       cg.path, (unsigned long long)u.usage, (unsigned long long)u.cache,
	       (unsigned long long)u.limit);
	T_CHECK(u.usage <= LIMIT, "usage %llu over the limit\n", (unsigned long long)u.usage);
	T_CHECK(u.cache > LIMIT / 4, "cache %llu: the child's pages were not charged\n",
		(unsigned long long)u.cache);
	T_CHECK(!cgroup_remove(&cg), "cgroup_remove\n");
	T_CHECK(stat(cg.path, &st) && errno == ENOENT, "%s still there\n", cg.path);
	t_rmtree(dir);
}

static void count_stale(const char *path, int result, void *arg)
{
	printf("stale %s: %s\n", path, result ? strerror(-result) : "removed");
	if (!result)
		++*(int *)arg;
}

/*
 * A cgroup whose creator died is stale; one named after a pid that does not
 * exist here but whose creator is alive (another PID namespace's run) is not:
 * its directory's lock is held.
 */
static void check_stale(void)
{
	struct cgroup cg, live;
	char path[PATH_MAX] = "";
	struct stat st;
	int removed = 0, ret, pipefd[2];
	pid_t dead, child;

	T_CHECK(!pipe(pipefd), "pipe\n");
	child = fork();
	if (!child) {
		/* made, then its maker dies without removing it */
		if (cgroup_create(&cg, LIMIT, 0) ||
		    write(pipefd[1], cg.path, strlen(cg.path)) <= 0)
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	T_CHECK(read(pipefd[0], path, sizeof(path) - 1) > 0, "child made no cgroup\n");
	close(pipefd[0]);
	waitpid(child, NULL, 0);
	dead = fork();
	if (!dead)
		_exit(0);
	waitpid(dead, NULL, 0);
	ret = cgroup_create(&live, LIMIT, dead);
	T_CHECK(!ret, "cgroup_create for pid %d: %s\n", dead, strerror(-ret));
	ret = cgroup_remove_stale(count_stale, &removed);
	T_CHECK(ret >= 1 && removed >= 1, "found %d, removed %d\n", ret, removed);
	T_CHECK(stat(path, &st) && errno == ENOENT, "%s survived the sweep\n", path);
	T_CHECK(!stat(live.path, &st), "%s of a live holder was removed: %s\n", live.path,
		strerror(errno));
	T_CHECK(!cgroup_remove(&live), "cgroup_remove\n");
	T_CHECK(stat(live.path, &st) && errno == ENOENT, "%s still there\n", live.path);
}

int main(void)
{
	int version;

	if (geteuid())
		t_skip("cgroups need root");
	if (cgroup_detect(&version, NULL))
		t_skip("no memory cgroup controller");
	check_capped();
	check_stale();
	printf("PASS\n");
	return T_EXIT_PASS;
}
