// SPDX-License-Identifier: MIT
/*
 * pagecliff bench: reproduce the page-cache cliff, one phase per read mode
 * over the same files, sampled every interval, judged and charted.  This
 * file parses the job (fio's option names where they overlap), sets up and
 * always tears down what it needs (testbed, memory cgroup, data set), and
 * writes the report.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cgroup.h"
#include "cmd.h"
#include "sample.h"
#include "testbed.h"
#include "util.h"

atomic_int bench_stop;
static atomic_int stop_signal;

/* What makes them safe to store from a signal handler. */
static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic_int must be lock-free");

enum {
	OPT_IOENGINE = 256, OPT_IODEPTH, OPT_RUNTIME, OPT_TIME_BASED, OPT_DIRECT,
	OPT_API, OPT_MEM_ALIGN, OPT_NUMA, OPT_MEM_LIMIT, OPT_TESTBED, OPT_KEEP,
	OPT_INTERVAL, OPT_FORMAT, OPT_TIMELINE, OPT_PLOT, OPT_CLEANUP, OPT_RW,
	OPT_NO_TRACE = 512,
};

/* The options, in the order --help lists them; the rows without help are
 * other names for the row above (fio's spellings). */
static const struct cmd_option bench_options[] = {
	{ "directory", 'd', CMD_ARG_REQUIRED, "DIR[:DIR...]",
	  "one per device; files go in DIR/pagecliff-bench/" },
	{ "numjobs", 'j', CMD_ARG_REQUIRED, "N",
	  "threads per directory, each its own file (default 1)" },
	{ "size", 's', CMD_ARG_REQUIRED, "SIZE", "bytes per thread (default 1g)" },
	{ "bs", 'b', CMD_ARG_REQUIRED, "SIZE", "bytes per read or write, 512 to 1g (default 1m)" },
	{ "rw", OPT_RW, CMD_ARG_REQUIRED, "read|write",
	  "read the data set (default), or write fresh files\n"
	  "per mode through the write stream, each ended by\n"
	  "fdatasync inside the phase (fio's end_fsync=1)" },
	{ "readwrite", OPT_RW, CMD_ARG_REQUIRED, NULL, NULL },
	{ "ioengine", OPT_IOENGINE, CMD_ARG_REQUIRED, "sync|psync|io_uring",
	  "\nsync, psync: direct mode keeps 1 read in flight;\n"
	  "io_uring: --iodepth reads in flight (default 1);\n"
	  "unset: the library's default (8); buffered modes\n"
	  "always use pread/preadv2" },
	{ "iodepth", OPT_IODEPTH, CMD_ARG_REQUIRED, "N",
	  "reads in flight for direct mode, 1 to 1024 (at most\n"
	  "64 MiB in flight per thread)" },
	{ "runtime", OPT_RUNTIME, CMD_ARG_REQUIRED, "TIME",
	  "at most TIME per mode (30, 30s, 500ms, 2m)" },
	{ "time_based", OPT_TIME_BASED, CMD_ARG_NONE, NULL,
	  "loop over the files until --runtime ends" },
	{ "time-based", OPT_TIME_BASED, CMD_ARG_NONE, NULL, NULL },
	{ "direct", OPT_DIRECT, CMD_ARG_REQUIRED, "0|1",
	  "without --mode: 0 = buffered, 1 = direct" },
	{ "mode", 'm', CMD_ARG_REQUIRED, "LIST",
	  "of " CMD_HELP_MODES "\n"
	  "(default buffered,direct,auto), one phase each" },
	{ "api", OPT_API, CMD_ARG_REQUIRED, "copy|zerocopy",
	  "pc_stream_read into bench's buffer (default)\n"
	  "or borrow the library's with pc_stream_next;\n"
	  "writes: pc_wstream_write, or fill lent buffers" },
	{ "mem-align", OPT_MEM_ALIGN, CMD_ARG_REQUIRED, "N",
	  "buffer offset from a page, 0-4095 (default 0)" },
	{ "numa", OPT_NUMA, CMD_ARG_NONE, NULL,
	  "pin each directory's threads to its device's node" },
	{ "mem-limit", OPT_MEM_LIMIT, CMD_ARG_REQUIRED, "SIZE",
	  "run the workers in a memory cgroup of SIZE; buffers\n"
	  "over half of it are refused (see the man page)" },
	{ "testbed", OPT_TESTBED, CMD_ARG_REQUIRED, "ram:[COUNTx]SIZE",
	  "(root) COUNT devices (default 1), each XFS on a\n"
	  "loop device over SIZE of tmpfs, one directory each\n"
	  "(--numjobs threads per device)" },
	{ "keep", OPT_KEEP, CMD_ARG_NONE, NULL, "keep the data set (else removed at the end)" },
	{ "interval", OPT_INTERVAL, CMD_ARG_REQUIRED, "TIME",
	  "sampling interval, 100ms to 1h (default 1s; 100ms in\n"
	  "the built-in job)" },
	{ "output-format", OPT_FORMAT, CMD_ARG_REQUIRED, "text|json|csv",
	  "the report's format (default text)" },
	{ "output", 'o', CMD_ARG_REQUIRED, "FILE", "report to FILE instead of standard output" },
	{ "timeline", OPT_TIMELINE, CMD_ARG_REQUIRED, "FILE", "every interval as CSV" },
	{ "plot", OPT_PLOT, CMD_ARG_REQUIRED, "FILE", "SVG chart" },
	{ "cleanup", OPT_CLEANUP, CMD_ARG_NONE, NULL,
	  "only remove what killed runs left, and exit" },
	{ "quiet", 'q', CMD_ARG_NONE, NULL, "no live status line" },
	{ "no-trace", OPT_NO_TRACE, CMD_ARG_NONE, NULL,
	  "no kernel-event tracing (reclaim and lock time):\n"
	  "the /proc counters only" },
	{ 0 },
};

static void on_signal(int sig)
{
	bench_stop = 1;
	stop_signal = sig;
}

/* Split @list at @sep into @ret_items (at most @max); an empty item, or
 * more than @max, is a usage error naming @opt. */
static unsigned int split_list(const char *opt, char *list, char sep, char **ret_items,
			       unsigned int max)
{
	unsigned int n = 0;

	for (char *p = list;; p++) {
		char *end = strchr(p, sep);

		if (end)
			*end = '\0';
		if (!*p)
			usage_error("empty item in %s (items are separated by '%c')", opt, sep);
		if (n == max)
			usage_error("too many items in %s (at most %u)", opt, max);
		ret_items[n++] = p;
		if (!end)
			break;
		p = end;
	}
	return n;
}

static void parse_modes(struct bench_job *job, const char *list)
{
	char *copy = strdup(list), *items[BENCH_MAX_MODES], names[128];
	unsigned int n;

	if (!copy)
		die("out of memory");
	n = split_list("--mode", copy, ',', items, BENCH_MAX_MODES);
	job->nmodes = 0;
	for (unsigned int i = 0; i < n; i++)
		if (pc_strategy_parse(items[i], &job->modes[job->nmodes++]))
			usage_error("unknown mode '%s' in --mode (%s)", items[i],
				    cmd_mode_names(CMD_ALL_MODES, names, sizeof(names)));
	free(copy);
}

/*
 * Whether bench can make its files under @dir: write and search permission
 * in the folder when it is there, else in @dir; checked up front so that a
 * read-only directory is a usage error, not a failure after setting up.
 */
static int dir_writable(const char *dir)
{
	char folder[4096 + 32];
	struct stat st;

	snprintf(folder, sizeof(folder), "%s/" BENCH_FOLDER, dir);
	if (!lstat(folder, &st) && S_ISDIR(st.st_mode))
		dir = folder;
	return faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) ? -errno : 0;
}

static void parse_dirs(struct bench_job *job, const char *list)
{
	char *copy = strdup(list), *items[BENCH_MAX_DIRS];
	struct stat seen[BENCH_MAX_DIRS];
	unsigned int n;

	if (!copy)
		die("out of memory");
	n = split_list("--directory", copy, ':', items, BENCH_MAX_DIRS - job->ndirs);
	for (unsigned int i = 0; i < job->ndirs; i++)
		if (stat(job->dirs[i], &seen[i]))
			usage_error("cannot use directory '%s': %s", job->dirs[i], strerror(errno));
	for (unsigned int i = 0; i < n; i++) {
		const char *tok = items[i];
		struct stat *st = &seen[job->ndirs];
		int ret;

		if (stat(tok, st))
			usage_error("cannot use directory '%s': %s", tok, strerror(errno));
		if (!S_ISDIR(st->st_mode))
			usage_error("cannot use directory '%s': not a directory", tok);
		for (unsigned int j = 0; j < job->ndirs; j++)
			if (seen[j].st_dev == st->st_dev && seen[j].st_ino == st->st_ino)
				usage_error("directory '%s' is given twice (as '%s' before): "
					    "its threads would use the same files", tok,
					    job->dirs[j]);
		if ((ret = dir_writable(tok)))
			usage_error("cannot write in directory '%s': %s", tok, strerror(-ret));
		job->dirs[job->ndirs++] = strdup(tok);
	}
	free(copy);
}

static uint64_t size_arg(const char *opt, const char *arg, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (parse_size(arg, &v) || v < min || v > max)
		usage_error("bad %s '%s': a size from %llu bytes, in fio units (4k, 1m, 20g)",
			    opt, arg, (unsigned long long)min);
	return v;
}

static unsigned int count_arg(const char *opt, const char *arg, uint64_t max)
{
	uint64_t v;

	if (parse_uint(arg, 1, max, &v))
		usage_error("bad %s '%s': a whole number from 1 to %llu", opt, arg,
			    (unsigned long long)max);
	return (unsigned int)v;
}

static void parse_value_opt(struct bench_job *job, struct bench_given *g, int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case OPT_IOENGINE:
		if (!strcmp(arg, "sync"))
			job->engine = BENCH_ENGINE_SYNC;
		else if (!strcmp(arg, "psync") || !strcmp(arg, "pvsync2"))
			job->engine = BENCH_ENGINE_PSYNC;
		else if (!strcmp(arg, "io_uring"))
			job->engine = BENCH_ENGINE_URING;
		else
			usage_error("unknown --ioengine '%s' (sync, psync, io_uring)", arg);
		break;
	case OPT_IODEPTH:
		job->iodepth = count_arg("--iodepth", arg, BENCH_MAX_IODEPTH);
		break;
	case OPT_RUNTIME:
		if (parse_duration(arg, &job->runtime) || job->runtime <= 0)
			usage_error("bad --runtime '%s': a positive time (30, 30s, 500ms, 2m)", arg);
		g->runtime = 1;
		break;
	case OPT_INTERVAL:
		if (parse_duration(arg, &job->interval) || job->interval < 0.1 ||
		    job->interval > 3600)
			usage_error("bad --interval '%s': a time from 100ms to 1h (500ms, 2s, 1m; "
				    "a bare number is seconds)", arg);
		g->interval = 1;
		break;
	case OPT_DIRECT:
		if (strcmp(arg, "0") && strcmp(arg, "1"))
			usage_error("bad --direct '%s': 0 or 1", arg);
		job->direct = arg[0] - '0';
		break;
	case OPT_API:
		if (!strcmp(arg, "copy"))
			job->api = BENCH_COPY;
		else if (!strcmp(arg, "zerocopy"))
			job->api = BENCH_ZEROCOPY;
		else
			usage_error("unknown --api '%s' (copy, zerocopy)", arg);
		break;
	case OPT_MEM_ALIGN:
		if (parse_uint(arg, 0, 4095, &v))
			usage_error("bad --mem-align '%s': a byte offset from 0 to 4095", arg);
		job->mem_align = v;
		break;
	case OPT_MEM_LIMIT:
		job->mem_limit = size_arg("--mem-limit", arg, 16u << 20, UINT64_MAX / 2);
		g->mem_limit = 1;
		break;
	case OPT_TESTBED: testbed_parse(arg, &job->testbed, &job->testbed_devices); break;
	case OPT_RW:
		if (!strcmp(arg, "read"))
			job->rw = BENCH_READ;
		else if (!strcmp(arg, "write"))
			job->rw = BENCH_WRITE;
		else
			usage_error("unknown --rw '%s' (read, write)", arg);
		break;
	case OPT_FORMAT:
		if (!strcmp(arg, "text"))
			job->format = BENCH_TEXT;
		else if (!strcmp(arg, "json"))
			job->format = BENCH_JSON;
		else if (!strcmp(arg, "csv"))
			job->format = BENCH_CSV;
		else
			usage_error("unknown --output-format '%s' (text, json, csv)", arg);
		break;
	}
}

/* The job and what the command line set, for bench_option(). */
struct bench_parse {
	struct bench_job *job;
	struct bench_given *g;
};

static void bench_option(void *state, int key, const char *arg)
{
	struct bench_job *job = ((struct bench_parse *)state)->job;
	struct bench_given *g = ((struct bench_parse *)state)->g;

	switch (key) {
	case 'd': parse_dirs(job, arg); break;
	case 'j': job->numjobs = count_arg("--numjobs", arg, BENCH_MAX_JOBS); g->numjobs = 1; break;
	case 's': job->size = size_arg("--size", arg, 4096, UINT64_MAX / 2); g->size = 1; break;
	case 'b': job->bs = size_arg("--bs", arg, 512, BENCH_MAX_BS); break;
	case 'm': parse_modes(job, arg); g->modes = 1; break;
	case 'o': job->output = arg; break;
	case 'q': job->quiet = 1; break;
	case OPT_TIME_BASED: job->time_based = 1; g->time_based = 1; break;
	case OPT_NUMA: job->numa = 1; break;
	case OPT_KEEP: job->keep = 1; break;
	case OPT_TIMELINE: job->timeline = arg; break;
	case OPT_PLOT: job->plot = arg; g->plot = 1; break;
	case OPT_CLEANUP: g->cleanup = 1; break;
	case OPT_NO_TRACE: job->no_trace = 1; break;
	default: parse_value_opt(job, g, key, arg); break;
	}
}

void bench_parse_opts(int argc, char **argv, struct bench_job *job, struct bench_given *g)
{
	struct bench_parse p = { job, g };

	cmd_parse(&cmd_bench_entry, argc, argv, &p);
}

/* Fill in what the command line left open; the built-in job when no
 * directory was given. */
static void apply_defaults(struct bench_run *run, const struct bench_given *g)
{
	struct bench_job *job = &run->job;

	job->builtin = !job->ndirs && !job->testbed;
	if (!g->modes) {
		if (job->direct == 1)
			parse_modes(job, "direct");
		else if (job->direct == 0)
			parse_modes(job, "buffered");
		else
			parse_modes(job, "buffered,direct,auto");
	} else if (job->direct == 1) {
		for (unsigned int m = 0; m < job->nmodes; m++)
			if (job->modes[m] != PC_DIRECT)
				usage_error("--direct=1 conflicts with --mode %s",
					    pc_strategy_name(job->modes[m]));
	}
	if (!job->bs)
		job->bs = 1u << 20;
	/* The built-in job samples at the shortest interval: its 1 GiB cap
	 * fills in a fraction of a second at full speed, and the verdict needs
	 * two intervals before it to measure the mode's own speed there. */
	if (!g->interval)
		job->interval = job->builtin ? 0.1 : 1;
	if (job->builtin) {
		if (!g->numjobs)
			job->numjobs = 2;
		if (!g->size)
			job->size = 2ull << 30;
		if (!g->runtime && job->rw == BENCH_READ) {
			job->runtime = 10;
			job->time_based = 1;
		}
		if (!g->plot)
			job->plot = "pagecliff-bench.svg";
		if (!g->mem_limit)
			job->mem_limit = 1ull << 30;	/* without root: if it can */
		if (!geteuid())
			job->testbed = (uint64_t)job->numjobs * job->size * 9 / 8 + (256u << 20);
	}
	if (!job->numjobs)
		job->numjobs = 1;
	if (!job->size)
		job->size = 1ull << 30;
	if (job->time_based && !(job->runtime > 0))
		usage_error("--time_based needs --runtime");
	if (job->time_based && job->rw == BENCH_WRITE)
		usage_error("--time_based reads the files again; with --rw write each phase "
			    "writes its files once (--runtime alone stops it early)");
	if (job->bs > job->size)
		usage_error("--bs %llu is larger than --size %llu",
			    (unsigned long long)job->bs, (unsigned long long)job->size);
}

/* Reads in flight per direct stream, as worker_opts() sets them. */
static uint64_t job_depth(const struct bench_job *job)
{
	if (job->engine == BENCH_ENGINE_URING)
		return job->iodepth ? job->iodepth : 1;
	if (job->engine != BENCH_ENGINE_DEFAULT)
		return 1;
	return job->iodepth ? job->iodepth : 8;	/* the library's default */
}

/*
 * The memory the workers need beside the page cache (see the man page):
 * per thread its read buffer (bs + a page; the library's with --api
 * zerocopy) and, when a mode may read direct, min(depth x bs, ceiling) in
 * flight; plus BENCH_MEM_BASE.
 */
/* Worker threads: --numjobs per directory, or per testbed device. */
static unsigned int job_threads(const struct bench_job *job)
{
	unsigned int dirs = job->ndirs ? job->ndirs :
			    job->testbed && job->testbed_devices ? job->testbed_devices : 1;

	return dirs * job->numjobs;
}

static uint64_t job_memory(const struct bench_job *job, uint64_t *ret_inflight)
{
	uint64_t threads = job_threads(job), inflight = 0;

	for (unsigned int m = 0; m < job->nmodes; m++)
		if (job->modes[m] == PC_DIRECT || job->modes[m] == PC_AUTO)
			inflight = job_depth(job) * job->bs;
	if (inflight > BENCH_DIRECT_CEILING)
		inflight = BENCH_DIRECT_CEILING;
	*ret_inflight = inflight;
	return threads * (job->bs + 4096 + inflight) + BENCH_MEM_BASE;
}

/* Refuse a job whose buffers cannot fit: in half of --mem-limit (the rest is
 * for the page cache the run is about), or in half of the available memory. */
static void check_memory(const struct bench_job *job)
{
	uint64_t inflight, need = job_memory(job, &inflight);
	unsigned int threads = job_threads(job);
	struct sample_meminfo mi;
	char a[32], b[32], c[32], d[32];

	bench_size(job->bs + 4096, a, sizeof(a));
	bench_size(inflight, b, sizeof(b));
	bench_size(need, c, sizeof(c));
	if (job->mem_limit && need > job->mem_limit / 2)
		usage_error("--mem-limit %s cannot hold the job's buffers: %u thread%s x (%s read "
			    "buffer + %s of direct reads in flight) + %llu MiB = %s, more than "
			    "half the cap; use a smaller --bs or --numjobs, or a larger "
			    "--mem-limit", bench_size(job->mem_limit, d, sizeof(d)), threads,
			    threads == 1 ? "" : "s", a, b,
			    (unsigned long long)(BENCH_MEM_BASE >> 20), c);
	if (!sample_read_meminfo(NULL, &mi) && sample_known(mi.available) &&
	    need > mi.available / 2)
		usage_error("the job's buffers need %s (%u thread%s x (%s read buffer + %s of "
			    "direct reads in flight) + %llu MiB), more than half of the %s "
			    "available; use a smaller --bs or --numjobs", c, threads,
			    threads == 1 ? "" : "s", a, b,
			    (unsigned long long)(BENCH_MEM_BASE >> 20),
			    bench_size(mi.available, d, sizeof(d)));
}

/* Root-only options, memory and testbed size: before anything is made. */
static void check_job(struct bench_run *run)
{
	struct bench_job *job = &run->job;
	uint64_t data = (uint64_t)job->numjobs * job->size;
	struct sample_meminfo mi;

	if (job->testbed && job->ndirs)
		usage_error("--testbed and --directory exclude each other: the testbed is the directory");
	if (job->testbed && geteuid())
		usage_error("--testbed needs root: it creates a loop device, a tmpfs and a "
			    "file system mount; run as root or give --directory");
	if (job->testbed && data + data / 16 + (128u << 20) > job->testbed)
		usage_error("--testbed ram:%llu is too small for %u x %llu bytes of data "
			    "(needs about %llu)", (unsigned long long)job->testbed, job->numjobs,
			    (unsigned long long)job->size,
			    (unsigned long long)(data + data / 16 + (128u << 20)));
	if (job->testbed && !sample_read_meminfo(NULL, &mi) && sample_known(mi.available) &&
	    job->testbed > mi.available / 10 * 8)
		usage_error("--testbed ram:%llu is more than 80%% of the available memory "
			    "(%llu bytes)", (unsigned long long)job->testbed,
			    (unsigned long long)mi.available);
	if (job->mem_align >= job->bs)
		usage_error("--mem-align must be below --bs");
	check_memory(job);
	if (job->direct == 1 && job->mem_align)
		warning("--mem-align %llu: direct mode reads into the library's aligned buffers",
			(unsigned long long)job->mem_align);
}

static void print_stale(const char *what, const char *path, int result, void *arg)
{
	(void)arg;
	fprintf(stderr, "removed what a killed run left: %s %s%s%s\n", what, path,
		result ? ": " : "", result ? strerror(-result) : "");
}

static void print_stale_cgroup(const char *path, int result, void *arg)
{
	print_stale("cgroup", path, result, arg);
}

static void cleanup_stale(void)
{
	if (geteuid())
		return;
	state_cleanup_stale(print_stale, NULL);
	cgroup_remove_stale(print_stale_cgroup, NULL);
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Where the built-in job runs without root, and what it cannot do there. */
static void builtin_dir(struct bench_run *run)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	parse_dirs(&run->job, tmp);
	bench_note(run, "not root: no RAM testbed (needs a loop device and mounts), running "
		   "in %s; caches dropped with fadvise per file instead of drop_caches", tmp);
}

/*
 * The testbed's devices, one directory of the job each (--numjobs threads
 * per device, as per --directory); one line on stderr says what was made.
 */
static int setup_testbed(struct bench_run *run, struct testbed *tb)
{
	unsigned int count = run->job.testbed_devices ? run->job.testbed_devices : 1;
	size_t len = 0, cap = sizeof(run->testbed_desc);
	const char *step;
	char a[32];
	int ret;

	ret = testbed_create(tb, count, run->job.testbed, &bench_stop, &step);
	if (ret == -EINTR)
		return -1;	/* a signal: undone; bench_main says it was interrupted */
	if (ret)
		return error("cannot build the RAM testbed (%s): %s", step, strerror(-ret));
	for (unsigned int i = 0; i < tb->ndev; i++)
		run->job.dirs[run->job.ndirs++] = strdup(tb->dev[i].mnt);
	if (count == 1)
		len = snprintf(run->testbed_desc, cap, "%s on %s over a %s file in a tmpfs, "
			       "mounted at %s", tb->fstype, tb->dev[0].loopdev,
			       bench_size(tb->size, a, sizeof(a)), tb->dev[0].mnt);
	else
		len = snprintf(run->testbed_desc, cap, "%u devices, each %s on a loop device "
			       "over a %s file in one tmpfs, mounted at %s/mnt0-%u (", count,
			       tb->fstype, bench_size(tb->size, a, sizeof(a)), tb->base, count - 1);
	for (unsigned int i = 0; count > 1 && i < tb->ndev && len < cap; i++)
		len += snprintf(run->testbed_desc + len, cap - len, "%s%s", i ? " " : "",
				tb->dev[i].loopdev);
	if (count > 1 && len < cap)
		snprintf(run->testbed_desc + len, cap - len, ")");
	if (strcmp(tb->fstype, "xfs"))
		bench_note(run, "the testbed uses ext4: no mkfs.xfs, or under the 320 MiB XFS needs");
	fprintf(stderr, "testbed: %s\n", run->testbed_desc);
	return 0;
}

/*
 * Create the memory cgroup before anything else is made, so that a cap that
 * cannot be had is a usage error with nothing created (the built-in job
 * goes on without one and says so).  Returns 0, -1 (reported) or
 * -EXIT_USAGE.
 */
static int make_cgroup(struct bench_run *run, struct cgroup *cg)
{
	char a[32];
	int ret;

	ret = cgroup_create(cg, run->job.mem_limit, 0);
	if (!ret) {
		state_record("cgroup", cg->top);
		run->cgroup_version = cg->version;
		return 0;
	}
	cg->path[0] = '\0';
	if (run->job.builtin) {
		bench_note(run, "no memory cap: cannot create a memory cgroup (%s); the cliff "
			   "comes only after all of free memory", cg->why);
		return 0;
	}
	/* v2: only below the own cgroup, so the answer says how to get one */
	error("cannot create a memory cgroup of %s: %s%s",
	      bench_size(run->job.mem_limit, a, sizeof(a)), cg->why,
	      ret == -ENOENT ? "" : "; --mem-limit needs root on cgroup v1, on v2 a cgroup "
	      "delegated to it that holds no other process: run it under `systemd-run --scope "
	      "-p Delegate=yes`, or as root in such a cgroup");
	return -EXIT_USAGE;
}

/*
 * v1: move this process into the cgroup, after the layout: the data set's
 * own pages are not charged to it.  v2: cgroup_create() moved it to its
 * leaf beside the capped one already; the workers' process joins that
 * (bench-run.c), so the sampler is never charged to the cap.
 */
static int join_cgroup(struct bench_run *run, struct cgroup *cg)
{
	char a[32];
	int ret;

	if (!cg->path[0])
		return 0;
	ret = cg->version == 1 ? cgroup_attach(cg, getpid()) : 0;
	if (ret)
		return error("cannot join memory cgroup '%s': %s", cg->path, strerror(-ret));
	snprintf(run->cgroup_dir, sizeof(run->cgroup_dir), "%s", cg->path);
	run->cgroup_version = cg->version;
	fprintf(stderr, "memory cap: %s (cgroup v%d %s)\n",
		bench_size(run->job.mem_limit, a, sizeof(a)), cg->version, cg->path);
	return 0;
}

struct sampler {
	struct bench_run *run;
	sigset_t mask;			/* the caller's: signals come to this thread */
	int ret;
};

static void *sampler_main(void *arg)
{
	struct sampler *s = arg;
	struct bench_run *run = s->run;
	int ret;

	pthread_sigmask(SIG_SETMASK, &s->mask, NULL);
	ret = cgroup_move_thread(run->cgroup_home, (pid_t)syscall(SYS_gettid));
	if (ret) {
		s->ret = error("cannot move the sampler out of memory cgroup '%s': %s",
			       run->cgroup_dir, strerror(-ret));
		return NULL;
	}
	s->ret = bench_run_phases(run);
	return NULL;
}

/*
 * Run the phases in the cap.  On cgroup v1 the thread that samples and
 * starts the workers lives outside it: v1 charges the process's page cache
 * and anonymous memory to the cgroup of its leader (this thread, which
 * stays in the cap and waits) but a thread's kernel objects to its own,
 * and the sampler's are its thousands of /proc, sysfs and cgroup reads an
 * interval.  Charged to a cap full of page cache, one of those could not
 * be had and the cap's OOM killer took bench (seen 1 run in 12 under ASan:
 * killed in getdents and seq_read with 250 MiB of clean cache there).  A v2
 * cgroup holds whole processes: there the workers run in a child process
 * in the cap and this one stays outside it (bench-run.c).
 */
static int run_phases(struct bench_run *run, const struct cgroup *cg)
{
	struct sampler s = { .run = run };
	pthread_t thread;
	sigset_t all;
	int ret;

	if (!cg->path[0] || cg->version != 1)
		return bench_run_phases(run);
	snprintf(run->cgroup_home, sizeof(run->cgroup_home), "%s", cg->home);
	/* the handler sets bench_stop on the thread that reads it: this one
	 * takes no signal while the sampler lives */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &s.mask);
	ret = -pthread_create(&thread, NULL, sampler_main, &s);
	if (!ret)
		pthread_join(thread, NULL);
	pthread_sigmask(SIG_SETMASK, &s.mask, NULL);
	if (ret)
		return error("cannot start the sampler thread: %s", strerror(-ret));
	return s.ret;
}

/*
 * The files a run writes, opened before anything is made so that a path
 * that cannot be written is a usage error with nothing lost; truncated only
 * when the report is written, removed when bench made them and nothing came.
 */
struct output {
	const char *what;		/* "report", "timeline", "plot" */
	const char *path;
	char name[64];			/* the default chart's free name */
	int fd;
	int made;			/* this run created it */
};

enum { OUT_REPORT, OUT_TIMELINE, OUT_PLOT, OUT_N };
static struct output outputs[OUT_N] = {
	{ .what = "report", .fd = -1 }, { .what = "timeline", .fd = -1 },
	{ .what = "plot", .fd = -1 },
};

/* Whether @path is a chart bench wrote: a regular file with the marker. */
static int is_own_chart(const char *path)
{
	char head[512] = "";
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (n > 0)
		head[n] = '\0';
	return strstr(head, BENCH_CHART_MARKER) != NULL;
}

/* Open the default chart: ours to replace, or the first free name. */
static int open_default_chart(struct output *o)
{
	for (int n = 0; n < 100; n++) {
		int fd;

		if (n)
			snprintf(o->name, sizeof(o->name), "pagecliff-bench-%d.svg", n);
		else
			snprintf(o->name, sizeof(o->name), "pagecliff-bench.svg");
		fd = open(o->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0)
			o->made = 1;
		else if (errno == EEXIST && is_own_chart(o->name))
			fd = open(o->name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		else if (errno == EEXIST)
			continue;
		o->path = o->name;
		return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

/* Close the outputs; remove those this run made. */
static void outputs_abandon(void)
{
	for (int i = 0; i < OUT_N; i++) {
		if (outputs[i].fd < 0)
			continue;
		close(outputs[i].fd);
		outputs[i].fd = -1;
		if (outputs[i].made)
			unlink(outputs[i].path);
	}
}

static noreturn void outputs_refuse(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static noreturn void outputs_refuse(const char *fmt, ...)
{
	char msg[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	outputs_abandon();
	usage_error("%s", msg);
}

/* Open (never truncate yet) each output the job names; exits 2 on failure. */
static void open_outputs(struct bench_run *run, const struct bench_given *g)
{
	const char *paths[OUT_N] = { run->job.output, run->job.timeline, run->job.plot };
	struct stat st[OUT_N];

	for (int i = 0; i < OUT_N; i++) {
		struct output *o = &outputs[i];

		if (!paths[i])
			continue;
		o->path = paths[i];
		if (i == OUT_PLOT && !g->plot) {
			o->fd = open_default_chart(o);
		} else {
			o->fd = open(o->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			o->made = o->fd >= 0;
			if (o->fd < 0 && errno == EEXIST)
				o->fd = open(o->path, O_WRONLY | O_CLOEXEC);
		}
		if (o->fd < 0)
			outputs_refuse("cannot write %s '%s': %s", o->what, o->path,
				       strerror(errno));
		if (fstat(o->fd, &st[i]))
			outputs_refuse("cannot write %s '%s': %s", o->what, o->path,
				       strerror(errno));
		for (int j = 0; j < i; j++)
			if (outputs[j].fd >= 0 && S_ISREG(st[i].st_mode) &&
			    st[j].st_dev == st[i].st_dev && st[j].st_ino == st[i].st_ino)
				outputs_refuse("the %s and the %s are the same file '%s'",
					       outputs[j].what, o->what, o->path);
	}
	if (outputs[OUT_PLOT].fd >= 0)
		run->job.plot = outputs[OUT_PLOT].path;
	if (outputs[OUT_PLOT].name[0] && strcmp(outputs[OUT_PLOT].name, "pagecliff-bench.svg"))
		bench_note(run, "the chart goes to %s: pagecliff-bench.svg was not made by "
			   "pagecliff bench and is left alone", outputs[OUT_PLOT].name);
}

/* Write output @i with @fn: now truncated and filled. */
static int write_output(int i, const struct bench_run *run,
			void (*fn)(const struct bench_run *, FILE *))
{
	struct output *o = &outputs[i];
	struct stat st;
	FILE *f;
	int ret = 0;

	if (!fstat(o->fd, &st) && S_ISREG(st.st_mode) && ftruncate(o->fd, 0))
		ret = error("cannot write %s '%s': %s", o->what, o->path, strerror(errno));
	f = ret ? NULL : fdopen(o->fd, "w");
	if (!ret && !f)
		ret = error("cannot write %s '%s': %s", o->what, o->path, strerror(errno));
	if (f) {
		fn(run, f);
		if (fclose(f))
			ret = error("cannot write %s '%s': %s", o->what, o->path,
				    strerror(errno));
	} else {
		close(o->fd);
	}
	o->fd = -1;
	o->made = 0;
	return ret;
}

static void report_any(const struct bench_run *run, FILE *out)
{
	if (run->job.format == BENCH_JSON)
		bench_report_json(run, out);
	else if (run->job.format == BENCH_CSV)
		bench_report_csv(run, out);
	else
		bench_report_text(run, out);
}

static int report(struct bench_run *run)
{
	int ret = 0;

	if (run->hooks && !run->cluster)
		return 0;	/* a rank of pagecliff-mpi: rank 0 reports for all */
	bench_analyse(run);
	if (outputs[OUT_REPORT].fd >= 0) {
		ret = write_output(OUT_REPORT, run, report_any);
	} else {
		report_any(run, stdout);
		fflush(stdout);
	}
	if (outputs[OUT_TIMELINE].fd >= 0 && run->nrows)
		ret |= write_output(OUT_TIMELINE, run, bench_timeline_csv);
	if (outputs[OUT_PLOT].fd >= 0 && run->nrows) {
		int err = write_output(OUT_PLOT, run, bench_plot_svg);

		if (!err)
			fprintf(stderr, "chart: %s\n", run->job.plot);
		ret |= err;
	}
	return ret;
}

/*
 * Record in the state file (root) the data folder of each of the user's
 * directories, before it is claimed: a killed run's folder is given back by
 * the next run or --cleanup (the testbed's go with the testbed).  An
 * absolute path: --cleanup may run elsewhere.
 */
static void record_folders(const struct bench_run *run)
{
	char real[PATH_MAX], folder[PATH_MAX + 32];

	for (unsigned int d = 0; d < run->job.ndirs; d++) {
		if (!realpath(run->job.dirs[d], real))
			continue;	/* the claim says why */
		snprintf(folder, sizeof(folder), "%s/" BENCH_FOLDER, real);
		state_record(run->job.keep ? STATE_FOLDER_KEEP : STATE_FOLDER, folder);
	}
}

/* Set up, run, and tear down; teardown runs on every path.  The user's
 * directories are claimed (locked) before anything else is made. */
static int run_job(struct bench_run *run)
{
	struct testbed tb = { .loop_fd = -1 };
	struct cgroup cg = { 0 };
	uint64_t to_write;
	unsigned int ndirs = run->job.ndirs;
	int ret = 0;

	if (!geteuid())
		state_open();
	record_folders(run);
	if (bench_claim(run, 0)) {
		bench_release(run);
		state_close();
		return -EXIT_USAGE;
	}
	if (run->job.mem_limit && (ret = make_cgroup(run, &cg)))
		goto out;
	if (run->job.testbed && (ret = setup_testbed(run, &tb)))
		goto out;
	if (bench_claim(run, ndirs) || bench_layout_check(run, &to_write)) {
		ret = -EXIT_USAGE;
		goto out;
	}
	if (bench_stop || (ret = bench_layout(run)))
		goto out;
	bench_trace_start(run);		/* before the cap: its memory is not the workers' */
	if ((ret = join_cgroup(run, &cg)))
		goto out;
	if (!bench_stop)
		ret = run_phases(run, &cg);
out:
	bench_trace_stop(run);
	if (cg.top[0]) {
		int err = cgroup_remove(&cg);

		if (err)
			error("cannot remove memory cgroup '%s': %s", cg.top, strerror(-err));
	}
	bench_release(run);
	if (run->job.testbed) {
		int err = testbed_destroy(&tb);

		if (err)
			error("cannot tear down the testbed at '%s': %s", tb.base, strerror(-err));
	}
	state_close();
	return ret;
}

/* Run the parsed job and report; returns the exit status. */
static int bench_main(struct bench_run *run, const struct bench_given *g)
{
	int ret;

	if (g->cleanup) {
		if (geteuid())
			usage_error("--cleanup needs root: what it removes was made by root");
		cleanup_stale();
		return 0;
	}
	apply_defaults(run, g);
	if (run->hooks)
		run->hooks->job_ready(run);
	check_job(run);
	open_outputs(run, g);
	cleanup_stale();
	if (run->job.builtin && !run->job.testbed)
		builtin_dir(run);
	if (run->job.keep && run->job.testbed)
		bench_note(run, "--keep has no effect on the testbed: it is torn down");
	if (run->job.keep && run->job.rw == BENCH_WRITE)
		bench_note(run, "--keep has no effect with --rw write: each phase removes the "
			   "files it wrote");
	run->started = (double)time(NULL);
	ret = run_job(run);
	if (ret == -EXIT_USAGE) {
		outputs_abandon();
		return EXIT_USAGE;
	}
	if (run->nrows || run->interrupted)
		ret |= report(run);
	outputs_abandon();	/* what got no rows */
	if (stop_signal) {
		fprintf(stderr, "%s: interrupted by signal %d; cleaned up\n", progname,
			(int)stop_signal);
		return 128 + stop_signal;
	}
	return ret || run->failed ? 1 : 0;
}

static void run_free(struct bench_run *run)
{
	for (unsigned int d = 0; d < run->job.ndirs; d++)
		free(run->job.dirs[d]);
	free(run->rows);
	free(run);
}

/* A run of the job @argv describes (exits 2 on bad usage), with @hooks. */
static struct bench_run *run_parse(int argc, char **argv, const struct bench_hooks *hooks,
				   struct bench_given *g)
{
	struct bench_run *run = calloc(1, sizeof(*run));

	if (!run)
		die("out of memory");
	run->job.direct = -1;
	run->hooks = hooks;
	bench_parse_opts(argc, argv, &run->job, g);
	return run;
}

/* Whether @path could be opened for writing as output @what, made or not
 * (open_outputs() with nothing made); exits 2 after one line if not. */
static void check_output(const char *what, const char *path, struct stat *ret_st)
{
	char dir[PATH_MAX];
	char *slash;
	int err = 0;

	if (!stat(path, ret_st)) {
		if (S_ISDIR(ret_st->st_mode))
			err = EISDIR;
		else if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS))
			err = errno;
	} else if (errno == ENOENT) {
		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash)
			slash[slash == dir] = '\0';	/* "/x": "/" */
		if (faccessat(AT_FDCWD, slash ? dir : ".", W_OK | X_OK, AT_EACCESS))
			err = errno;
		ret_st->st_ino = 0;
	} else {
		err = errno;
	}
	if (err)
		usage_error("cannot write %s '%s': %s", what, path, strerror(err));
}

/* The outputs the job names, checked as open_outputs() would. */
static void check_outputs(const struct bench_run *run, const struct bench_given *g)
{
	const char *paths[OUT_N] = { run->job.output, run->job.timeline,
				     g->plot ? run->job.plot : NULL };
	struct stat st[OUT_N];

	for (int i = 0; i < OUT_N; i++) {
		if (!paths[i])
			continue;
		check_output(outputs[i].what, paths[i], &st[i]);
		for (int j = 0; j < i; j++)
			if (paths[j] && st[i].st_ino && S_ISREG(st[i].st_mode) &&
			    st[j].st_ino && st[j].st_dev == st[i].st_dev &&
			    st[j].st_ino == st[i].st_ino)
				usage_error("the %s and the %s are the same file '%s'",
					    outputs[j].what, outputs[i].what, paths[i]);
	}
}

/*
 * For pagecliff-mpi: the checks `pagecliff bench` makes of its options, job,
 * outputs (with @with_outputs) and directories before it makes anything,
 * nothing made; a bad one exits 2 after one line.  The job's directories go
 * to @ret_dirs, ':' between them.
 */
void bench_check_args(int argc, char **argv, int with_outputs, char *ret_dirs, size_t len)
{
	struct bench_given g = { 0 };
	struct bench_run *run = run_parse(argc, argv, NULL, &g);
	size_t n = 0;

	if (g.cleanup)
		exit(0);
	apply_defaults(run, &g);
	check_job(run);
	if (with_outputs)
		check_outputs(run, &g);
	if (run->job.builtin && !run->job.testbed)
		builtin_dir(run);
	if (bench_layout_precheck(run))
		exit(EXIT_USAGE);
	ret_dirs[0] = '\0';
	for (unsigned int d = 0; d < run->job.ndirs && n < len; d++)
		n += snprintf(ret_dirs + n, len - n, "%s%s", d ? ":" : "", run->job.dirs[d]);
	run_free(run);
}

/* `pagecliff bench` with @hooks at its phases: one rank of pagecliff-mpi. */
int bench_run_hooked(int argc, char **argv, const struct bench_hooks *hooks)
{
	struct bench_given g = { 0 };
	struct bench_run *run = run_parse(argc, argv, hooks, &g);
	int ret;

	install_signals();
	ret = bench_main(run, &g);
	run_free(run);
	return ret;
}

static int cmd_bench(int argc, char **argv)
{
	return bench_run_hooked(argc, argv, NULL);
}

const struct cmd_entry cmd_bench_entry = {
	.name = "bench",
	.summary = "reproduce the page-cache cliff and show where and why it falls",
	.usage = "[options]",
	.about = "Read the same files once per mode and show, per mode, throughput over time,\n"
		 "where it fell when the page cache filled, and what the kernel was doing.\n"
		 "Without --directory: as root a RAM testbed with a 1 GiB memory cap, else a\n"
		 "folder under $TMPDIR; 2 threads x 2 GiB, 10 s per mode, chart in\n"
		 "pagecliff-bench.svg (another free name when that file is not bench's).\n"
		 "Sizes in fio units (4k, 1m, 20g, KiB, GiB); times 500ms, 2s, 1.5s, 1m\n"
		 "(a bare number is seconds).",
	.options = bench_options,
	.width = 20,
	.trailer = "Exit status: 0 done, 1 failed (also: a mode read nothing), 2 bad usage or\n"
		   "the directory in use by another run (nothing created),\n"
		   "130/143 interrupted (what was measured so far is reported).",
	.extra = "directories go in --directory",
	.option = bench_option,
	.exec = cmd_bench,
};
