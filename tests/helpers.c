// SPDX-License-Identifier: MIT
/*
 * Shared test helpers; see helpers.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "internal.h"

noreturn void t_skip(const char *fmt, ...)
{
	va_list ap;

	fputs("SKIP: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(T_EXIT_SKIP);
}

noreturn void t_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(T_EXIT_FAIL);
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint8_t t_pattern_byte(uint64_t off, uint32_t seed)
{
	return mix64((off >> 3) ^ ((uint64_t)seed << 40)) >> ((off & 7) * 8);
}

void t_pattern_fill(void *buf, uint64_t off, size_t len, uint32_t seed)
{
	uint8_t *p = buf;
	size_t i = 0;

	for (; i < len && ((off + i) & 7); i++)
		p[i] = t_pattern_byte(off + i, seed);
	for (; i + 8 <= len; i += 8) {
		uint64_t w = mix64(((off + i) >> 3) ^ ((uint64_t)seed << 40));

		memcpy(p + i, &w, 8);	/* little-endian, as t_pattern_byte */
	}
	for (; i < len; i++)
		p[i] = t_pattern_byte(off + i, seed);
}

int64_t t_pattern_check(const void *buf, uint64_t off, size_t len, uint32_t seed)
{
	const uint8_t *p = buf;
	uint8_t tmp[4096];

	for (size_t done = 0; done < len; done += sizeof(tmp)) {
		size_t n = len - done < sizeof(tmp) ? len - done : sizeof(tmp);

		t_pattern_fill(tmp, off + done, n, seed);
		if (memcmp(tmp, p + done, n)) {
			for (size_t i = 0; i < n; i++)
				if (tmp[i] != p[done + i])
					return off + done + i;
		}
	}
	return -1;
}

void t_make_file(const char *path, uint64_t size, uint32_t seed)
{
	size_t bufsize = 1 << 20;
	char *buf = malloc(bufsize);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0 || !buf)
		t_fail("cannot create '%s': %s", path, strerror(errno));
	for (uint64_t off = 0; off < size; off += bufsize) {
		size_t n = size - off < bufsize ? size - off : bufsize;

		t_pattern_fill(buf, off, n, seed);
		if (pwrite(fd, buf, n, off) != (ssize_t)n)
			t_fail("cannot write '%s': %s", path, strerror(errno));
	}
	if (fsync(fd) < 0 || close(fd) < 0)
		t_fail("cannot sync '%s': %s", path, strerror(errno));
	free(buf);
}

void t_evict(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		t_fail("cannot open '%s': %s", path, strerror(errno));
	fdatasync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
}

/*
 * The residency of @path as pc_cached_bytes() tells it (cachestat, or
 * mincore where cachestat cannot see), through lib/residency.c alone: the shim's
 * tests link these helpers with the shim's copy of it, not libpagecliff.
 */
uint64_t t_cached(const char *path)
{
	struct pcl_residency r;
	struct pcl_cachestat cs;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		t_fail("cannot open '%s': %s", path, strerror(errno));
	pcl_residency_init(&r, fd);
	ret = pcl_residency_count(&r, fd, 0, 0, &cs);
	close(fd);
	if (ret)
		t_fail("cannot count cached pages of '%s': %s", path, strerror(-ret));
	return cs.nr_cache * r.page;
}

uint64_t t_dirty(const char *path)
{
	struct pcl_cachestat cs;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		t_fail("cannot open '%s': %s", path, strerror(errno));
	ret = pcl_cachestat(fd, 0, 0, &cs);
	close(fd);
	if (ret)
		t_skip("cachestat of '%s': %s", path, strerror(-ret));
	return (cs.nr_dirty + cs.nr_writeback) * pcl_page_size();
}

int t_warm_tries(int (*attempt)(void *), void *arg)
{
	int ret;

	for (int tries = 1;; tries++) {
		ret = attempt(arg);
		if (ret != T_WARM_LOST || tries == T_WARM_TRIES)
			return ret;
		printf("warm pages taken by reclaim (try %d of %d): again\n",
		       tries, T_WARM_TRIES);
		fflush(stdout);
	}
}

const char *t_workdir(void)
{
	const char *d = getenv("PAGECLIFF_BUILDDIR");

	if (!d || !*d)
		d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

int t_quick(void)
{
	const char *q = getenv("PAGECLIFF_TEST_QUICK");

	return q && !strcmp(q, "1");
}

/* The folder of t_tmpdir(), removed at exit when a check fails, by the
 * process that made it (not by a child that fails a check in it). */
static char tmpdir_path[4096];
static pid_t tmpdir_owner;

static void tmpdir_remove(void)
{
	if (tmpdir_path[0] && getpid() == tmpdir_owner)
		t_rmtree(tmpdir_path);
}

void t_tmpdir(char *buf, size_t size, const char *base)
{
	snprintf(buf, size, "%s/pagecliff-test-XXXXXX", base);
	if (!mkdtemp(buf))
		t_fail("cannot make a folder in '%s': %s", base, strerror(errno));
	if (!tmpdir_path[0]) {
		snprintf(tmpdir_path, sizeof(tmpdir_path), "%s", buf);
		tmpdir_owner = getpid();
		atexit(tmpdir_remove);
	}
}

int t_shimmed(void)
{
	const char *c = getenv("PAGECLIFF_TEST_SHIMMED");

	return c && !strcmp(c, "1");
}

void t_reexec_with_shim(char **argv)
{
	const char *so = getenv("PAGECLIFF_PRELOAD_SO");

	if (!so || access(so, R_OK))
		t_skip("PAGECLIFF_PRELOAD_SO does not name the shim");
	tmpdir_remove();	/* exec skips atexit */
	tmpdir_path[0] = 0;
	setenv("LD_PRELOAD", so, 1);
	setenv("PAGECLIFF_TEST_SHIMMED", "1", 1);
	fflush(NULL);
	execv("/proc/self/exe", argv);
	t_fail("cannot run again with the shim: %s", strerror(errno));
}

const char *t_testdir(void)
{
	static char dir[4096];

	if (!dir[0])
		t_tmpdir(dir, sizeof(dir), t_workdir());
	return dir;
}

static int run_cmd(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

void t_rmtree(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", dir);
	run_cmd(cmd);
	if (!strcmp(dir, tmpdir_path))
		tmpdir_path[0] = 0;
}

/* The one loop file system of this process, torn down at exit by the
 * process that made it (not by a forked child that exits). */
static struct {
	char top[256];		/* the tmpfs the image lives in, or "" */
	char img[300];
	char dev[64];
	char mnt[300];
	int tmpfs_mounted, mounted;
	pid_t owner;
} loopfs;

static void umount_path(const char *path)
{
	char cmd[700];

	/* Lazily when a failed check left a file open. */
	snprintf(cmd, sizeof(cmd), "umount '%s' 2>/dev/null || umount -l '%s'", path, path);
	run_cmd(cmd);
}

void t_loopfs_teardown(void)
{
	char cmd[128];

	if (loopfs.owner != getpid())
		return;
	if (loopfs.mounted)
		umount_path(loopfs.mnt);
	if (loopfs.mnt[0])
		rmdir(loopfs.mnt);
	if (loopfs.dev[0]) {
		snprintf(cmd, sizeof(cmd), "losetup -d '%s' 2>/dev/null", loopfs.dev);
		run_cmd(cmd);
	}
	if (loopfs.img[0])
		unlink(loopfs.img);
	if (loopfs.tmpfs_mounted)
		umount_path(loopfs.top);
	if (loopfs.top[0])
		rmdir(loopfs.top);
	memset(&loopfs, 0, sizeof(loopfs));
}

static void loopfs_signal(int sig)
{
	t_loopfs_teardown();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The image: in /tmp, or alone in a tmpfs of @room bytes. */
static void loopfs_image(uint64_t size, uint64_t room)
{
	char cmd[600];
	int fd;

	if (room) {
		snprintf(loopfs.top, sizeof(loopfs.top), "/tmp/pagecliff-thin-XXXXXX");
		if (!mkdtemp(loopfs.top))
			t_fail("cannot make a folder: %s", strerror(errno));
		snprintf(cmd, sizeof(cmd), "mount -t tmpfs -o size=%llu tmpfs '%s'",
			 (unsigned long long)room, loopfs.top);
		if (run_cmd(cmd))
			t_skip("cannot mount a tmpfs");
		loopfs.tmpfs_mounted = 1;
		snprintf(loopfs.img, sizeof(loopfs.img), "%s/img", loopfs.top);
		fd = open(loopfs.img, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	} else {
		snprintf(loopfs.img, sizeof(loopfs.img), "/tmp/pagecliff-test-img-XXXXXX");
		fd = mkstemp(loopfs.img);
	}
	if (fd < 0 || ftruncate(fd, size) < 0)
		t_fail("cannot make an image file: %s", strerror(errno));
	close(fd);
}

static void loopfs_attach(void)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "losetup -f --show '%s'", loopfs.img);
	p = popen(cmd, "r");
	if (!p || !fgets(loopfs.dev, sizeof(loopfs.dev), p))
		t_skip("cannot attach a loop device (losetup)");
	pclose(p);
	loopfs.dev[strcspn(loopfs.dev, "\n")] = 0;
}

const char *t_loopfs_make(const char *fstype, uint64_t size, uint64_t room,
			  const char *mkfs_options, const char *options)
{
	char cmd[1024];

	if (geteuid())
		t_skip("needs root for a loop device and a mount");
	snprintf(cmd, sizeof(cmd), "command -v mkfs.%s >/dev/null", fstype);
	if (run_cmd(cmd))
		t_skip("mkfs.%s is not installed", fstype);
	loopfs.owner = getpid();
	atexit(t_loopfs_teardown);
	signal(SIGINT, loopfs_signal);
	signal(SIGTERM, loopfs_signal);
	loopfs_image(size, room);
	loopfs_attach();
	snprintf(cmd, sizeof(cmd), "mkfs.%s -q %s %s '%s' >/dev/null 2>&1", fstype,
		 strcmp(fstype, "xfs") && strcmp(fstype, "btrfs") ? "-F" : "-f",
		 mkfs_options ? mkfs_options : "",
		 loopfs.dev);
	if (run_cmd(cmd))
		t_fail("mkfs.%s on %s failed", fstype, loopfs.dev);
	snprintf(loopfs.mnt, sizeof(loopfs.mnt), "/tmp/pagecliff-test-mnt-XXXXXX");
	if (!mkdtemp(loopfs.mnt))
		t_fail("cannot make a mount point: %s", strerror(errno));
	snprintf(cmd, sizeof(cmd), "mount -t %s -o '%s' '%s' '%s' 2>/dev/null", fstype,
		 options ? options : "defaults", loopfs.dev, loopfs.mnt);
	if (run_cmd(cmd)) {
		if (!options)
			t_fail("cannot mount %s on %s", loopfs.dev, loopfs.mnt);
		t_loopfs_teardown();
		return NULL;	/* the options are not supported here */
	}
	loopfs.mounted = 1;
	return loopfs.mnt;
}

const char *t_loopfs(const char *fstype, uint64_t size)
{
	return t_loopfs_make(fstype, size, 0, NULL, NULL);
}

const char *t_loopfs_dev(void)
{
	return loopfs.dev;
}

#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x00000080
#endif

#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LOAD_ARG(n) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[n]))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define ERRNO(e) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))

/*
 * Refuse syscall @nr when (args[@arg] & @mask) is non-zero (mask 0: always),
 * with @err.  Flags live in the low 32 bits of the argument.
 */
static void refuse(int nr, int arg, uint32_t mask, int err)
{
	struct sock_filter always[] = {
		LOAD_NR,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		ERRNO(err),
		ALLOW,
	};
	struct sock_filter masked[] = {
		LOAD_NR,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 3),
		LOAD_ARG(arg),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, mask, 0, 1),
		ERRNO(err),
		ALLOW,
	};
	struct sock_fprog prog;

	if (mask) {
		prog.len = sizeof(masked) / sizeof(masked[0]);
		prog.filter = masked;
	} else {
		prog.len = sizeof(always) / sizeof(always[0]);
		prog.filter = always;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		t_skip("seccomp filters are not available: %s", strerror(errno));
}

void t_refuse(enum t_refuse what)
{
	switch (what) {
	case T_REFUSE_URING:
		refuse(SYS_io_uring_setup, 0, 0, ENOSYS);
		break;
	case T_REFUSE_DONTCACHE:
		refuse(SYS_preadv2, 5, RWF_DONTCACHE, EOPNOTSUPP);
		break;
	case T_REFUSE_DIRECT:
		refuse(SYS_openat, 2, O_DIRECT, EINVAL);
		refuse(SYS_open, 1, O_DIRECT, EINVAL);
		break;
	case T_REFUSE_CACHESTAT:
		refuse(451, 0, 0, ENOSYS);	/* __NR_cachestat, every architecture */
		break;
	}
}

int t_in_child(int (*fn)(void *), void *arg)
{
	pid_t pid;
	int st;

	fflush(NULL);		/* nothing buffered is written twice */
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (!pid) {
		st = fn(arg);
		fflush(NULL);
		t_loopfs_teardown();	/* one the child made itself */
		_exit(st);
	}
	if (waitpid(pid, &st, 0) < 0)
		t_fail("waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
