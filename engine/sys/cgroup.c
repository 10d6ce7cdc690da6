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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "sample.h"
#include "procstat.h"

static int move_tasks(const char *path, const char *home);
static int rmdir_retry(const char *path);

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

/* Write @text to the control file @name of the cgroup @dir. */
static int write_ctl(const char *dir, const char *name, const char *text)
{
	char ctl[PATH_MAX];
	int ret = join(ctl, dir, name);

	return ret ? ret : write_text(ctl, text);
}

/*
 * The hierarchy with the memory controller and, when @ret_dir is not NULL,
 * the caller's cgroup in it: sample-memcg.c decides, so that bench, doctor and
 * watch agree on which cgroup a process is in.
 */
int cgroup_detect(int *ret_version, char *ret_dir)
{
	char mnt[PATH_MAX];

	if (!ret_dir)
		return sample_memcg_hierarchy(NULL, ret_version, mnt, sizeof(mnt));
	return sample_memcg_path(NULL, 0, ret_version, ret_dir, PATH_MAX);
}

/* Cut the last component off @dir, leaving at least "/". */
static void parent_of(char *dir)
{
	char *slash = strrchr(dir, '/');

	if (slash && slash != dir)
		*slash = '\0';
}

/* Write the limit into the fresh cgroup @cg. */
static int set_limit(const struct cgroup *cg, uint64_t limit)
{
	char num[32];
	int ret;

	snprintf(num, sizeof(num), "%" PRIu64, limit);
	ret = write_ctl(cg->path, cg->version == 2 ? "memory.max" : "memory.limit_in_bytes", num);
	/* Without swap, the cap is on page cache and anonymous memory alike. */
	if (!ret && cg->version == 2)
		write_ctl(cg->path, "memory.swap.max", "0");
	return ret;
}

/*
 * mkdir @parent/pagecliff-<@tag> into @out (PATH_MAX bytes); the same pid
 * may be another PID namespace's: pagecliff-<tag>-N then.
 */
static int make_dir(char *out, const char *parent, long tag)
{
	char name[64];
	int ret = -EEXIST;

	for (int n = 0; n < 10 && ret == -EEXIST; n++) {
		snprintf(name, sizeof(name), n ? CGROUP_PREFIX "%ld-%d" : CGROUP_PREFIX "%ld",
			 tag, n);
		ret = join(out, parent, name);
		if (ret)
			return ret;
		ret = mkdir(out, 0755) ? -errno : 0;
	}
	return ret;
}

/* Take the flock on @cg->top that marks it alive. */
static int lock_top(struct cgroup *cg)
{
	cg->lock_fd = open(cg->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->lock_fd < 0)
		return -errno;
	return flock(cg->lock_fd, LOCK_EX) ? -errno : 0;
}

/* Whether the cgroup @dir's file @name lists @word. */
static int lists(const char *dir, const char *name, const char *word)
{
	char list[512];

	return !sample_read_text(dir, name, list, sizeof(list)) && sample_has_word(list, word);
}

/* Write "+@controller" or "-@controller" to @dir's cgroup.subtree_control. */
static int subtree(const char *dir, int on, const char *controller)
{
	char text[64];

	snprintf(text, sizeof(text), "%c%s", on ? '+' : '-', controller);
	return write_ctl(dir, "cgroup.subtree_control", text);
}

/* Say why in @cg->why: @fmt's words, then the error's; returns @err. */
__attribute__((format(printf, 3, 4)))
static int why(struct cgroup *cg, int err, const char *fmt, ...)
{
	char text[sizeof(cg->why)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(cg->why, sizeof(cg->why), "%.*s: %s", (int)sizeof(text) - 64, text,
		 strerror(-err));
	return err;
}

/* mkdir @cg->top's leaves "leader" and "workers". */
static int make_leaves(struct cgroup *cg)
{
	int ret = join(cg->leader, cg->top, "leader");

	if (!ret)
		ret = join(cg->path, cg->top, "workers");
	if (!ret && mkdir(cg->leader, 0755))
		ret = -errno;
	if (!ret && mkdir(cg->path, 0755))
		ret = -errno;
	return ret;
}

/* The parent of process @pid (/proc/PID/stat), or -1. */
static long parent_pid(long pid)
{
	char path[64], text[1024];
	struct pcc_procstat s;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (sample_read_text(NULL, path, text, sizeof(text)) ||
	    pcc_procstat_parse(text, PCC_STAT_PPID, &s))
		return -1;
	return s.ppid;
}

/* The processes of the cgroup @dir, up to @max into @pids; how many, or -errno. */
static int list_procs(const char *dir, long *pids, int max)
{
	char ctl[PATH_MAX], num[32];
	int n = 0, ret = join(ctl, dir, "cgroup.procs");
	FILE *f;

	if (ret)
		return ret;
	f = fopen(ctl, "re");
	if (!f)
		return -errno;
	while (fgets(num, sizeof(num), f))
		if (n < max)
			pids[n++] = strtol(num, NULL, 10);
		else
			n = -E2BIG;
	fclose(f);
	return n;
}

static int listed(const long *pids, int n, long pid)
{
	for (int i = 0; i < n; i++)
		if (pids[i] == pid)
			return 1;
	return 0;
}

#define TREE_MAX 4096

/*
 * Whether the cgroup @dir holds only @pid's own process tree: the topmost
 * of @pid's ancestors that lives in @dir with its descendants (a container's
 * or a batch job's processes, the script that started bench).  0 when so;
 * -EBUSY with the first other process in *ret_other (0: one this PID
 * namespace cannot see, or a cgroup too crowded to check).
 */
static int own_tree(const char *dir, pid_t pid, long *pids, long *ret_other)
{
	long top = pid, up, q;
	int n = list_procs(dir, pids, TREE_MAX);

	*ret_other = 0;
	if (n < 0)
		return n == -E2BIG ? -EBUSY : n;
	while ((up = parent_pid(top)) > 0 && listed(pids, n, up))
		top = up;
	for (int i = 0; i < n; i++) {
		for (q = pids[i]; q > 0 && q != top; q = parent_pid(q))
			;
		if (q != top) {
			*ret_other = pids[i];
			return -EBUSY;
		}
	}
	return 0;
}

/* The name of process @pid for a message, or "?". */
static const char *proc_name(long pid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (pid <= 0 || sample_read_text(NULL, path, buf, size))
		snprintf(buf, size, "?");
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/*
 * Move every process of @cg->home into its leader, when they all are the
 * caller's own tree (own_tree()): the cgroup is then free to delegate.
 * Undone by cgroup_v2_unplace(), which moves the leader's tasks home.
 */
static int move_own_tree(struct cgroup *cg, pid_t pid)
{
	char name[64];
	long other, *pids = malloc(TREE_MAX * sizeof(*pids));
	int ret;

	if (!pids)
		return -ENOMEM;
	ret = own_tree(cg->home, pid, pids, &other);
	if (ret == -EBUSY)
		why(cg, ret, "%s holds process %ld (%s), which is not this one's own tree, and a "
		    "cgroup v2 with processes delegates no controller", cg->home, other,
		    proc_name(other, name, sizeof(name)));
	else if (ret)
		why(cg, ret, "cannot list the processes of %s", cg->home);
	else if ((ret = move_tasks(cg->home, cg->leader)))
		why(cg, ret, "cannot move this process's own tree from %s to %s", cg->home,
		    cg->leader);
	else
		cg->moved_tree = 1;
	free(pids);
	return ret;
}

/*
 * Enable @controller for own's children, now that @pid left own: EBUSY when
 * other processes are still there (a cgroup with processes delegates no
 * controller).  With CGROUP_OWN_TREE, processes that are all @pid's own tree
 * go to the leader too, a few times over for the ones they fork meanwhile.
 * Already enabled, it is left as it was, and on removal too.
 */
static int delegate_home(struct cgroup *cg, const char *controller, pid_t pid,
			 unsigned int flags)
{
	int ret;

	if (lists(cg->home, "/cgroup.subtree_control", controller))
		return 0;
	ret = subtree(cg->home, 1, controller);
	for (int i = 0; ret == -EBUSY && (flags & CGROUP_OWN_TREE) && i < 3; i++) {
		if (move_own_tree(cg, pid))
			return -EBUSY;
		ret = subtree(cg->home, 1, controller);
	}
	if (ret == -EBUSY)
		return why(cg, ret, "%s holds other processes than this one, and a cgroup v2 "
			   "with processes delegates no controller", cg->home);
	if (ret)
		return why(cg, ret, "cannot enable the controller in %s/cgroup.subtree_control",
			   cg->home);
	cg->enabled_home = 1;
	return 0;
}

static int v2_place(struct cgroup *cg, const char *own, const char *controller, pid_t tag,
		    pid_t pid, unsigned int flags)
{
	char num[32];
	int ret;

	cg->lock_fd = -1;
	cg->enabled_home = 0;
	cg->moved_tree = 0;
	cg->why[0] = '\0';
	cg->leader[0] = cg->path[0] = '\0';
	snprintf(cg->home, sizeof(cg->home), "%s", own);
	if (!lists(own, "/cgroup.controllers", controller)) {
		snprintf(cg->why, sizeof(cg->why), "the %s controller is not delegated to "
			 "cgroup %s", controller, own);
		return -EOPNOTSUPP;
	}
	ret = make_dir(cg->top, own, (long)(tag ? tag : pid));
	if (ret) {
		cg->top[0] = '\0';
		return why(cg, ret, "cannot make a cgroup in %s", own);
	}
	ret = lock_top(cg);
	if (!ret)
		ret = make_leaves(cg);
	if (ret) {
		why(cg, ret, "cannot make the cgroups of %s", cg->top);
		goto out_undo;
	}
	snprintf(num, sizeof(num), "%ld", (long)pid);
	ret = write_ctl(cg->leader, "cgroup.procs", num);
	if (ret) {
		why(cg, ret, "cannot move this process to %s", cg->leader);
		goto out_undo;
	}
	ret = delegate_home(cg, controller, pid, flags);
	if (!ret && (ret = subtree(cg->top, 1, controller)))
		why(cg, ret, "cannot enable the controller in %s/cgroup.subtree_control",
		    cg->top);
	if (!ret)
		return 0;
out_undo:
	cgroup_v2_unplace(cg, controller);
	return ret;
}

int cgroup_v2_place(struct cgroup *cg, const char *own, const char *controller, pid_t tag,
		    pid_t pid)
{
	return v2_place(cg, own, controller, tag, pid, 0);
}

int cgroup_v2_others(const char *dir, pid_t pid)
{
	long *pids = malloc(TREE_MAX * sizeof(*pids));
	int n, others = 0;

	if (!pids)
		return -ENOMEM;
	n = list_procs(dir, pids, TREE_MAX);
	for (int i = 0; i < n; i++)
		others += pids[i] != pid;
	free(pids);
	return n == -E2BIG ? TREE_MAX : n < 0 ? n : others;
}

int cgroup_delegated(const char *dir)
{
	static const char *const names[] = { "trusted.delegate", "user.delegate" };
	char value[8];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ssize_t n = getxattr(dir, names[i], value, sizeof(value) - 1);

		if (n > 0 && value[0] == '1')
			return 1;
	}
	return 0;
}

/* rmdir @path when it is set; 0 also when it is not there. */
static int rmdir_set(const char *path)
{
	return path[0] ? rmdir_retry(path) : 0;
}

int cgroup_v2_unplace(struct cgroup *cg, const char *controller)
{
	int ret = 0, err;

	if (!cg->top[0])
		return 0;
	if (cg->path[0] && cg->leader[0])
		move_tasks(cg->path, cg->leader);	/* workers still there: the caller's */
	ret = rmdir_set(cg->path);
	/* a controller goes from home only once no child has it enabled */
	subtree(cg->top, 0, controller);
	if (cg->enabled_home && !(err = subtree(cg->home, 0, controller)))
		cg->enabled_home = 0;
	if (cg->leader[0] && (err = move_tasks(cg->leader, cg->home)) && !ret)
		ret = err;
	if (!ret)
		ret = rmdir_set(cg->leader);
	if (!ret)
		ret = rmdir_retry(cg->top);
	if (cg->lock_fd >= 0 && !ret) {
		close(cg->lock_fd);
		cg->lock_fd = -1;
	}
	if (!ret)
		cg->top[0] = cg->leader[0] = cg->path[0] = '\0';
	return ret;
}

int cgroup_create(struct cgroup *ret_cg, uint64_t limit, pid_t tag)
{
	return cgroup_create_flags(ret_cg, limit, tag, 0);
}

int cgroup_create_flags(struct cgroup *ret_cg, uint64_t limit, pid_t tag, unsigned int flags)
{
	char own[PATH_MAX];
	struct cgroup cg = { .lock_fd = -1 };
	int ret;

	ret = cgroup_detect(&cg.version, own);
	if (ret) {
		snprintf(ret_cg->why, sizeof(ret_cg->why), "no cgroup hierarchy has the memory "
			 "controller");
		return ret;
	}
	cg.limit = limit;
	tag = tag ? tag : getpid();
	if (cg.version == 2) {
		ret = v2_place(&cg, own, "memory", tag, getpid(), flags);
		if (ret)
			goto out_fail;
	} else {
		snprintf(cg.home, sizeof(cg.home), "%s", own);
		ret = make_dir(cg.top, own, (long)tag);
		if (ret) {
			why(&cg, ret, "cannot make a cgroup in %s", own);
			cg.top[0] = '\0';
			goto out_fail;
		}
		snprintf(cg.path, sizeof(cg.path), "%s", cg.top);
		if ((ret = lock_top(&cg)))
			why(&cg, ret, "cannot lock %s", cg.top);
	}
	if (!ret && (ret = set_limit(&cg, limit)))
		why(&cg, ret, "cannot set the limit of %s", cg.path);
	if (ret) {
		cgroup_remove(&cg);
		goto out_fail;
	}
	*ret_cg = cg;
	return 0;
out_fail:
	snprintf(ret_cg->why, sizeof(ret_cg->why), "%s", cg.why);
	snprintf(ret_cg->home, sizeof(ret_cg->home), "%s", own);
	ret_cg->path[0] = ret_cg->top[0] = '\0';
	return ret;
}

int cgroup_attach(const struct cgroup *cg, pid_t pid)
{
	char num[32];

	snprintf(num, sizeof(num), "%ld", (long)pid);
	return write_ctl(cg->path, "cgroup.procs", num);
}

int cgroup_join_dir(const char *dir, pid_t pid)
{
	char num[32];

	snprintf(num, sizeof(num), "%ld", (long)(pid ? pid : getpid()));
	return write_ctl(dir, "cgroup.procs", num);
}

int cgroup_move_thread(const char *dir, pid_t tid)
{
	char num[32];

	snprintf(num, sizeof(num), "%ld", (long)tid);
	return write_ctl(dir, "tasks", num);
}

/*
 * sample.c reads the group; this keeps the four figures the bench and the
 * tests watch.  An unlimited or unreadable limit is UINT64_MAX, as a
 * counter the kernel does not export.
 */
int cgroup_read_dir(const char *dir, int version, struct cgroup_usage *ret_usage)
{
	struct sample_cgroup cg;
	int ret;

	ret = sample_read_cgroup(dir, &cg);
	if (ret)
		return ret;
	if (version && cg.version != version)
		return -EINVAL;
	if (!sample_known(cg.usage) || !sample_known(cg.file))
		return -ENODATA;
	ret_usage->usage = cg.usage;
	ret_usage->cache = cg.file;
	ret_usage->limit = cg.limit;
	ret_usage->evicted = cg.version == 2 ? cg.pgsteal : cg.pgpgout;
	return 0;
}

int cgroup_read(const struct cgroup *cg, struct cgroup_usage *ret_usage)
{
	return cgroup_read_dir(cg->path, cg->version, ret_usage);
}

/* Move every process listed in @path/cgroup.procs to @home/cgroup.procs. */
static int move_tasks(const char *path, const char *home)
{
	char ctl[PATH_MAX], num[32];
	int ret, err = 0;
	FILE *f;

	ret = join(ctl, path, "cgroup.procs");
	if (ret)
		return ret;
	f = fopen(ctl, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(num, sizeof(num), f)) {
		num[strcspn(num, "\n")] = '\0';
		ret = write_ctl(home, "cgroup.procs", num);
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

/*
 * Move the tasks of @path and of the cgroups below it to @home and remove
 * them all, deepest first.
 */
static int remove_to(const char *path, const char *home)
{
	char sub[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int ret = 0;
	DIR *d;

	if (stat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	d = opendir(path);
	while (d && (de = readdir(d)) && !ret)
		if (de->d_type == DT_DIR && strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    !(ret = join(sub, path, de->d_name)))
			ret = remove_to(sub, home);
	if (d)
		closedir(d);
	if (!ret)
		ret = move_tasks(path, home);
	return ret ? ret : rmdir_retry(path);
}

int cgroup_remove(struct cgroup *cg)
{
	struct stat st;
	char parent[PATH_MAX];
	int ret;

	if (!cg->top[0])
		return 0;
	if (cg->version == 2)
		return cgroup_v2_unplace(cg, "memory");
	snprintf(parent, sizeof(parent), "%s", cg->top);
	parent_of(parent);
	ret = remove_to(cg->top, stat(cg->home, &st) ? parent : cg->home);
	if (!ret && cg->lock_fd >= 0) {
		close(cg->lock_fd);
		cg->lock_fd = -1;
	}
	if (!ret)
		cg->top[0] = cg->path[0] = '\0';
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
	ret = sample_memcg_hierarchy(NULL, &version, dirs[2], PATH_MAX);
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
