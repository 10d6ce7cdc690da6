// SPDX-License-Identifier: MIT
/*
 * pagecliff bench's options: the table --help lists (fio's option names
 * where they overlap), the parser of each value, the defaults of the
 * built-in job, and the checks of a job before anything is made.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "cmd.h"
#include "sample.h"
#include "testbed.h"
#include "util.h"

enum {
	OPT_IOENGINE = 256, OPT_IODEPTH, OPT_RUNTIME, OPT_TIME_BASED, OPT_DIRECT,
	OPT_API, OPT_MEM_ALIGN, OPT_NUMA, OPT_MEM_LIMIT, OPT_TESTBED, OPT_KEEP,
	OPT_INTERVAL, OPT_FORMAT, OPT_TIMELINE, OPT_PLOT, OPT_CLEANUP, OPT_RW,
	OPT_NO_TRACE = 512,
};

/* The options, in the order --help lists them; the rows without help are
 * other names for the row above (fio's spellings). */
const struct cmd_option bench_options[] = {
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
	  "pin each directory's threads to its device's node\n"
	  "(sysfs numa_node above the block device)" },
	{ "mem-limit", OPT_MEM_LIMIT, CMD_ARG_REQUIRED, "SIZE",
	  "run the workers in a memory cgroup of SIZE; buffers\n"
	  "over half of it are refused; on cgroup v2 as root,\n"
	  "a systemd scope or its own tree moved to a leaf\n"
	  "where its cgroup holds more (see the man page)" },
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
	char folder[PATH_MAX + 32];
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
		if (parse_uint(arg, 0, BENCH_ALIGN_ROOM - 1, &v))
			usage_error("bad --mem-align '%s': a byte offset from 0 to %u", arg,
				    BENCH_ALIGN_ROOM - 1);
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

void bench_option(void *state, int key, const char *arg)
{
	struct bench_job *job = ((struct bench_parse *)state)->job;
	struct bench_given *g = ((struct bench_parse *)state)->g;

	switch (key) {
	case 'd': parse_dirs(job, arg); break;
	case 'j': job->numjobs = count_arg("--numjobs", arg, BENCH_MAX_JOBS); g->numjobs = 1; break;
	case 's': job->size = size_arg("--size", arg, BENCH_MIN_SIZE, UINT64_MAX / 2); g->size = 1; break;
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

void bench_apply_defaults(struct bench_run *run, const struct bench_given *g)
{
	struct bench_job *job = &run->job;

	job->builtin = !job->ndirs && !job->testbed;
	if (!g->modes) {
		static const enum pc_strategy plain[] = { PC_BUFFERED, PC_DIRECT, PC_AUTO };

		job->nmodes = job->direct < 0 ? 3 : 1;
		if (job->direct < 0)
			memcpy(job->modes, plain, sizeof(plain));
		else
			job->modes[0] = job->direct ? PC_DIRECT : PC_BUFFERED;
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
	return threads * (job->bs + BENCH_ALIGN_ROOM + inflight) + BENCH_MEM_BASE;
}

/* Refuse a job whose buffers cannot fit: in half of --mem-limit (the rest is
 * for the page cache the run is about), or in half of the available memory. */
static void check_memory(const struct bench_job *job)
{
	uint64_t inflight, need = job_memory(job, &inflight);
	unsigned int threads = job_threads(job);
	struct sample_meminfo mi;
	char a[32], b[32], c[32], d[32];

	bench_size(job->bs + BENCH_ALIGN_ROOM, a, sizeof(a));
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

void bench_check_job(struct bench_run *run)
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

void bench_builtin_dir(struct bench_run *run)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	parse_dirs(&run->job, tmp);
	bench_note(run, "not root: no RAM testbed (needs a loop device and mounts), running "
		   "in %s; caches dropped with fadvise per file instead of drop_caches", tmp);
}
