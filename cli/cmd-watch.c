// SPDX-License-Identifier: MIT
/*
 * pagecliff watch: the page cache and reclaim as they happen, like vmstat
 * for the page-cache cliff.  A refreshing view on a terminal, one line of
 * text or JSON per interval otherwise; every figure is per interval, read
 * through sample.c as bench reads it.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "doctor.h"
#include "sample.h"
#include "util.h"

static const char watch_usage[] =
	"usage: pagecliff watch [--interval MS] [--count N] [--json] [--cgroup DIR]\n"
	"\n"
	"Show the page cache and reclaim per interval: page cache (active,\n"
	"inactive), dirty, writeback, reclaim scan and steal rates (direct, kswapd,\n"
	"file), allocation stalls, memory PSI, kswapd CPU, system CPU, memory\n"
	"cgroup, per-device read and write MB/s.  A refreshing view on a terminal,\n"
	"one line per interval otherwise.\n"
	"\n"
	"  -i, --interval MS  time between samples, 10 to 3600000 (default 1000)\n"
	"  -n, --count N      stop after N intervals (default: until interrupted)\n"
	"  -j, --json         one JSON object per interval, one per line\n"
	"      --text         one line of text per interval, even on a terminal\n"
	"  -c, --cgroup DIR   memory cgroup directory to show (default: this\n"
	"                     process's own, when it has one)\n"
	"  -h, --help         this text\n";

enum watch_mode { WATCH_VIEW, WATCH_TEXT, WATCH_JSON };

struct watch_args {
	uint64_t interval_ms;
	uint64_t count;
	enum watch_mode mode;
	const char *cgroup;
	char cgroup_buf[4096];
};

enum { OPT_TEXT = 256 };

static const struct option watch_options[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 'n' },
	{ "json", no_argument, NULL, 'j' },
	{ "text", no_argument, NULL, OPT_TEXT },
	{ "cgroup", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void parse_args(int argc, char **argv, struct watch_args *a)
{
	int c, forced = 0;

	while ((c = getopt_long(argc, argv, "i:n:jc:h", watch_options, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (parse_uint(optarg, 10, 3600000, &a->interval_ms))
				usage_error("bad --interval '%s': want 10 to 3600000 ms", optarg);
			break;
		case 'n':
			if (parse_uint(optarg, 1, UINT64_MAX / 2, &a->count))
				usage_error("bad --count '%s': want a whole number >= 1", optarg);
			break;
		case 'j':
			a->mode = WATCH_JSON;
			forced = 1;
			break;
		case OPT_TEXT:
			if (!forced)
				a->mode = WATCH_TEXT;
			forced = 1;
			break;
		case 'c':
			a->cgroup = optarg;
			break;
		case 'h':
			fputs(watch_usage, stdout);
			exit(0);
		default:
			fputs(watch_usage, stderr);
			exit(EXIT_USAGE);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'; see 'pagecliff watch --help'",
			    argv[optind]);
	if (!forced)
		a->mode = isatty(STDOUT_FILENO) ? WATCH_VIEW : WATCH_TEXT;
}

/* Bytes as MiB for text, "?" when unknown. */
static void mib(FILE *out, uint64_t bytes)
{
	if (sample_known(bytes))
		fprintf(out, "%.0fM", (double)bytes / 1048576.0);
	else
		fputs("?", out);
}

/* A rate for text, "?" when unknown. */
static void rate(FILE *out, double v)
{
	if (isnan(v))
		fputs("?", out);
	else
		fprintf(out, "%.0f", v);
}

/* A figure with @dec decimals for text, "?" when unknown. */
static void fnum(FILE *out, double v, int dec)
{
	if (isnan(v))
		fputs("?", out);
	else
		fprintf(out, "%.*f", dec, v);
}

static double pct_of(double secs_used, double secs)
{
	return isnan(secs_used) || secs <= 0 ? NAN : 100.0 * secs_used / secs;
}

/* Read and write MB/s of @disk between two samples; 0 when it is new. */
static void disk_rates(const struct sample *a, const struct sample_disk *disk,
		       double secs, double *ret_r, double *ret_w)
{
	const struct sample_disk *old = sample_disk_find(&a->disks, disk->name);

	*ret_r = *ret_w = 0;
	if (!old || secs <= 0)
		return;
	*ret_r = sample_rate(old->sectors_read, disk->sectors_read, secs) * 512 / 1e6;
	*ret_w = sample_rate(old->sectors_written, disk->sectors_written, secs) * 512 / 1e6;
}

static int disk_active(double r, double w)
{
	return (!isnan(r) && r > 0) || (!isnan(w) && w > 0);
}

static void print_text_line(FILE *out, const struct sample *a, const struct sample *b,
			    const struct sample_delta *d)
{
	fprintf(out, "cache ");
	mib(out, b->mem.cached);
	fputs(" act ", out);
	mib(out, b->mem.active_file);
	fputs(" inact ", out);
	mib(out, b->mem.inactive_file);
	fputs(" dirty ", out);
	mib(out, b->mem.dirty);
	fputs(" wb ", out);
	mib(out, b->mem.writeback);
	fputs(" | scan/s direct ", out);
	rate(out, d->pgscan_direct);
	fputs(" kswapd ", out);
	rate(out, d->pgscan_kswapd);
	fputs(" file ", out);
	rate(out, d->pgscan_file);
	fputs(" steal/s file ", out);
	rate(out, d->pgsteal_file);
	fputs(" stall/s ", out);
	rate(out, d->allocstall);
	fputs(" | psi some ", out);
	fnum(out, b->psi.some_avg10, 2);
	fputs(" full ", out);
	fnum(out, b->psi.full_avg10, 2);
	fputs(" | kswapd% ", out);
	fnum(out, pct_of(d->kswapd_cpu_s, d->secs), 1);
	fputs(" | cpu% usr ", out);
	fnum(out, d->usr_pct, 0);
	fputs(" sys ", out);
	fnum(out, d->sys_pct, 0);
	fputs(" io ", out);
	fnum(out, d->iowait_pct, 0);
	fputs(" st ", out);
	fnum(out, d->steal_pct, 0);
	if (b->cg_ok) {
		fputs(" | cg cache ", out);
		mib(out, b->cg.file);
		fputs(" scan/s ", out);
		rate(out, d->cg_pgscan);
	}
	for (size_t i = 0; i < b->disks.count; i++) {
		double r, w;

		disk_rates(a, &b->disks.disk[i], d->secs, &r, &w);
		if (disk_active(r, w))
			fprintf(out, " | %s r %.1f w %.1f MB/s", b->disks.disk[i].name, r, w);
	}
	fputc('\n', out);
}

static void json_u64(FILE *out, const char *key, uint64_t v)
{
	fprintf(out, "\"%s\": ", key);
	if (sample_known(v))
		fprintf(out, "%llu", (unsigned long long)v);
	else
		fputs("null", out);
}

static void json_num(FILE *out, const char *key, double v, int decimals)
{
	fprintf(out, "\"%s\": ", key);
	json_number(out, v, decimals);
}

static void print_json_cgroup(FILE *out, const struct watch_args *w,
			      const struct sample *b, const struct sample_delta *d)
{
	if (!b->cg_ok) {
		fputs("\"cgroup\": null", out);
		return;
	}
	fprintf(out, "\"cgroup\": {\"version\": %d, \"dir\": ", b->cg.version);
	json_string(out, w->cgroup);
	fputs(", ", out);
	json_u64(out, "file_bytes", b->cg.file);
	fputs(", ", out);
	json_u64(out, "usage_bytes", b->cg.usage);
	fputs(", ", out);
	json_u64(out, "limit_bytes", b->cg.limit);
	fputs(", ", out);
	json_num(out, "pgscan_s", d->cg_pgscan, 1);
	fputs(", ", out);
	json_num(out, "pgsteal_s", d->cg_pgsteal, 1);
	fputs(", ", out);
	json_num(out, "pgscan_direct_s", d->cg_pgscan_direct, 1);
	fputs(", ", out);
	json_num(out, "pgscan_kswapd_s", d->cg_pgscan_kswapd, 1);
	fputs("}", out);
}

static void print_json_disks(FILE *out, const struct sample *a, const struct sample *b,
			     double secs)
{
	int first = 1;

	fputs("\"disks\": {", out);
	for (size_t i = 0; i < b->disks.count; i++) {
		double r, w;

		disk_rates(a, &b->disks.disk[i], secs, &r, &w);
		if (!disk_active(r, w))
			continue;
		fputs(first ? "" : ", ", out);
		first = 0;
		json_string(out, b->disks.disk[i].name);
		fputs(": {", out);
		json_num(out, "read_mb_s", r, 3);
		fputs(", ", out);
		json_num(out, "write_mb_s", w, 3);
		fputs("}", out);
	}
	fputs("}", out);
}

static void print_json_line(FILE *out, const struct watch_args *w, double t,
			    const struct sample *a, const struct sample *b,
			    const struct sample_delta *d)
{
	const struct { const char *key; double v; } rates[] = {
		{ "pgscan_direct_s", d->pgscan_direct }, { "pgsteal_direct_s", d->pgsteal_direct },
		{ "pgscan_kswapd_s", d->pgscan_kswapd }, { "pgsteal_kswapd_s", d->pgsteal_kswapd },
		{ "pgscan_file_s", d->pgscan_file }, { "pgsteal_file_s", d->pgsteal_file },
		{ "allocstall_s", d->allocstall }, { "psi_some_us_s", d->psi_some_us },
		{ "psi_full_us_s", d->psi_full_us },
		{ "psi_some_avg10", b->psi.some_avg10 }, { "psi_full_avg10", b->psi.full_avg10 },
		{ "kswapd_cpu_pct", pct_of(d->kswapd_cpu_s, d->secs) },
		{ "cpu_usr_pct", d->usr_pct }, { "cpu_sys_pct", d->sys_pct },
		{ "cpu_iowait_pct", d->iowait_pct }, { "cpu_steal_pct", d->steal_pct },
		{ "cpu_idle_pct", d->idle_pct },
	};

	fprintf(out, "{\"t\": %.3f, \"interval_s\": %.3f, ", t, d->secs);
	json_u64(out, "cache_bytes", b->mem.cached);
	fputs(", ", out);
	json_u64(out, "active_file_bytes", b->mem.active_file);
	fputs(", ", out);
	json_u64(out, "inactive_file_bytes", b->mem.inactive_file);
	fputs(", ", out);
	json_u64(out, "dirty_bytes", b->mem.dirty);
	fputs(", ", out);
	json_u64(out, "writeback_bytes", b->mem.writeback);
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		fputs(", ", out);
		json_num(out, rates[i].key, rates[i].v, 2);
	}
	fputs(", ", out);
	print_json_cgroup(out, w, b, d);
	fputs(", ", out);
	print_json_disks(out, a, b, d->secs);
	fputs("}\n", out);
}

/* The refreshing terminal view: clear the screen, draw one block. */
static void print_view(FILE *out, const struct watch_args *w, const struct sample *a,
		       const struct sample *b, const struct sample_delta *d)
{
	fprintf(out, "\033[H\033[2J");
	fprintf(out, "pagecliff watch, every %llu ms (Ctrl-C quits)\n\n",
		(unsigned long long)w->interval_ms);
	fputs("page cache   ", out);
	mib(out, b->mem.cached);
	fputs("   active ", out);
	mib(out, b->mem.active_file);
	fputs("   inactive ", out);
	mib(out, b->mem.inactive_file);
	fputs("   dirty ", out);
	mib(out, b->mem.dirty);
	fputs("   writeback ", out);
	mib(out, b->mem.writeback);
	fputs("\nreclaim      pages/s  scan    steal\n  direct             ", out);
	rate(out, d->pgscan_direct);
	fputs("       ", out);
	rate(out, d->pgsteal_direct);
	fputs("\n  kswapd             ", out);
	rate(out, d->pgscan_kswapd);
	fputs("       ", out);
	rate(out, d->pgsteal_kswapd);
	fputs("\n  file (any cause)   ", out);
	rate(out, d->pgscan_file);
	fputs("       ", out);
	rate(out, d->pgsteal_file);
	fputs("\nalloc stalls/s ", out);
	rate(out, d->allocstall);
	fputs("   PSI memory avg10 % some ", out);
	fnum(out, b->psi.some_avg10, 2);
	fputs(" full ", out);
	fnum(out, b->psi.full_avg10, 2);
	fputs("\nkswapd CPU % ", out);
	fnum(out, pct_of(d->kswapd_cpu_s, d->secs), 1);
	fputs("   system CPU % usr ", out);
	fnum(out, d->usr_pct, 1);
	fputs(" sys ", out);
	fnum(out, d->sys_pct, 1);
	fputs(" iowait ", out);
	fnum(out, d->iowait_pct, 1);
	fputs(" steal ", out);
	fnum(out, d->steal_pct, 1);
	fputc('\n', out);
	if (b->cg_ok) {
		fprintf(out, "cgroup v%d   cache ", b->cg.version);
		mib(out, b->cg.file);
		fputs("   usage ", out);
		mib(out, b->cg.usage);
		fputs("   limit ", out);
		mib(out, b->cg.limit);
		fputs("   scan/s ", out);
		rate(out, d->cg_pgscan);
		fputc('\n', out);
	}
	fputs("\ndevice          read MB/s  write MB/s\n", out);
	for (size_t i = 0; i < b->disks.count; i++) {
		double r, wr;

		disk_rates(a, &b->disks.disk[i], d->secs, &r, &wr);
		if (disk_active(r, wr))
			fprintf(out, "%-14s %10.1f %11.1f\n", b->disks.disk[i].name, r, wr);
	}
}

/* Sleep until @deadline (CLOCK_MONOTONIC seconds). */
static void sleep_until(double deadline)
{
	struct timespec ts;

	ts.tv_sec = (time_t)deadline;
	ts.tv_nsec = (long)((deadline - (double)ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void print_interval(const struct watch_args *w, double t0,
			   const struct sample *a, const struct sample *b)
{
	struct sample_delta d;

	sample_delta(a, b, &d);
	if (w->mode == WATCH_JSON)
		print_json_line(stdout, w, b->time - t0, a, b, &d);
	else if (w->mode == WATCH_TEXT)
		print_text_line(stdout, a, b, &d);
	else
		print_view(stdout, w, a, b, &d);
	fflush(stdout);
}

int cmd_watch(int argc, char **argv)
{
	struct watch_args w = { .interval_ms = 1000 };
	struct sample_opts o = { .disks = 1, .kswapd = 1 };
	struct sample *s = calloc(2, sizeof(*s));
	double t0, next;
	int err;

	if (!s)
		die("out of memory");
	parse_args(argc, argv, &w);
	if (!w.cgroup && !sample_find_cgroup(NULL, 0, w.cgroup_buf, sizeof(w.cgroup_buf)))
		w.cgroup = w.cgroup_buf;
	o.cgroup_dir = w.cgroup;
	err = sample_take(&s[0], &o);
	if (err)
		die("cannot read /proc/stat: %s", strerror(-err));
	if (w.cgroup && !s[0].cg_ok && w.cgroup != w.cgroup_buf)
		die("cannot read memory cgroup '%s'", w.cgroup);
	t0 = next = s[0].time;
	for (uint64_t i = 0; !w.count || i < w.count; i++) {
		struct sample *a = &s[i % 2], *b = &s[(i + 1) % 2];

		next += (double)w.interval_ms / 1000.0;
		sleep_until(next);
		err = sample_take(b, &o);
		if (err)
			die("cannot read /proc/stat: %s", strerror(-err));
		print_interval(&w, t0, a, b);
		if (ferror(stdout))
			break;
	}
	free(s);
	return ferror(stdout) ? 1 : 0;
}
