// SPDX-License-Identifier: MIT
/*
 * The watcher's readers of /proc and its pidfd calls: descriptors and their
 * positions, children, cgroup members.  Every reader returns 0 or -errno.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "readfile.h"
#include "procstat.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

int pco_pidfd_open(pid_t pid)
{
	long fd = syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : (int)fd;
}

int pco_pidfd_getfd(int pidfd, int fd)
{
	long ret = syscall(SYS_pidfd_getfd, pidfd, fd, 0);

	return ret < 0 ? -errno : (int)ret;
}

/* A pidfd polls readable once its process has exited (a zombie included). */
int pco_pidfd_alive(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) != 0 ? -ESRCH : 0;
}

/* The fields of one fdinfo text. */
static int parse_fdinfo(char *buf, struct pco_fdinfo *ret)
{
	struct pco_fdinfo fi = { 0 };
	int got = 0;
	char *p;

	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, "pos:", 4))
			got |= sscanf(p + 4, "%" SCNu64, &fi.pos) == 1;
		else if (!strncmp(p, "flags:", 6))
			got |= (sscanf(p + 6, "%o", &fi.flags) == 1) << 1;
		else if (!strncmp(p, "mnt_id:", 7))
			got |= (sscanf(p + 7, "%" SCNu64, &fi.mnt_id) == 1) << 2;
		else if (!strncmp(p, "ino:", 4))
			got |= (sscanf(p + 4, "%" SCNu64, &fi.ino) == 1) << 3;
	}
	if ((got & 7) != 7)
		return -EPROTO;
	*ret = fi;
	return 0;
}

int pco_fdinfo_read(pid_t pid, int fd, struct pco_fdinfo *ret)
{
	char path[64], buf[1024];
	int n;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
	n = pcc_read_small(path, buf, sizeof(buf));
	return n < 0 ? n : parse_fdinfo(buf, ret);
}

int pco_fdinfo_open(pid_t pid, int fd)
{
	char path[64];
	int info;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
	info = open(path, O_RDONLY | O_CLOEXEC);
	return info < 0 ? -errno : info;
}

int pco_fdinfo_pread(int info, struct pco_fdinfo *ret)
{
	char buf[1024];
	ssize_t n = pread(info, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = 0;
	return parse_fdinfo(buf, ret);
}

int pco_fds(pid_t pid, int *fds, int max)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max)
		if (isdigit((unsigned char)de->d_name[0]))
			fds[n++] = atoi(de->d_name);
	closedir(d);
	return n;
}

int pco_fds_open(pid_t pid)
{
	char path[64];
	int dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return dir < 0 ? -errno : dir;
}

int pco_fds_at(int dir, int *fds, int max)
{
	char buf[8192];
	ssize_t len;
	int n = 0;

	if (lseek(dir, 0, SEEK_SET) < 0)
		return -errno;
	while ((len = getdents64(dir, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < len;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);

			if (isdigit((unsigned char)de->d_name[0]) && n < max)
				fds[n++] = atoi(de->d_name);
			off += de->d_reclen;
		}
	}
	return len < 0 ? -errno : n;
}

/* Append the numbers in @text to @pids. */
static int add_numbers(const char *text, pid_t *pids, int n, int max)
{
	char *end;

	for (const char *p = text; *p && n < max; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p) {
			end = (char *)p + 1;
			continue;
		}
		if (v > 0)
			pids[n++] = (pid_t)v;
	}
	return n;
}

int pco_children(pid_t pid, pid_t *pids, int max)
{
	char path[320], buf[4096];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children", (int)pid, de->d_name);
		if (pcc_read_small(path, buf, sizeof(buf)) > 0)
			n = add_numbers(buf, pids, n, max);
	}
	closedir(d);
	return n;
}

int pco_pid_list(const char *path, pid_t *pids, int max)
{
	struct dirent *de;
	char *buf;
	DIR *d;
	int n = 0, fd;
	ssize_t len = 0, r;
	size_t cap = 1 << 16;

	if (!path) {
		d = opendir("/proc");
		if (!d)
			return -errno;
		while ((de = readdir(d)) && n < max)
			if (isdigit((unsigned char)de->d_name[0]))
				pids[n++] = atoi(de->d_name);
		closedir(d);
		return n;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	while (buf && (r = read(fd, buf + len, cap - 1 - len)) > 0) {
		len += r;
		if ((size_t)len == cap - 1) {
			char *more = realloc(buf, cap * 2);

			if (!more)
				break;
			buf = more;
			cap *= 2;
		}
	}
	close(fd);
	if (!buf)
		return -ENOMEM;
	buf[len] = 0;
	n = add_numbers(buf, pids, 0, max);
	free(buf);
	return n;
}

/* A mapping of program code or libraries, not of data a program streams. */
static int is_code(const char *perms, const char *path)
{
	return perms[2] == 'x' || !strncmp(path, "/usr/", 5) || !strncmp(path, "/lib", 4) ||
	       strstr(path, ".so") != NULL;
}

int pco_maps(pid_t pid, void (*fn)(void *arg, const char *path, unsigned int dev, uint64_t ino),
	     void *arg)
{
	char path[64], line[4400], perms[8], file[4097];
	unsigned int major, minor;
	unsigned long long ino;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*x-%*x %7s %*x %x:%x %llu %4096[^\n]", perms, &major, &minor,
			   &ino, file) != 5)
			continue;
		if (ino && file[0] == '/' && !is_code(perms, file))
			fn(arg, file, makedev(major, minor), ino);
	}
	fclose(f);
	return 0;
}

int pco_maps_of(pid_t pid, unsigned int dev, uint64_t ino, struct pco_map *maps, int max)
{
	char path[64], line[4400];
	unsigned long long start, end, off, i;
	unsigned int major, minor;
	char perms[8];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		/* code is never paged out: the program runs it */
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &start, &end, perms, &off, &major,
			   &minor, &i) != 7 || i != ino || makedev(major, minor) != dev ||
		    perms[2] == 'x')
			continue;
		maps[n++] = (struct pco_map){ .start = start, .end = end, .off = off, .dev = dev,
					      .ino = ino };
	}
	fclose(f);
	return n;
}

uint64_t pco_mntns(pid_t pid)
{
	char path[64];
	struct stat st;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/mnt");
	return stat(path, &st) ? 0 : st.st_ino;
}

/* /proc/@pid/@name, a small file, whole into @buf; bytes or -errno. */
static int read_pid_file(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	return pcc_read_small(path, buf, size);
}

/* /proc/@pid/stat parsed up to field @need (pcc_procstat_parse()); 0 or -errno. */
static int read_procstat(pid_t pid, int need, struct pcc_procstat *ret)
{
	char buf[1024];
	int n;

	n = read_pid_file(pid, "stat", buf, sizeof(buf));
	if (n < 0)
		return n;
	return pcc_procstat_parse(buf, need, ret) ? -EPROTO : 0;
}

int pco_proc_stat(pid_t pid, pid_t *ret_ppid, uint64_t *ret_start)
{
	struct pcc_procstat s;
	int ret = read_procstat(pid, PCC_STAT_START, &s);

	if (ret)
		return ret;
	if (ret_ppid)
		*ret_ppid = s.ppid;
	*ret_start = s.start;
	return 0;
}

/*
 * What exec(2) changes in /proc/PID/stat: the new program's code and stack
 * addresses (fields 26 and 28; the kernel shows them to whoever may read
 * the process's descriptors), and its name.
 */
int pco_exec_id(pid_t pid, struct pco_exec_id *ret)
{
	struct pcc_procstat s;
	int err = read_procstat(pid, PCC_STAT_STACK, &s);

	if (err)
		return err;
	*ret = (struct pco_exec_id){ .code = s.code, .stack = s.stack };
	snprintf(ret->comm, sizeof(ret->comm), "%.*s", (int)sizeof(ret->comm) - 1, s.comm);
	return 0;
}

int pco_io_counts(pid_t pid, uint64_t *ret_sum, uint64_t *ret_read_bytes)
{
	char buf[512], *p, *end;
	uint64_t sum = 0, v;
	int n;

	n = read_pid_file(pid, "io", buf, sizeof(buf));
	if (n < 0)
		return n;
	*ret_read_bytes = 0;
	for (p = strchr(buf, ':'); p; p = strchr(end, ':')) {
		v = strtoull(p + 1, &end, 10);
		if (end == p + 1)
			return -EPROTO;
		if (p - buf >= 10 && !strncmp(p - 10, "read_bytes", 10) &&
		    (p - buf == 10 || p[-11] == '\n'))
			*ret_read_bytes = v;
		sum += v;
	}
	*ret_sum = sum;
	return 0;
}

int pco_io_field(pid_t pid, const char *name, uint64_t *ret)
{
	size_t len = strlen(name);
	char buf[512], *p;
	int n;

	n = read_pid_file(pid, "io", buf, sizeof(buf));
	if (n < 0)
		return n;
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, len) && p[len] == ':') {
			*ret = strtoull(p + len + 1, NULL, 10);
			return 0;
		}
	return -ENOENT;
}

uint64_t pco_boot_ticks(void)
{
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec ts;

	if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * hz + (uint64_t)ts.tv_nsec * hz / 1000000000;
}

double pco_start_time(pid_t pid)
{
	char buf[1024];
	unsigned long long boot = 0;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t start;
	FILE *f;

	if (pco_proc_stat(pid, NULL, &start))
		return 0;
	/* /proc/stat is long (a line per CPU, interrupts): read it by lines. */
	f = fopen("/proc/stat", "re");
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f))
		if (!strncmp(buf, "btime ", 6))
			boot = strtoull(buf + 6, NULL, 10);
	fclose(f);
	return boot && hz > 0 ? boot + (double)start / hz : 0;
}
