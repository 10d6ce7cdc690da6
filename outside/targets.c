// SPDX-License-Identifier: MIT
/*
 * The watcher's targets: which processes it follows (named, their children,
 * a cgroup's members, the host's), each checked before it is taken, with
 * one line saying why one is refused.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "watcher.h"

/* New members of the host are looked for this often (a cgroup's: watcher.h). */
#define PCO_DISCOVER_ALL 1.0
/* Children of the targets: at most this often, however often the looks. */
#define PCO_DISCOVER_CHILDREN 0.01

int pco_check_kernel(char *why, size_t size)
{
	int fd = pco_pidfd_open(getpid()), dup;

	if (fd < 0) {
		snprintf(why, size, "this kernel has no pidfd_open (Linux 5.3 or later needed)");
		return -ENOSYS;
	}
	dup = pco_pidfd_getfd(fd, 0);
	close(fd);
	if (dup == -ENOSYS) {
		snprintf(why, size, "this kernel has no pidfd_getfd (Linux 5.6 or later needed)");
		return -ENOSYS;
	}
	if (dup >= 0)
		close(dup);
	return 0;
}

struct pco_target *pco_target_find(struct pco_watcher *w, pid_t pid)
{
	for (int i = 0; i < w->n; i++)
		if (w->t[i].pid == pid && !w->t[i].dead)
			return &w->t[i];
	return NULL;
}

static const char *user_name(uid_t uid, char *buf, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		return pw->pw_name;
	snprintf(buf, size, "%u", (unsigned int)uid);
	return buf;
}

/* 1 and its owner when /proc/@pid@what is another user's and we are not root. */
static int others(pid_t pid, const char *what, uid_t *ret_uid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d%s", (int)pid, what);
	if (stat(path, &st) || st.st_uid == geteuid() || !geteuid())
		return 0;
	*ret_uid = st.st_uid;
	return 1;
}

/*
 * Why we may not act on @pid: one line into @why; -errno.  Acting needs to
 * read /proc/PID/fd (ptrace's read mode, which Yama does not restrict): the
 * same user, and a dumpable process (the kernel gives a set-ID or
 * non-dumpable process's /proc files to root), or CAP_SYS_PTRACE.
 */
static int refusal(pid_t pid, int err, char *why, size_t size)
{
	char ubuf[16];
	uid_t uid;

	if (err == -ESRCH || err == -ENOENT) {
		snprintf(why, size, "process %d: no such process", (int)pid);
		return -ESRCH;
	}
	if (err == -ENOSYS)
		return pco_check_kernel(why, size);
	if (others(pid, "", &uid))
		snprintf(why, size, "process %d: it belongs to user %s: not permitted "
			 "(run as root or with CAP_SYS_PTRACE)", (int)pid,
			 user_name(uid, ubuf, sizeof(ubuf)));
	else if (others(pid, "/fd", &uid))
		snprintf(why, size, "process %d: its descriptors are user %s's (a set-ID "
			 "or non-dumpable program): run as root or with CAP_SYS_PTRACE",
			 (int)pid, user_name(uid, ubuf, sizeof(ubuf)));
	else
		snprintf(why, size, "process %d: not permitted: %s", (int)pid, strerror(-err));
	return err;
}

/*
 * Try what acting will need: the descriptor list and one descriptor's
 * fdinfo (the same ptrace check as /proc/PID/fd/N, and nothing of the file
 * is opened or asked: it may be on a file system that never answers).
 */
static int probe(int pidfd, pid_t pid)
{
	int fds[8], n = pco_fds(pid, fds, 8), err;
	struct pco_fdinfo fi;

	(void)pidfd;
	if (n <= 0)
		return n == -EACCES ? -EPERM : n;
	err = pco_fdinfo_read(pid, fds[0], &fi);
	if (err == -ENOENT || err == -EPROTO)
		return 0;	/* closed meanwhile; or an fdinfo of a kind not parsed */
	return err == -EACCES ? -EPERM : err;
}

/*
 * A pid read from a listing (a cgroup's, the host's, a process's children)
 * may name another process by the time its pidfd is opened: the pid was
 * reused.  Read after the pidfd was opened, /proc/PID/stat is the pidfd's
 * process or a later one: it is the one listed if it started no later than
 * the listing was read (@listed, clock ticks since boot) and, for a child,
 * its parent is still @parent.
 */
static int is_listed(pid_t pid, pid_t parent, uint64_t listed)
{
	uint64_t start;
	pid_t ppid;

	if (pco_proc_stat(pid, &ppid, &start))
		return 0;
	return start <= listed && (!parent || ppid == parent);
}

int pco_target_add(struct pco_watcher *w, pid_t pid, pid_t parent, uint64_t listed,
		   char *why, size_t size)
{
	struct pco_target *t;
	int pidfd, err;

	if (pid == w->self || pco_target_find(w, pid))
		return 0;
	if (!w->raised) {
		/*
		 * A pidfd per target: --all needs more than the usual 1024.
		 * Raised at the first target, after run's fork: ours, not CMD's.
		 */
		struct rlimit rl;

		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		w->raised = 1;
	}
	pidfd = pco_pidfd_open(pid);
	if (pidfd < 0)
		return refusal(pid, pidfd, why, size);
	if (listed && !is_listed(pid, parent, listed)) {
		close(pidfd);
		return -ESRCH;
	}
	err = probe(pidfd, pid);
	if (err && pco_pidfd_alive(pidfd))
		err = 0;	/* exited meanwhile (a zombie has no fds): nothing to do */
	if (err) {
		close(pidfd);
		return refusal(pid, err, why, size);
	}
	if (w->n == w->cap) {
		int cap = w->cap ? 2 * w->cap : 16;
		struct pco_target *more = realloc(w->t, cap * sizeof(*more));

		if (!more) {
			close(pidfd);
			return -ENOMEM;
		}
		w->t = more;
		w->cap = cap;
	}
	t = &w->t[w->n++];
	*t = (struct pco_target){ .pid = pid, .pidfd = pidfd, .fd_dir = -1,
				  .foreign = pco_mntns(pid) != w->mntns };
	if (w->keep_open)
		t->fd_dir = pco_fds_open(pid);
	if (w->kv)
		pco_kview_follow(w->kv, pid);
	return 0;
}

int pco_watcher_add(struct pco_watcher *w, pid_t pid, char *why, size_t size)
{
	return pco_target_add(w, pid, 0, 0, why, size);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/*
 * The live targets' pids into w->known, sorted; how many.  A listing of a
 * thousand processes is then looked up, not compared with every target.
 */
static int known_pids(struct pco_watcher *w)
{
	int n = 0;

	if (!w->known && !(w->known = calloc(PCO_MAX_PIDS, sizeof(pid_t))))
		return 0;
	for (int i = 0; i < w->n && n < PCO_MAX_PIDS; i++)
		if (!w->t[i].dead)
			w->known[n++] = w->t[i].pid;
	qsort(w->known, n, sizeof(pid_t), cmp_pid);
	return n;
}

void pco_targets_discover(struct pco_watcher *w, double now)
{
	char why[256], path[4096];
	uint64_t listed;
	int n = 0, n_known;

	if (w->o.cgroup && now - w->discovered >= PCO_DISCOVER_CGROUP) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", w->o.cgroup);
		n = pco_pid_list(path, w->pids, PCO_MAX_PIDS);
		w->discovered = now;
		if (n == -ENOENT || n == -ENODEV)
			w->cgroup_gone = 1;	/* removed: its processes are gone */
		w->cgroup_had |= n > 0;
		if (w->o.until_empty && w->cgroup_had && !n)
			w->cgroup_gone = 1;	/* emptied after it had members */
	} else if (w->o.all && pco_hot_on(&w->hot, &w->o)) {
		n = pco_hot_pids(w->hot, now, w->pids, PCO_MAX_PIDS);
	} else if (w->o.all && now - w->discovered >= PCO_DISCOVER_ALL) {
		n = pco_pid_list(NULL, w->pids, PCO_MAX_PIDS);
		w->discovered = now;
	}
	listed = pco_boot_ticks();
	n_known = known_pids(w);
	for (int i = 0; i < n; i++)
		if (!bsearch(&w->pids[i], w->known, n_known, sizeof(pid_t), cmp_pid))
			pco_target_add(w, w->pids[i], 0, listed, why, sizeof(why));
	/* A cgroup's children are its members: found above. */
	/* beside the shim the kernel's view finds descendants by itself */
	if (!w->o.follow_children || w->o.cgroup || w->o.kernel_only ||
	    now - w->children_seen < PCO_DISCOVER_CHILDREN)
		return;
	w->children_seen = now;
	for (int i = 0; i < w->n; i++) {
		/* a quiet one is asked for children as seldom as for its files */
		if (w->t[i].dead || (w->t[i].quiet && now < w->t[i].next_at))
			continue;
		n = pco_children(w->t[i].pid, w->pids, PCO_MAX_PIDS);
		listed = pco_boot_ticks();
		for (int j = 0; j < n; j++)
			pco_target_add(w, w->pids[j], w->t[i].pid, listed, why, sizeof(why));
	}
}
