// SPDX-License-Identifier: MIT
/*
 * Helpers of the write tests (wtest.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "internal.h"
#include "wtest.h"

static struct {
	char top[256];		/* tmpfs mount point; the image lives here */
	char mnt[300];		/* the file system on the loop device */
	char dev[64];
	int tmpfs_mounted, mounted;
	pid_t owner;		/* the process that made it undoes it */
} thin;

static int sh(const char *cmd)
{
	int st = system(cmd);

	return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

void wt_teardown(void)
{
	char cmd[1024];

	if (thin.owner != getpid())
		return;
	if (thin.mounted) {
		snprintf(cmd, sizeof(cmd), "umount '%s' 2>/dev/null || umount -l '%s'",
			 thin.mnt, thin.mnt);
		sh(cmd);
		thin.mounted = 0;
	}
	if (thin.mnt[0])
		rmdir(thin.mnt);
	thin.mnt[0] = 0;
	if (thin.dev[0]) {
		snprintf(cmd, sizeof(cmd), "losetup -d '%s' 2>/dev/null", thin.dev);
		sh(cmd);
		thin.dev[0] = 0;
	}
	if (thin.tmpfs_mounted) {
		snprintf(cmd, sizeof(cmd), "umount '%s' 2>/dev/null || umount -l '%s'",
			 thin.top, thin.top);
		sh(cmd);
		thin.tmpfs_mounted = 0;
	}
	if (thin.top[0])
		rmdir(thin.top);
	thin.top[0] = 0;
}

static void thin_signal(int sig)
{
	wt_teardown();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void thin_attach(uint64_t size)
{
	char cmd[600];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "truncate -s %llu '%s/img' && losetup -f --show '%s/img'",
		 (unsigned long long)size, thin.top, thin.top);
	p = popen(cmd, "r");
	if (!p || !fgets(thin.dev, sizeof(thin.dev), p))
		t_skip("cannot attach a loop device (losetup)");
	pclose(p);
	thin.dev[strcspn(thin.dev, "\n")] = 0;
}

static const char *thin_make(const char *fstype, uint64_t size, uint64_t room,
			     const char *mkfs_options, const char *options)
{
	char cmd[1024];

	if (geteuid())
		t_skip("needs root for tmpfs, a loop device and a mount");
	snprintf(cmd, sizeof(cmd), "command -v mkfs.%s >/dev/null", fstype);
	if (sh(cmd))
		t_skip("mkfs.%s is not installed", fstype);
	thin.owner = getpid();
	atexit(wt_teardown);
	signal(SIGINT, thin_signal);
	signal(SIGTERM, thin_signal);
	snprintf(thin.top, sizeof(thin.top), "/tmp/pagecliff-thin-XXXXXX");
	if (!mkdtemp(thin.top))
		t_fail("cannot make a folder: %s", strerror(errno));
	snprintf(cmd, sizeof(cmd), "mount -t tmpfs -o size=%llu tmpfs '%s'",
		 (unsigned long long)room, thin.top);
	if (sh(cmd))
		t_skip("cannot mount a tmpfs");
	thin.tmpfs_mounted = 1;
	thin_attach(size);
	snprintf(cmd, sizeof(cmd), "mkfs.%s -q %s %s '%s' >/dev/null 2>&1", fstype,
		 strcmp(fstype, "xfs") ? "-F" : "-f", mkfs_options ? mkfs_options : "",
		 thin.dev);
	if (sh(cmd))
		t_fail("mkfs.%s on %s failed", fstype, thin.dev);
	snprintf(thin.mnt, sizeof(thin.mnt), "%s-mnt", thin.top);
	if (mkdir(thin.mnt, 0700))
		t_fail("cannot make a mount point: %s", strerror(errno));
	snprintf(cmd, sizeof(cmd), "mount -t %s -o '%s' '%s' '%s' 2>/dev/null", fstype,
		 options ? options : "defaults", thin.dev, thin.mnt);
	if (sh(cmd)) {
		if (!options)
			t_fail("cannot mount %s on %s", thin.dev, thin.mnt);
		wt_teardown();
		return NULL;	/* the options are not supported here */
	}
	thin.mounted = 1;
	return thin.mnt;
}

uint64_t wt_page(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

static struct pcl_cachestat cstat(int fd, uint64_t off, uint64_t len)
{
	struct pcl_cachestat cs;
	int ret = pcl_cachestat(fd, off, len, &cs);

	if (ret)
		t_fail("cachestat: %s", strerror(-ret));
	return cs;
}

uint64_t wt_cached(int fd, uint64_t off, uint64_t len)
{
	uint64_t bytes;
	int ret = pc_cached_bytes(fd, off, len, &bytes);

	if (ret)
		t_fail("cannot count cached pages: %s", strerror(-ret));
	return bytes;
}

uint64_t wt_dirty(int fd, uint64_t off, uint64_t len)
{
	struct pcl_cachestat cs = cstat(fd, off, len);

	return (cs.nr_dirty + cs.nr_writeback) * wt_page();
}

void wt_check_file(const char *path, uint64_t size, uint32_t seed)
{
	static char buf[1 << 20];
	uint64_t off = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		t_fail("cannot open '%s': %s", path, strerror(errno));
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		int64_t bad = t_pattern_check(buf, off, n, seed);

		if (bad >= 0)
			t_fail("'%s': byte %lld differs", path, (long long)bad);
		off += n;
	}
	if (n < 0)
		t_fail("cannot read '%s': %s", path, strerror(errno));
	close(fd);
	if (off != size)
		t_fail("'%s' has %llu bytes, expected %llu", path,
		       (unsigned long long)off, (unsigned long long)size);
}

const char *wt_thinfs(const char *fstype, uint64_t size, uint64_t room)
{
	return thin_make(fstype, size, room, NULL, NULL);
}

const char *wt_mountfs(const char *fstype, uint64_t size, const char *mkfs_options,
		       const char *options)
{
	return thin_make(fstype, size, size + (64u << 20), mkfs_options, options);
}

const char *wt_dev(void)
{
	return thin.dev;
}

int wt_in_child(int (*fn)(void *), void *arg)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (!pid) {
		st = fn(arg);
		fflush(NULL);
		wt_teardown();
		_exit(st);
	}
	if (waitpid(pid, &st, 0) < 0)
		t_fail("waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
