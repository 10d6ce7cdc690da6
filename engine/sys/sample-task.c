// SPDX-License-Identifier: MIT
/*
 * Tasks of /proc: a process's CPU and how many of its threads wait in D
 * state, and the CPU of the kswapd threads, found by a scan of /proc once
 * and then read by their pids.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "sample-internal.h"

static int is_pid_name(const char *name)
{
	if (!*name)
		return 0;
	for (; *name; name++) {
		if (!isdigit((unsigned char)*name))
			return 0;
	}
	return 1;
}

/*
 * Call @fn with "@rel/NAME" for every entry of the directory @rel (under
 * @root) named by a number: the processes of /proc, the threads of a task/.
 */
static int for_each_pid(const char *root, const char *rel,
			void (*fn)(const char *root, const char *sub, void *arg),
			void *arg)
{
	char path[PATH_MAX], sub[600];
	struct dirent *de;
	DIR *dir;
	int err;

	err = sample_path(root, rel, path, sizeof(path));
	if (err)
		return err;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (is_pid_name(de->d_name) &&
		    snprintf(sub, sizeof(sub), "%s/%s", rel, de->d_name) < (int)sizeof(sub))
			fn(root, sub, arg);
	}
	closedir(dir);
	return 0;
}

/* Read the stat file of the task directory @sub (under @root). */
static int read_task_stat(const char *root, const char *sub, struct sample_task *ret,
			  char *ret_state)
{
	char rel[700];

	snprintf(rel, sizeof(rel), "%s/stat", sub);
	return SAMPLE_READ_WITH(root, rel, sample_parse_task_stat, ret, ret_state);
}

struct thread_count {
	unsigned int dstate, all;
};

/* Count thread @sub, and whether it is in D state. */
static void count_thread(const char *root, const char *sub, void *arg)
{
	struct thread_count *c = arg;
	struct sample_task t;
	char state;

	if (read_task_stat(root, sub, &t, &state))
		return;		/* the thread exited meanwhile */
	c->all++;
	c->dstate += state == 'D';
}

int sample_read_proc(const char *root, pid_t pid, struct sample_task *ret,
		     unsigned int *ret_dstate, unsigned int *ret_threads)
{
	char pdir[64], rel[128];
	struct thread_count c = { 0, 0 };
	struct sample_task t;
	int err;

	sample_proc_dir(pid, pdir, sizeof(pdir));
	err = read_task_stat(root, pdir, &t, NULL);
	if (err)
		return err;
	if (ret_dstate || ret_threads) {
		snprintf(rel, sizeof(rel), "%s/task", pdir);
		err = for_each_pid(root, rel, count_thread, &c);
		if (err)
			return err;
	}
	*ret = t;
	if (ret_dstate)
		*ret_dstate = c.dstate;
	if (ret_threads)
		*ret_threads = c.all;
	return 0;
}

int sample_read_task_kind(const char *root, pid_t pid, struct sample_task_kind *ret)
{
	char pdir[64], rel[80];

	sample_proc_dir(pid, pdir, sizeof(pdir));
	snprintf(rel, sizeof(rel), "%s/stat", pdir);
	return SAMPLE_READ_WITH(root, rel, sample_parse_task_kind, ret);
}

struct kswapd_sum {
	struct sample_task cpu;
	unsigned int threads;
	struct sample_kswapd_pids found;	/* n past the maximum: too many */
};

/* The CPU of task @sub (under @root) into @sum when its comm starts with
 * "kswapd"; 0, or -ESRCH when it does not or is gone. */
static int add_kswapd(const char *root, const char *sub, struct kswapd_sum *sum)
{
	char rel[700], comm[64];
	struct sample_task t;

	snprintf(rel, sizeof(rel), "%s/comm", sub);
	if (sample_read_text(root, rel, comm, sizeof(comm)) ||
	    strncmp(comm, "kswapd", 6) || read_task_stat(root, sub, &t, NULL))
		return -ESRCH;
	sum->cpu.utime += t.utime;
	sum->cpu.stime += t.stime;
	sum->threads++;
	return 0;
}

/* for_each_pid()'s callback: add task "/proc/PID" when it is a kswapd. */
static void add_if_kswapd(const char *root, const char *sub, void *arg)
{
	struct kswapd_sum *sum = arg;

	if (add_kswapd(root, sub, sum))
		return;
	if (sum->found.n < SAMPLE_KSWAPD_MAX)
		sum->found.pid[sum->found.n] = (pid_t)atol(sub + strlen("/proc/"));
	sum->found.n++;
}

/* The threads of @known, all still kswapd threads; -ESRCH when one is not. */
static int read_known_kswapd(const char *root, const struct sample_kswapd_pids *known,
			     struct kswapd_sum *sum)
{
	char sub[32];

	for (unsigned int i = 0; i < known->n; i++) {
		snprintf(sub, sizeof(sub), "/proc/%ld", (long)known->pid[i]);
		if (add_kswapd(root, sub, sum))
			return -ESRCH;
	}
	return 0;
}

int sample_read_kswapd(const char *root, struct sample_kswapd_pids *known,
		       struct sample_task *ret, unsigned int *ret_threads)
{
	struct kswapd_sum sum = { { 0, 0 }, 0, { { 0 }, 0 } };
	int err = -ESRCH;

	if (known && known->n)
		err = read_known_kswapd(root, known, &sum);
	if (err) {
		memset(&sum, 0, sizeof(sum));
		err = for_each_pid(root, "/proc", add_if_kswapd, &sum);
		if (known)
			*known = sum.found.n <= SAMPLE_KSWAPD_MAX ? sum.found :
				(struct sample_kswapd_pids){ .n = 0 };
	}
	if (err)
		return err;
	if (!sum.threads)
		return -ENOENT;
	*ret = sum.cpu;
	if (ret_threads)
		*ret_threads = sum.threads;
	return 0;
}
