// SPDX-License-Identifier: MIT
/*
 * Memory cgroups on v1 or v2: create one with a limit, move processes into
 * it, read what it holds, remove it and the ones killed runs left behind.
 * Returns 0 or -errno everywhere and never prints (the CLI words errors).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"

/* Read at most @len - 1 bytes of the file @path into @buf, NUL-terminated. */
static int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		ret = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return ret;
}

/* Write @text to the control file @path in one write(2). */
static int write_text(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

/* Join @dir and @name into @out (PATH_MAX bytes); -ENAMETOOLONG when too long. */
static int join(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", dir, name);

	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/* Whether the space-separated @list holds the word @word. */
static int has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		int start = p == list || p[-1] == ' ' || p[-1] == ',';
		int end = !p[len] || isspace((unsigned char)p[len]) || p[len] == ',';

		if (start && end)
			return 1;
		p += len;
	}
	return 0;
}

/*
 * Find the mount point of the hierarchy that has the memory controller:
 * a cgroup2 mount listing "memory" in cgroup.controllers wins, else a v1
 * cgroup mount with the "memory" option.
 */
static int find_mount(int *ret_version, char *ret_mnt)
{
	char line[4096], v1[PATH_MAX] = "", ctl[PATH_MAX], list[512];
	int found = 0;
	FILE *f;

	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f)) {
		char dev[256], mnt[PATH_MAX], type[64], opts[1024];

		if (sscanf(line, "%255s %4095s %63s %1023s", dev, mnt, type, opts) != 4)
			continue;
		if (!strcmp(type, "cgroup2")) {
			if (join(ctl, mnt, "cgroup.controllers") ||
			    read_text(ctl, list, sizeof(list)) || !has_word(list, "memory"))
				continue;
			snprintf(ret_mnt, PATH_MAX, "%s", mnt);
			*ret_version = 2;
			found = 1;
		} else if (!strcmp(type, "cgroup") && has_word(opts, "memory") && !*v1) {
			snprintf(v1, sizeof(v1), "%s", mnt);
		}
	}
	fclose(f);
	if (found)
		return 0;
	if (!*v1)
		return -ENOENT;
	snprintf(ret_mnt, PATH_MAX, "%s", v1);
	*ret_version = 1;
	return 0;
}

/* The caller's cgroup path inside hierarchy @version, from /proc/self/cgroup. */
static int own_path(int version, char *ret_path)
{
	char line[4096];
	int ret = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		char *ctrl = strchr(line, ':'), *path;

		if (!ctrl || !(path = strchr(ctrl + 1, ':')))
			continue;
		*path++ = '\0';
		path[strcspn(path, "\n")] = '\0';
		ctrl++;
		if ((version == 2 && !strncmp(line, "0", 2) && !*ctrl) ||
		    (version == 1 && has_word(ctrl, "memory"))) {
			snprintf(ret_path, PATH_MAX, "%s", path);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

int cgroup_detect(int *ret_version, char *ret_dir)
{
	char mnt[PATH_MAX], path[PATH_MAX];
	int version, ret;

	ret = find_mount(&version, mnt);
	if (ret)
		return ret;
	if (ret_dir) {
		ret = own_path(version, path);
		if (ret)
			return ret;
		if (snprintf(ret_dir, PATH_MAX, "%s%s", mnt,
			     strcmp(path, "/") ? path : "") >= PATH_MAX)
			return -ENAMETOOLONG;
	}
	*ret_version = version;
	return 0;
}

/* Cut the last component off @dir, leaving at least "/". */
static void parent_of(char *dir)
{
	char *slash = strrchr(dir, '/');

	if (slash && slash != dir)
		*slash = '\0';
}

/*
 * Where a v2 child can go: below @own when memory is (or can be) delegated
 * from it, else beside it.  A non-root cgroup with processes cannot
 * delegate (the "no internal processes" rule), so that fails with EBUSY.
 */
static int v2_parent(const char *own, char *ret_parent)
{
	char ctl[PATH_MAX], list[512];
	int ret;

	ret = join(ctl, own, "cgroup.subtree_control");
	if (ret)
		return ret;
	if (!read_text(ctl, list, sizeof(list)) &&
	    (has_word(list, "memory") || !write_text(ctl, "+memory"))) {
		snprintf(ret_parent, PATH_MAX, "%s", own);
		return 0;
	}
	snprintf(ret_parent, PATH_MAX, "%s", own);
	parent_of(ret_parent);
	return 0;
}

/* Write the limit into the fresh cgroup @cg. */
static int set_limit(const struct cgroup *cg, uint64_t limit)
{
	char ctl[PATH_MAX], num[32];
	int ret;

	snprintf(num, sizeof(num), "%" PRIu64, limit);
	ret = join(ctl, cg->path, cg->version == 2 ? "memory.max" : "memory.limit_in_bytes");
	if (ret)
		return ret;
	ret = write_text(ctl, num);
	if (ret)
		return ret;
	/* Without swap, the cap is on page cache and anonymous memory alike. */
	if (cg->version == 2 && !join(ctl, cg->path, "memory.swap.max"))
		write_text(ctl, "0");
	return 0;
}

int cgroup_create(struct cgroup *ret_cg, uint64_t limit, pid_t tag)
{
	char own[PATH_MAX], parent[PATH_MAX], name[64];
	struct cgroup cg = { 0 };
	int ret;

	ret = cgroup_detect(&cg.version, own);
	if (ret)
		return ret;
	if (cg.version == 2) {
		ret = v2_parent(own, parent);
		if (ret)
			return ret;
	} else {
		snprintf(parent, sizeof(parent), "%s", own);
	}
	snprintf(cg.home, sizeof(cg.home), "%s", own);
	cg.limit = limit;
	/* the same pid may be another PID namespace's: add -N then */
	for (int n = 0; n < 10; n++) {
		if (n)
			snprintf(name, sizeof(name), CGROUP_PREFIX "%ld-%d",
				 (long)(tag ? tag : getpid()), n);
		else
			snprintf(name, sizeof(name), CGROUP_PREFIX "%ld",
				 (long)(tag ? tag : getpid()));
		ret = join(cg.path, parent, name);
		if (ret)
			return ret;
		ret = mkdir(cg.path, 0755) ? -errno : 0;
		if (ret != -EEXIST)
			break;
	}
	if (ret)
		return ret;
	cg.lock_fd = open(cg.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ret = cg.lock_fd < 0 ? -errno : flock(cg.lock_fd, LOCK_EX) ? -errno : 0;
	if (!ret)
		ret = set_limit(&cg, limit);
	if (ret) {
		if (cg.lock_fd >= 0)
			close(cg.lock_fd);
		rmdir(cg.path);
		return ret;
	}
	*ret_cg = cg;
	return 0;
}

int cgroup_attach(const struct cgroup *cg, pid_t pid)
{
	char ctl[PATH_MAX], num[32];
	int ret;

	ret = join(ctl, cg->path, "cgroup.procs");
	if (ret)
		return ret;
	snprintf(num, sizeof(num), "%ld", (long)pid);
	return write_text(ctl, num);
}

/* Parse the value of key @key from memory.stat text @stat. */
static int stat_value(const char *stat, const char *key, uint64_t *ret)
{
	size_t len = strlen(key);
	const char *p = stat;

	while (p && *p) {
		if (!strncmp(p, key, len) && p[len] == ' ') {
			*ret = strtoull(p + len + 1, NULL, 10);
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

/* Read a control file holding one number ("max" reads as UINT64_MAX). */
static int read_number(const char *dir, const char *name, uint64_t *ret)
{
	char ctl[PATH_MAX], text[64];
	int err;

	err = join(ctl, dir, name);
	if (!err)
		err = read_text(ctl, text, sizeof(text));
	if (err)
		return err;
	*ret = strncmp(text, "max", 3) ? strtoull(text, NULL, 10) : UINT64_MAX;
	return 0;
}

int cgroup_read_dir(const char *dir, int version, struct cgroup_usage *ret_usage)
{
	struct cgroup_usage u;
	char ctl[PATH_MAX];
	char *stat;
	int ret;

	ret = read_number(dir, version == 2 ? "memory.current" : "memory.usage_in_bytes", &u.usage);
	if (!ret)
		ret = read_number(dir, version == 2 ? "memory.max" : "memory.limit_in_bytes", &u.limit);
	if (!ret)
		ret = join(ctl, dir, "memory.stat");
	if (ret)
		return ret;
	stat = malloc(16384);
	if (!stat)
		return -ENOMEM;
	ret = read_text(ctl, stat, 16384);
	if (!ret)
		ret = stat_value(stat, version == 2 ? "file" : "cache", &u.cache);
	if (!ret && stat_value(stat, version == 2 ? "pgsteal" : "pgpgout", &u.evicted))
		u.evicted = UINT64_MAX;
	free(stat);
	if (!ret)
		*ret_usage = u;
	return ret;
}

int cgroup_read(const struct cgroup *cg, struct cgroup_usage *ret_usage)
{
	return cgroup_read_dir(cg->path, cg->version, ret_usage);
}

/* Move every process listed in @path/cgroup.procs to @home/cgroup.procs. */
static int move_tasks(const char *path, const char *home)
{
	char ctl[PATH_MAX], dst[PATH_MAX], num[32];
	int ret, err = 0;
	FILE *f;

	ret = join(ctl, path, "cgroup.procs");
	if (!ret)
		ret = join(dst, home, "cgroup.procs");
	if (ret)
		return ret;
	f = fopen(ctl, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(num, sizeof(num), f)) {
		num[strcspn(num, "\n")] = '\0';
		ret = write_text(dst, num);
		if (ret && ret != -ESRCH && !err)
			err = ret;
	}
	fclose(f);
	return err;
}

/* rmdir @path, retrying while the kernel still calls it busy. */
static int rmdir_retry(const char *path)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };

	for (int i = 0; i < 20; i++) {
		if (!rmdir(path) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		nanosleep(&pause, NULL);
	}
	return -EBUSY;
}

/* Move the tasks of @path to @home and remove it. */
static int remove_to(const char *path, const char *home)
{
	struct stat st;
	int ret;

	if (stat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	ret = move_tasks(path, home);
	if (ret)
		return ret;
	return rmdir_retry(path);
}

int cgroup_remove(struct cgroup *cg)
{
	struct stat st;
	char parent[PATH_MAX];

	int ret;

	if (!cg->path[0])
		return 0;
	snprintf(parent, sizeof(parent), "%s", cg->path);
	parent_of(parent);
	ret = remove_to(cg->path, stat(cg->home, &st) ? parent : cg->home);
	if (!ret && cg->lock_fd >= 0) {
		close(cg->lock_fd);
		cg->lock_fd = -1;
	}
	return ret;
}

int cgroup_remove_path(const char *path, int version)
{
	char parent[PATH_MAX];

	(void)version;
	if (!strstr(path, "/" CGROUP_PREFIX))
		return -EINVAL;
	snprintf(parent, sizeof(parent), "%s", path);
	parent_of(parent);
	return remove_to(path, parent);
}

/* Whether @name is pagecliff-<pid> of a process that does not exist here. */
static int is_dead_pid_name(const char *name)
{
	const char *p = name + strlen(CGROUP_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, CGROUP_PREFIX, strlen(CGROUP_PREFIX)) || !isdigit((unsigned char)*p))
		return 0;
	pid = strtol(p, &end, 10);
	if (pid <= 0 || (*end && *end != '-'))
		return 0;
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

/*
 * Whether @name (below @dir) is pagecliff-<pid> of a run that is gone: its
 * pid does not exist here and nobody holds the flock on its directory (the
 * lock, not the pid, says so across PID namespaces).  On 1, *ret_fd holds
 * the lock for the removal.
 */
static int is_stale(const char *dir, const char *name, int *ret_fd)
{
	char path[PATH_MAX];
	int fd;

	if (!is_dead_pid_name(name) || join(path, dir, name))
		return 0;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return 0;
	}
	*ret_fd = fd;
	return 1;
}

/* Remove the stale pagecliff cgroups directly below @dir; returns the count. */
static int sweep_dir(const char *dir, cgroup_stale_fn fn, void *arg)
{
	char path[PATH_MAX];
	struct dirent *de;
	int found = 0, ret;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int fd;

		if (de->d_type != DT_DIR || !is_stale(dir, de->d_name, &fd))
			continue;
		if (join(path, dir, de->d_name)) {
			close(fd);
			continue;
		}
		found++;
		ret = remove_to(path, dir);
		close(fd);
		if (fn)
			fn(path, ret, arg);
	}
	closedir(d);
	return found;
}

int cgroup_remove_stale(cgroup_stale_fn fn, void *arg)
{
	char dirs[3][PATH_MAX];
	int version, ret, found = 0;

	ret = cgroup_detect(&version, dirs[0]);
	if (ret)
		return ret;
	snprintf(dirs[1], PATH_MAX, "%s", dirs[0]);
	parent_of(dirs[1]);
	ret = find_mount(&version, dirs[2]);
	if (ret)
		return ret;
	for (int i = 0; i < 3; i++) {
		int dup = 0;

		for (int j = 0; j < i; j++)
			dup |= !strcmp(dirs[i], dirs[j]);
		if (!dup)
			found += sweep_dir(dirs[i], fn, arg);
	}
	return found;
}
