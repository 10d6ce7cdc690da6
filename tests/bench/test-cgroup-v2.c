// SPDX-License-Identifier: MIT
/*
 * engine/sys/cgroup.c on a real cgroup v2 hierarchy: bench's cgroup is made
 * inside the cgroup its process was started in and nowhere else, as
 * <own>/pagecliff-<pid>/{leader,workers}; the process moves to the leader
 * leaf before the controller is enabled in its own cgroup (v2 lets a cgroup
 * with processes delegate none); a cgroup that cannot delegate (another
 * process in it, a controller it was not given) is refused with nothing
 * made; removal puts everything back; a killed maker's tree is removable.
 * Uses any controller of the host's v2 hierarchy (memory is not needed:
 * the placement rules are the same for every domain controller).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "helpers.h"

static char mnt[PATH_MAX / 2], ctl[64], own[PATH_MAX];

/* Read the small file @path into @buf; "" when it cannot be read. */
static void slurp(const char *path, char *buf, size_t size)
{
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static int put(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX + 64];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -errno;
}

/* Whether @dir/@file lists the word @word. */
static int lists(const char *dir, const char *file, const char *word)
{
	char path[PATH_MAX + 64], text[512], *tok, *save;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	slurp(path, text, sizeof(text));
	for (tok = strtok_r(text, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (!strcmp(tok, word))
			return 1;
	return 0;
}

/* The v2 cgroup of @pid as a directory below the mount. */
static void cgroup_of(pid_t pid, char *buf, size_t size)
{
	char path[64], text[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");	/* a hybrid host lists v1 lines too: "0::" is v2 */
	buf[0] = '\0';
	while (f && fgets(text, sizeof(text), f))
		if (!strncmp(text, "0::", 3)) {
			text[strcspn(text, "\n")] = '\0';
			snprintf(buf, size, "%s%.*s", mnt, PATH_MAX / 2 - 1,
				 strcmp(text + 3, "/") ? text + 3 : "");
		}
	if (f)
		fclose(f);
}

/* The cgroups below @dir (named @name when not NULL), one a line. */
static void children(const char *dir, const char *name, char *buf, size_t size)
{
	char cmd[PATH_MAX + 128];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "find '%s' -mindepth 1 -type d %s%s | sort", dir,
		 name ? "-name " : "", name ? name : "");
	p = popen(cmd, "r");
	n = p ? fread(buf, 1, size - 1, p) : 0;
	buf[n] = '\0';
	if (p)
		pclose(p);
}

/* The first cgroup2 mount whose root lists a domain controller, and that. */
static int find_v2(void)
{
	static const char *domain[] = { "memory", "hugetlb", "io", "rdma", "misc", NULL };
	char dev[256], dir[PATH_MAX / 2], type[64];
	FILE *f = fopen("/proc/mounts", "re");

	while (f && fscanf(f, "%255s %2047s %63s %*s %*d %*d", dev, dir, type) == 3) {
		if (strcmp(type, "cgroup2") || strchr(dir, '\\'))
			continue;
		/* a domain controller: threaded ones (cpu, cpuset, pids) may be
		 * enabled where processes live */
		for (const char **c = domain; *c; c++)
			if (lists(dir, "cgroup.controllers", *c)) {
				snprintf(mnt, sizeof(mnt), "%s", dir);
				snprintf(ctl, sizeof(ctl), "%s", *c);
				fclose(f);
				return 0;
			}
	}
	if (f)
		fclose(f);
	return -1;
}

/* In a child moved alone into own: place, check, unplace.  Exit status. */
static int placed(void)
{
	char found[8192], name[64], at[PATH_MAX], want[PATH_MAX + 32], procs[64];
	struct cgroup cg;
	int ret, status;
	pid_t g;

	ret = cgroup_v2_place(&cg, own, ctl, 0, getpid());
	T_CHECK(!ret, "place: %s (%s)\n", strerror(-ret), cg.why);
	snprintf(want, sizeof(want), "%s/" CGROUP_PREFIX "%d", own, (int)getpid());
	T_CHECK(!strcmp(cg.top, want), "made %s, want %s\n", cg.top, want);
	cgroup_of(getpid(), at, sizeof(at));
	snprintf(want, sizeof(want), "%s/leader", cg.top);
	T_CHECK(!strcmp(at, want), "this process is in %s, want %s\n", at, want);
	T_CHECK(lists(own, "cgroup.subtree_control", ctl), "%s not enabled in %s\n", ctl, own);
	T_CHECK(lists(cg.top, "cgroup.subtree_control", ctl), "%s not enabled in %s\n", ctl,
		cg.top);
	T_CHECK(lists(cg.path, "cgroup.controllers", ctl), "%s has no %s\n", cg.path, ctl);
	snprintf(want, sizeof(want), "%s/cgroup.procs", own);
	slurp(want, procs, sizeof(procs));
	T_CHECK(!procs[0], "processes left in %s: %s\n", own, procs);
	/* made there and nowhere else in the hierarchy (not at its root) */
	snprintf(name, sizeof(name), CGROUP_PREFIX "%d*", (int)getpid());
	children(mnt, name, found, sizeof(found));
	snprintf(want, sizeof(want), "%s\n", cg.top);
	T_CHECK(!strcmp(found, want), "pagecliff cgroups of this pid: %s\n", found);
	/* a worker process joins the capped leaf and is alone there */
	g = fork();
	if (!g)
		_exit(cgroup_join_dir(cg.path, 0) ? 3 : (pause(), 0));
	for (int i = 0; i < 100; i++) {
		snprintf(want, sizeof(want), "%s/cgroup.procs", cg.path);
		slurp(want, procs, sizeof(procs));
		if (procs[0])
			break;
		usleep(10000);
	}
	T_CHECK(atoi(procs) == g, "%s holds '%s', want %d\n", cg.path, procs, (int)g);
	kill(g, SIGKILL);
	waitpid(g, &status, 0);
	ret = cgroup_v2_unplace(&cg, ctl);
	T_CHECK(!ret, "unplace: %s\n", strerror(-ret));
	cgroup_of(getpid(), at, sizeof(at));
	T_CHECK(!strcmp(at, own), "back in %s, want %s\n", at, own);
	T_CHECK(!lists(own, "cgroup.subtree_control", ctl), "%s still enabled in %s\n", ctl,
		own);
	children(own, NULL, found, sizeof(found));
	T_CHECK(!found[0], "left below %s: %s\n", own, found);
	return 0;
}

/* With another process in own: refused, with why, and nothing left. */
static int refused_busy(void)
{
	char at[PATH_MAX], left[4096];
	struct cgroup cg;
	pid_t other = fork();
	int ret;

	if (!other)
		_exit(pause());
	ret = cgroup_v2_place(&cg, own, ctl, 0, getpid());
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
	T_CHECK(ret == -EBUSY, "place with a neighbour: %s, want EBUSY\n", strerror(-ret));
	printf("refused: %s\n", cg.why);
	fflush(stdout);
	T_CHECK(strstr(cg.why, own) && strstr(cg.why, "other processes"), "why: %s\n", cg.why);
	cgroup_of(getpid(), at, sizeof(at));
	T_CHECK(!strcmp(at, own), "left in %s, want %s\n", at, own);
	T_CHECK(!lists(own, "cgroup.subtree_control", ctl), "%s left enabled\n", ctl);
	children(own, NULL, left, sizeof(left));
	T_CHECK(!left[0], "left below %s: %s\n", own, left);
	return 0;
}

/* A controller own was not given: refused before anything is made. */
static int refused_controller(void)
{
	char left[4096];
	struct cgroup cg;
	int ret = cgroup_v2_place(&cg, own, "nosuch", 0, getpid());

	T_CHECK(ret == -EOPNOTSUPP, "place nosuch: %s\n", strerror(-ret));
	printf("refused: %s\n", cg.why);
	fflush(stdout);
	T_CHECK(strstr(cg.why, "not delegated") && strstr(cg.why, own), "why: %s\n", cg.why);
	children(own, NULL, left, sizeof(left));
	T_CHECK(!left[0], "left below %s: %s\n", own, left);
	return 0;
}

/* Killed while placed: its tree goes with cgroup_remove_path(). */
static int killed(void)
{
	char top[PATH_MAX] = "", left[4096];
	int fds[2], ret;
	struct stat st;
	pid_t c;

	T_CHECK(!pipe(fds), "pipe\n");
	c = fork();
	if (!c) {
		struct cgroup cg;

		if (cgroup_v2_place(&cg, own, ctl, 0, getpid()) ||
		    write(fds[1], cg.top, strlen(cg.top)) <= 0)
			_exit(1);
		pause();
	}
	close(fds[1]);
	T_CHECK(read(fds[0], top, sizeof(top) - 1) > 0, "child placed nothing\n");
	close(fds[0]);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	T_CHECK(!stat(top, &st), "%s gone with its maker\n", top);
	ret = cgroup_remove_path(top, 2);
	T_CHECK(!ret, "remove %s: %s\n", top, strerror(-ret));
	children(own, NULL, left, sizeof(left));
	T_CHECK(!left[0], "left below %s: %s\n", own, left);
	return 0;
}

/* After a failed check: own's tree away, its tasks to the mount's root. */
static void remove_left(void)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "for f in $(find '%s' -name cgroup.procs); do "
		 "for p in $(cat $f); do echo $p > '%s/cgroup.procs'; done; done; "
		 "find '%s' -mindepth 1 -depth -type d -exec rmdir {} \\;", own, mnt, own);
	if (system(cmd))
		fprintf(stderr, "cannot remove all of %s\n", own);
}

/* Run @fn in a child moved alone into own; its exit status. */
static int alone_in_own(int (*fn)(void))
{
	int status;
	pid_t c = fork();

	if (!c) {
		if (put(own, "cgroup.procs", "0"))
			_exit(2);
		_exit(fn());
	}
	waitpid(c, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void)
{
	int enabled = 0, rc = 0;
	char text[80];

	if (geteuid())
		t_skip("cgroups need root");
	if (find_v2())
		t_skip("no cgroup2 mount with a domain controller (memory, hugetlb, io, rdma, misc)");
	snprintf(own, sizeof(own), "%s/pc-test-v2-%d", mnt, (int)getpid());
	if (!lists(mnt, "cgroup.subtree_control", ctl)) {
		snprintf(text, sizeof(text), "+%s", ctl);
		T_CHECK(!put(mnt, "cgroup.subtree_control", text), "cannot enable %s in %s\n",
			ctl, mnt);
		enabled = 1;
	}
	T_CHECK(!mkdir(own, 0755), "mkdir %s: %s\n", own, strerror(errno));
	printf("v2 at %s, controller %s, own %s\n", mnt, ctl, own);
	fflush(stdout);
	rc = alone_in_own(placed);
	if (!rc)
		rc = alone_in_own(refused_busy);
	if (!rc)
		rc = alone_in_own(refused_controller);
	if (!rc)
		rc = killed();
	if (rc)	/* what a failed check left: tasks to the mount's root, dirs away */
		remove_left();
	rmdir(own);
	if (enabled) {
		snprintf(text, sizeof(text), "-%s", ctl);
		put(mnt, "cgroup.subtree_control", text);	/* EBUSY: another's */
	}
	if (rc)
		t_fail("a check failed (status %d)\n", rc);
	printf("PASS\n");
	return T_EXIT_PASS;
}
