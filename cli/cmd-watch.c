// SPDX-License-Identifier: MIT
/*
 * pagecliff watch: the page cache and reclaim as they happen, like vmstat
 * for the page-cache cliff.  A refreshing view on a terminal, one line of
 * text or JSON per interval otherwise; every figure is per interval, read
 * through sample.c as bench reads it, and named in the catalogue of
 * figures (figures.c) that bench shares.  As metrics (watch-metrics.c) the
 * same counters are cumulative, on stdout or rewritten into a textfile.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "doctor.h"
#include "figures.h"
#include "json.h"
#include "sample.h"
#include "trace.h"
#include "util.h"
#include "watch-metrics.h"
#include "clock.h"

enum watch_mode { WATCH_VIEW, WATCH_TEXT, WATCH_JSON, WATCH_OPENMETRICS, WATCH_NONE };

struct watch_args {
	uint64_t interval_ms;
	uint64_t count;
	enum watch_mode mode;
	int forced;			/* --json, --text or --output-format given */
	int format;			/* --output-format given: it wins */
	const char *textfile;		/* --textfile: metrics rewritten each interval */
	const char *cgroup;
	char cgroup_buf[PATH_MAX];
	int no_trace;
};

enum { WATCH_OPT_TEXT = CMD_LONG, WATCH_OPT_NO_TRACE, WATCH_OPT_FORMAT, WATCH_OPT_TEXTFILE };

static const struct cmd_option watch_options[] = {
	{ "interval", 'i', CMD_ARG_REQUIRED, "TIME",
	  "between samples, 10ms to 1h (default 1s; 250ms, 2s;\n"
	  "a bare number is seconds)" },
	{ "count", 'n', CMD_ARG_REQUIRED, "N",
	  "stop after N intervals (default: until interrupted)" },
	{ "json", 'j', CMD_ARG_NONE, NULL, "one JSON object per interval, one per line" },
	{ "text", WATCH_OPT_TEXT, CMD_ARG_NONE, NULL,
	  "one line of text per interval, even on a terminal" },
	{ "cgroup", 'c', CMD_ARG_REQUIRED, "DIR",
	  "memory cgroup directory to show (default: this\n"
	  "process's own, when it has one)" },
	{ "no-trace", WATCH_OPT_NO_TRACE, CMD_ARG_NONE, NULL,
	  "no kernel-event tracing: the /proc counters only" },
	{ "output-format", WATCH_OPT_FORMAT, CMD_ARG_REQUIRED, "text|json|openmetrics",
	  "\nof standard output; openmetrics: the counters and\n"
	  "gauges for Prometheus, one exposition per interval" },
	{ "textfile", WATCH_OPT_TEXTFILE, CMD_ARG_REQUIRED, "FILE",
	  "rewrite FILE each interval, atomically, with the\n"
	  "metrics for node exporter's textfile collector\n"
	  "(Prometheus text format); stdout quiet unless\n"
	  "--output-format, --json or --text is given" },
	{ 0 },
};

static void watch_option(void *state, int key, const char *arg)
{
	struct watch_args *a = state;
	double secs;

	switch (key) {
	case 'i':
		if (parse_duration(arg, &secs) || secs < 0.01 || secs > 3600)
			usage_error("bad --interval '%s': a time from 10ms to 1h (250ms, "
				    "2s, 1m; a bare number is seconds)", arg);
		a->interval_ms = (uint64_t)(secs * 1000 + 0.5);
		break;
	case 'n':
		if (parse_uint(arg, 1, UINT64_MAX / 2, &a->count))
			usage_error("bad --count '%s': want a whole number >= 1", arg);
		break;
	case 'j':
		if (!a->format)
			a->mode = WATCH_JSON;
		a->forced = 1;
		break;
	case WATCH_OPT_TEXT:
		if (!a->forced)
			a->mode = WATCH_TEXT;
		a->forced = 1;
		break;
	case 'c':
		a->cgroup = arg;
		break;
	case WATCH_OPT_NO_TRACE:
		a->no_trace = 1;
		break;
	case WATCH_OPT_FORMAT:
		if (!strcmp(arg, "text"))
			a->mode = WATCH_TEXT;
		else if (!strcmp(arg, "json"))
			a->mode = WATCH_JSON;
		else if (!strcmp(arg, "openmetrics"))
			a->mode = WATCH_OPENMETRICS;
		else
			usage_error("unknown --output-format '%s' (text, json, openmetrics)", arg);
		a->forced = a->format = 1;
		break;
	case WATCH_OPT_TEXTFILE:
		a->textfile = arg;
		break;
	}
}

/* One interval: where its figures are read, and the disks' samples. */
struct interval {
	const struct sample *a, *b;
	struct sample_delta d;
	int cg;				/* the memory cgroup was read */
	int traced;
	struct trace_shares tr;		/* when traced */
	struct figure_in in;		/* b, d and tr */
};

/* Whether watch shows figure @f among group @g's. */
static int shown(const struct figure *f, enum figure_group g)
{
	return f->group == g && f->text;
}

/* A figure's value for people: "?" when unknown, bytes in MiB. */
static void put_value(FILE *out, const struct figure *f, double v)
{
	if (isnan(v))
		fputs("?", out);
	else if (f->unit == FIGURE_BYTES)
		fprintf(out, "%.0fM", v / 1048576.0);
	else
		fprintf(out, "%.*f", figure_text_decimals(f->unit), v);
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

/* The top lock callers of the interval, "spin lock in x 1.2 ms/s, ...". */
static void print_top_locks(FILE *out, const struct interval *iv, const char *sep)
{
	for (unsigned int i = 0; i < iv->tr.ntop; i++)
		fprintf(out, "%s%s in %s %.2f ms/s", i ? ", " : sep, iv->tr.top[i].kind,
			iv->tr.top[i].name, iv->tr.top[i].ns / 1e6 / iv->tr.secs);
}

/* Group @g's figures as "label value", each after a blank but the first when @first. */
static void text_figures(FILE *out, const struct interval *iv, enum figure_group g, int first)
{
	for (const struct figure *f = figures; f < figures + FIGURE_N; f++) {
		if (!shown(f, g))
			continue;
		fprintf(out, "%s%s ", first ? "" : " ", f->text);
		put_value(out, f, figure_now(f, &iv->in));
		first = 0;
	}
}

static void print_text_line(FILE *out, const struct interval *iv)
{
	const struct sample_disks *disks = &iv->b->disks;

	text_figures(out, iv, FIGURE_SYSTEM, 1);
	if (iv->cg)
		text_figures(out, iv, FIGURE_CGROUP, 0);
	for (size_t i = 0; i < disks->count; i++) {
		double r, w;

		disk_rates(iv->a, &disks->disk[i], iv->d.secs, &r, &w);
		if (disk_active(r, w))
			fprintf(out, " %s.MB/s r %.1f w %.1f", disks->disk[i].name, r, w);
	}
	if (iv->traced) {
		text_figures(out, iv, FIGURE_TRACE, 0);
		print_top_locks(out, iv, " top.locks ");
	}
	fputc('\n', out);
}

/* Group @g's figures as members: bytes whole, rates and shares with two decimals. */
static void json_figures(struct json *j, const struct interval *iv, enum figure_group g)
{
	for (const struct figure *f = figures; f < figures + FIGURE_N; f++)
		if (shown(f, g))
			json_fixed(j, f->key, figure_now(f, &iv->in),
				   f->unit == FIGURE_BYTES ? 0 : 2);
}

/* "disks": {"sda": {"read_mb_s": r, "write_mb_s": w}, ...}, the active ones. */
static void json_disks(struct json *j, const struct interval *iv)
{
	const struct sample_disks *disks = &iv->b->disks;

	json_object(j, "disks", 0);
	for (size_t i = 0; i < disks->count; i++) {
		double r, w;

		disk_rates(iv->a, &disks->disk[i], iv->d.secs, &r, &w);
		if (!disk_active(r, w))
			continue;
		json_object(j, disks->disk[i].name, 0);
		json_fixed(j, "read_mb_s", r, 3);
		json_fixed(j, "write_mb_s", w, 3);
		json_end(j);
	}
	json_end(j);
}

/* "trace": {figures, "top_locks": [{"lock", "caller", "ms_s"}, ...]}, or null. */
static void json_trace(struct json *j, const struct interval *iv)
{
	if (!iv->traced) {
		json_null(j, "trace");
		return;
	}
	json_object(j, "trace", 0);
	json_figures(j, iv, FIGURE_TRACE);
	json_array(j, "top_locks", 0);
	for (unsigned int i = 0; i < iv->tr.ntop; i++) {
		json_object(j, NULL, 0);
		json_string(j, "lock", iv->tr.top[i].kind);
		json_string(j, "caller", iv->tr.top[i].name);
		json_fixed(j, "ms_s", iv->tr.top[i].ns / 1e6 / iv->tr.secs, 3);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

/* One interval as one JSON object on one line. */
static void print_json_line(FILE *out, const struct watch_args *w, double t,
			    const struct interval *iv)
{
	struct json j;

	json_init(&j, out);
	json_object(&j, NULL, 0);
	json_fixed(&j, "t", t, 3);
	json_fixed(&j, "interval_s", iv->d.secs, 3);
	json_figures(&j, iv, FIGURE_SYSTEM);
	if (iv->cg) {
		json_object(&j, "cgroup", 0);
		json_number(&j, "version", iv->b->cg.version);
		json_string(&j, "dir", w->cgroup);
		json_figures(&j, iv, FIGURE_CGROUP);
		json_end(&j);
	} else {
		json_null(&j, "cgroup");
	}
	json_disks(&j, iv);
	json_trace(&j, iv);
	json_end(&j);
}

/* Group @g's figures in rows of three "label value" columns. */
static void print_columns(FILE *out, const struct interval *iv, enum figure_group g)
{
	size_t n = 0, i = 0;

	for (const struct figure *f = figures; f < figures + FIGURE_N; f++)
		n += shown(f, g);
	for (const struct figure *f = figures; f < figures + FIGURE_N; f++) {
		char val[32];
		FILE *mem;

		if (!shown(f, g))
			continue;
		val[0] = '\0';
		mem = fmemopen(val, sizeof(val), "w");
		if (mem) {
			put_value(mem, f, figure_now(f, &iv->in));
			fclose(mem);
		}
		fprintf(out, "%-16s %9s%s", f->text, val, i % 3 == 2 || i + 1 == n ?
			"\n" : "    ");
		i++;
	}
}

/* The refreshing terminal view: clear the screen, draw one block. */
static void print_view(FILE *out, const struct watch_args *w, const struct interval *iv)
{
	const struct sample_disks *disks = &iv->b->disks;

	fprintf(out, "\033[H\033[2J");
	fprintf(out, "pagecliff watch, every %llu ms (Ctrl-C quits); reclaim in pages/s\n\n",
		(unsigned long long)w->interval_ms);
	print_columns(out, iv, FIGURE_SYSTEM);
	if (iv->cg) {
		fprintf(out, "\nmemory cgroup v%d %s\n", iv->b->cg.version, w->cgroup);
		print_columns(out, iv, FIGURE_CGROUP);
	}
	if (iv->traced) {
		fputs("\nkernel events, system-wide\n", out);
		print_columns(out, iv, FIGURE_TRACE);
		print_top_locks(out, iv, "top lock waits: ");
		fputs(iv->tr.ntop ? "\n" : "", out);
	}
	fputs("\ndevice          read MB/s  write MB/s\n", out);
	for (size_t i = 0; i < disks->count; i++) {
		double r, wr;

		disk_rates(iv->a, &disks->disk[i], iv->d.secs, &r, &wr);
		if (disk_active(r, wr))
			fprintf(out, "%-14s %10.1f %11.1f\n", disks->disk[i].name, r, wr);
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

/*
 * Rewrite @path with the metrics of @b and @t: a new file in the same
 * directory, renamed over it, so that a reader sees the old or the new
 * whole, never a part.  A failure ends watch (the temporary file removed).
 */
static void write_textfile(const char *path, const struct sample *b, const char *cgroup,
			   const struct trace_snap *t)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	char tmp[PATH_MAX];
	FILE *f;
	int fd, err = 0;

	if (snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", dirlen, path, path + dirlen) >=
	    (int)sizeof(tmp))
		die("cannot write '%s': %s", path, strerror(ENAMETOOLONG));
	fd = mkstemp(tmp);
	if (fd < 0)
		die("cannot write '%s': %s", tmp, strerror(errno));
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		goto out_unlink;
	}
	if (fchmod(fd, 0644))		/* for the exporter, another user */
		err = errno;
	if (!err)
		watch_metrics(f, 0, b, cgroup, t);
	if (!err && (fflush(f) || ferror(f)))
		err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno;
	if (!err && rename(tmp, path))
		err = errno;
	if (!err)
		return;
out_unlink:
	unlink(tmp);
	die("cannot write '%s': %s", path, strerror(err));
}

static void print_interval(const struct watch_args *w, double t0,
			   const struct sample *a, const struct sample *b,
			   const struct trace_snap *ta, const struct trace_snap *tb)
{
	struct interval iv = { .a = a, .b = b, .cg = b->cg_ok, .traced = ta && tb };

	sample_delta(a, b, &iv.d);
	iv.in = (struct figure_in){ .s = b, .d = &iv.d, .tr = iv.traced ? &iv.tr : NULL };
	if (iv.traced)
		trace_interval(ta, tb, 1, b->kswapd_ok && b->kswapd_threads ? b->kswapd_threads : 1,
			       &iv.tr);
	if (w->mode == WATCH_JSON)
		print_json_line(stdout, w, b->time - t0, &iv);
	else if (w->mode == WATCH_TEXT)
		print_text_line(stdout, &iv);
	else if (w->mode == WATCH_OPENMETRICS)
		watch_metrics(stdout, 1, b, iv.cg ? w->cgroup : NULL, tb);
	else if (w->mode == WATCH_VIEW)
		print_view(stdout, w, &iv);
	fflush(stdout);
	if (w->textfile)
		write_textfile(w->textfile, b, iv.cg ? w->cgroup : NULL, tb);
}

/*
 * System-wide kernel-event tracing, or NULL with one line saying why not.
 * Everything it loads goes with the process (file descriptors, no pins).
 */
static struct trace *watch_trace(const struct watch_args *w)
{
	struct trace *t = NULL;
	char why[160];

	if (w->no_trace)
		return NULL;
	if (trace_open(&t, 0, why, sizeof(why))) {
		fprintf(stderr, "%s: no kernel-event tracing (%s): the /proc counters only\n",
			progname, why);
		return NULL;
	}
	return t;
}

/* A sample into @s; a failure ends watch. */
static void take(struct sample *s, const struct sample_opts *o)
{
	int err = sample_take(s, o);

	if (err)
		die("cannot read /proc/stat: %s", strerror(-err));
}

/* A snapshot into @snap, or NULL when not traced or it failed. */
static const struct trace_snap *snap_of(struct trace *t, struct trace_snap *snap)
{
	return t && !trace_read(t, snap) ? snap : NULL;
}

static int cmd_watch(int argc, char **argv)
{
	struct watch_args w = { .interval_ms = 1000 };
	struct sample_kswapd_pids kswapd = { .n = 0 };
	struct sample_opts o = { .disks = 1, .kswapd = 1, .kswapd_pids = &kswapd };
	struct sample *s = calloc(2, sizeof(*s));
	struct trace_snap *ts = calloc(2, sizeof(*ts));
	const struct trace_snap *tp[2] = { NULL, NULL };
	struct trace *tr;
	double t0, next;

	if (!s || !ts)
		die("out of memory");
	cmd_parse(&cmd_watch_entry, argc, argv, &w);
	if (!w.forced && w.textfile)
		w.mode = WATCH_NONE;
	else if (!w.forced)
		w.mode = isatty(STDOUT_FILENO) ? WATCH_VIEW : WATCH_TEXT;
	if (!w.cgroup && !sample_find_cgroup(NULL, 0, w.cgroup_buf, sizeof(w.cgroup_buf)))
		w.cgroup = w.cgroup_buf;
	o.cgroup_dir = w.cgroup;
	take(&s[0], &o);
	if (w.cgroup && !s[0].cg_ok && w.cgroup != w.cgroup_buf)
		die("cannot read memory cgroup '%s'", w.cgroup);
	tr = watch_trace(&w);
	/* loading the tracer takes a while: the first interval starts after it */
	take(&s[0], &o);
	tp[0] = snap_of(tr, &ts[0]);
	t0 = next = s[0].time;
	for (uint64_t i = 0; !w.count || i < w.count; i++) {
		struct sample *a = &s[i % 2], *b = &s[(i + 1) % 2];

		/* a late interval is long, and the next one whole, not short */
		next += (double)w.interval_ms / 1000.0;
		if (next < pcc_now_sec())
			next = pcc_now_sec();
		sleep_until(next);
		take(b, &o);
		tp[(i + 1) % 2] = snap_of(tr, &ts[(i + 1) % 2]);
		print_interval(&w, t0, a, b, tp[i % 2], tp[(i + 1) % 2]);
		if (ferror(stdout))
			break;
	}
	trace_close(tr);
	free(ts);
	free(s);
	return ferror(stdout) ? 1 : 0;
}

const struct cmd_entry cmd_watch_entry = {
	.name = "watch",
	.summary = "show page cache and reclaim per interval, like vmstat",
	.usage = "[--interval TIME] [--count N] [--json] [--cgroup DIR]\n"
		 "       [--output-format text|json|openmetrics] [--textfile FILE]",
	.about = "Show the page cache and reclaim per interval: page cache (active,\n"
		 "inactive), dirty, writeback, reclaim scan and steal rates (direct, kswapd,\n"
		 "file), allocation stalls, memory PSI, kswapd CPU, system CPU, memory\n"
		 "cgroup, per-device read and write MB/s; with kernel-event tracing (root),\n"
		 "milliseconds per second spent system-wide in direct and memory-cgroup\n"
		 "reclaim, contended-lock waits (and the top callers), dirty throttling, and\n"
		 "kswapd's share of time awake.  A refreshing view on a terminal, one line\n"
		 "per interval otherwise; as OpenMetrics for Prometheus with\n"
		 "--output-format openmetrics, or into a file for node exporter's textfile\n"
		 "collector with --textfile.",
	.options = watch_options,
	.width = 17,
	.option = watch_option,
	.exec = cmd_watch,
};
