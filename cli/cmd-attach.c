// SPDX-License-Identifier: MIT
/*
 * pagecliff attach: follow running processes (by pid, a cgroup's members or
 * the whole host) from outside with the watcher (outside/), which drops the
 * pages of the files they stream behind their cursors and changes nothing
 * in the processes themselves.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "outside.h"
#include "sample.h"
#include "supervise.h"
#include "util.h"

struct attach_opts {
	struct pco_opts w;
	double secs;
	const char *stats;
};

enum { ATTACH_STATS = CMD_LONG, ATTACH_CGROUP, ATTACH_ALL, ATTACH_FOR, ATTACH_NO_CHILDREN,
       ATTACH_UNTIL_EMPTY };

static const struct cmd_option attach_options[] = {
	{ "cgroup", ATTACH_CGROUP, CMD_ARG_REQUIRED, "PATH",
	  "follow the processes of a cgroup (v1 or v2),\nalso those started in it later, until the\ncgroup is removed" },
	{ "until-empty", ATTACH_UNTIL_EMPTY, CMD_ARG_NONE, NULL,
	  "with --cgroup: end once the cgroup, having\nhad processes, has none left" },
	{ "all", ATTACH_ALL, CMD_ARG_NONE, NULL, "follow every process of the host" },
	{ "for", ATTACH_FOR, CMD_ARG_REQUIRED, "TIME", "stop after TIME (30s, 5m, 2h)" },
	{ "min-size", 's', CMD_ARG_REQUIRED, "SIZE",
	  "sequential bytes before acting, fio units; default 8m" },
	{ "no-children", ATTACH_NO_CHILDREN, CMD_ARG_NONE, NULL,
	  "do not follow children started later" },
	{ "stats", ATTACH_STATS, CMD_ARG_OPTIONAL, "[=FILE]",
	  "a line per stream at its end, on stderr\nor appended to FILE" },
	{ 0 },
};

static void attach_option(void *state, int key, const char *arg)
{
	struct attach_opts *o = state;
	uint64_t size;

	switch (key) {
	case ATTACH_CGROUP:
		o->w.cgroup = arg;
		break;
	case ATTACH_ALL:
		o->w.all = 1;
		break;
	case ATTACH_UNTIL_EMPTY:
		o->w.until_empty = 1;
		break;
	case ATTACH_FOR:
		if (parse_duration(arg, &o->secs) || o->secs <= 0)
			usage_error("bad --for '%s': a time such as 30s, 5m or 2h", arg);
		break;
	case 's':
		if (parse_size(arg, &size))
			usage_error("bad --min-size '%s': a size such as 8m or 1g", arg);
		o->w.min_size = size;
		break;
	case ATTACH_NO_CHILDREN:
		o->w.follow_children = 0;
		break;
	case ATTACH_STATS:
		o->stats = arg && *arg ? arg : "";
		break;
	}
}

static volatile sig_atomic_t attach_stop;

static int check_cgroup(const char *path)
{
	char procs[PATH_MAX];

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	if (access(procs, R_OK))
		return error("cannot follow cgroup '%s': %s", path,
			     errno == ENOENT ? "not a cgroup (no cgroup.procs)" : strerror(errno));
	return 0;
}

/* One past the highest pid (/proc/sys/kernel/pid_max); 2^22, the kernel's
 * limit, when it cannot be read. */
static long pid_limit(void)
{
	uint64_t max;

	if (sample_read_u64(NULL, "/proc/sys/kernel/pid_max", &max) || max < 2 || max > INT_MAX)
		return 1L << 22;
	return (long)max;
}

/*
 * The operands as pids: decimal digits only, 1 to pid_max - 1 (no sign,
 * blank or base that strtol lets by); another is a bad command line.
 */
static void parse_pids(int argc, char **argv, pid_t *pids)
{
	const long limit = pid_limit();

	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		size_t digits = strspn(s, "0123456789");
		long pid = 0;

		for (size_t j = 0; j < digits && pid < limit; j++)
			pid = pid * 10 + (s[j] - '0');
		if (!digits || s[digits] || pid < 1 || pid >= limit)
			usage_error("bad process id '%s': a number from 1 to %ld", s, limit - 1);
		pids[i] = (pid_t)pid;
	}
}

/*
 * Refuse a process that has nothing to follow, in one line: this one, a
 * kernel thread (kthreadd and its children hold no files) or a zombie (it
 * closed its files when it exited).  One whose stat cannot be read is left
 * to the watcher, which says why.
 */
static int check_pid(pid_t pid)
{
	struct sample_task_kind k;

	if (pid == getpid())
		return error("cannot attach to process %d: it is this pagecliff attach itself",
			     (int)pid);
	if (sample_read_task_kind(NULL, pid, &k))
		return 0;
	if (k.flags & SAMPLE_PF_KTHREAD)
		return error("cannot attach to process %d: it is a kernel thread: it has no files "
			     "to follow", (int)pid);
	if ((k.state == 'Z' || k.state == 'X') && k.threads <= 1)
		return error("cannot attach to process %d: it is a zombie (it has exited, its "
			     "parent has not reaped it): it has no files to follow", (int)pid);
	return 0;
}

static int check_pids(int n, const pid_t *pids)
{
	for (int i = 0; i < n; i++)
		if (check_pid(pids[i]))
			return -1;
	return 0;
}

static int cmd_attach(int argc, char **argv)
{
	struct attach_opts o = { 0 };
	struct pco_watcher *w = NULL;
	pid_t *pids = NULL;
	char why[256];
	int first, err, ret = 1;

	pco_opts_init(&o.w);
	first = cmd_parse(&cmd_attach_entry, argc, argv, &o);
	if (first == argc && !o.w.cgroup && !o.w.all)
		usage_error("nothing to attach to: give PIDs, --cgroup PATH or --all");
	if (!!o.w.cgroup + o.w.all + (first < argc) > 1)
		usage_error("give PIDs, --cgroup PATH or --all, one of them");
	if (o.w.until_empty && !o.w.cgroup)
		usage_error("--until-empty goes with --cgroup");
	pids = calloc(argc - first + 1, sizeof(*pids));
	if (!pids)
		return error("cannot attach: out of memory");
	parse_pids(argc - first, argv + first, pids);
	if (check_pids(argc - first, pids) || (o.w.cgroup && check_cgroup(o.w.cgroup)))
		goto out;
	o.w.stats_fd = sup_stats_fd(o.stats);
	if (o.w.stats_fd < -1)
		goto out;
	err = pco_watcher_start(&o.w, pids, argc - first, &w, why, sizeof(why));
	if (err == -ENOSYS || err == -ENOMEM || err == -EINVAL)
		error("cannot attach: %s", why);
	else if (err)
		error("cannot attach to %s", why);
	if (err)
		goto out;
	/* SIGINT, SIGTERM and SIGHUP end attach cleanly: streams finished, fds closed. */
	sup_catch_stop(&attach_stop);
	pco_watcher_loop(w, 0, o.secs, &attach_stop, NULL);
	ret = 0;
out:
	pco_watcher_free(w);
	free(pids);
	if (o.w.stats_fd > 2)
		close(o.w.stats_fd);
	return ret;
}

const struct cmd_entry cmd_attach_entry = {
	.name = "attach",
	.summary = "keep running programs from flooding the page cache, from outside",
	.usage = "[--for TIME] [--stats[=FILE]] PID... | --cgroup PATH | --all",
	.about = "Follow running processes from outside and drop the pages of the files\n"
		 "they read or write sequentially past SIZE behind their cursors (written\n"
		 "back first for writers), as `pagecliff run` does; pages cached before\n"
		 "a stream reached them and pages others dirtied stay cached.  Runs until\n"
		 "the processes exit, TIME has passed, or SIGINT/SIGTERM.  Children started\n"
		 "later are followed.  Programs reading through mmap are out of reach.\n\n"
		 "A PID is decimal digits, 1 to pid_max - 1.  Kernel threads, zombies\n"
		 "and attach itself, which have no files to follow, are refused.",
	.options = attach_options,
	.width = 19,
	.operands = { 0, -1 },
	.flags = CMD_PIDS,
	.option = attach_option,
	.exec = cmd_attach,
};
