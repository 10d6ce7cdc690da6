// SPDX-License-Identifier: MIT
/*
 * pagecliff bench's outputs: the report, the timeline and the chart, opened
 * before anything is made so that a path that cannot be written is a usage
 * error with nothing lost; truncated only when the report is written,
 * removed when bench made them and nothing came.  One bench made is in the
 * run's journal (as root), so that --cleanup removes it, empty or partial,
 * after a kill.  Each is written in the job's format, by the cluster's
 * report on rank 0 of a run across hosts.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "util.h"

/* What each output is called in messages. */
static const char *const out_what[BENCH_OUT_N] = { "report", "timeline", "plot" };

void bench_outputs_init(struct bench_run *run)
{
	for (int i = 0; i < BENCH_OUT_N; i++)
		run->outputs[i] = (struct bench_output){ .what = out_what[i], .fd = -1 };
}

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
static int open_default_chart(struct bench_output *o)
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

void bench_outputs_abandon(struct bench_run *run)
{
	for (int i = 0; i < BENCH_OUT_N; i++) {
		if (run->outputs[i].fd < 0)
			continue;
		close(run->outputs[i].fd);
		run->outputs[i].fd = -1;
		if (run->outputs[i].made)
			unlink(run->outputs[i].path);
	}
}

static noreturn void outputs_refuse(struct bench_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static noreturn void outputs_refuse(struct bench_run *run, const char *fmt, ...)
{
	char msg[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	bench_outputs_abandon(run);
	state_close(&run->journal);
	usage_error("%s", msg);
}

void bench_open_outputs(struct bench_run *run, const struct bench_given *g)
{
	const struct bench_output *plot = &run->outputs[BENCH_OUT_PLOT];
	const char *paths[BENCH_OUT_N] = { run->job.output, run->job.timeline, run->job.plot };
	struct stat st[BENCH_OUT_N];

	for (int i = 0; i < BENCH_OUT_N; i++) {
		struct bench_output *o = &run->outputs[i];

		if (!paths[i])
			continue;
		o->path = paths[i];
		if (i == BENCH_OUT_PLOT && !g->plot) {
			o->fd = open_default_chart(o);
		} else {
			o->fd = open(o->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			o->made = o->fd >= 0;
			if (o->fd < 0 && errno == EEXIST)
				o->fd = open(o->path, O_WRONLY | O_CLOEXEC);
		}
		if (o->fd < 0)
			outputs_refuse(run, "cannot write %s '%s': %s", o->what, o->path,
				       strerror(errno));
		if (o->made)
			state_record_output(&run->journal, o->path, o->fd);
		if (fstat(o->fd, &st[i]))
			outputs_refuse(run, "cannot write %s '%s': %s", o->what, o->path,
				       strerror(errno));
		for (int j = 0; j < i; j++)
			if (run->outputs[j].fd >= 0 && S_ISREG(st[i].st_mode) &&
			    st[j].st_dev == st[i].st_dev && st[j].st_ino == st[i].st_ino)
				outputs_refuse(run, "the %s and the %s are the same file '%s'",
					       run->outputs[j].what, o->what, o->path);
	}
	if (plot->fd >= 0)
		run->job.plot = plot->path;
	if (plot->name[0] && strcmp(plot->name, "pagecliff-bench.svg"))
		bench_note(run, "the chart goes to %s: pagecliff-bench.svg was not made by "
			   "pagecliff bench and is left alone", plot->name);
}

/* Write output @i with @fn: now truncated and filled. */
static int write_output(int i, struct bench_run *run,
			void (*fn)(const struct bench_run *, FILE *))
{
	struct bench_output *o = &run->outputs[i];
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

void bench_report_format(const struct bench_run *run, FILE *out)
{
	if (run->job.format == BENCH_JSON)
		(run->cluster ? bench_cluster_json : bench_report_json)(run, out);
	else if (run->job.format == BENCH_CSV)
		(run->cluster ? bench_cluster_csv : bench_report_csv)(run, out);
	else
		(run->cluster ? bench_cluster_text : bench_report_text)(run, out);
}

void bench_timeline(const struct bench_run *run, FILE *out)
{
	(run->cluster ? bench_cluster_timeline : bench_timeline_csv)(run, out);
}

int bench_report(struct bench_run *run)
{
	int ret = 0;

	if (run->hooks && !run->cluster)
		return 0;	/* a rank of pagecliff-mpi: rank 0 reports for all */
	bench_analyse(run);
	if (run->outputs[BENCH_OUT_REPORT].fd >= 0) {
		ret = write_output(BENCH_OUT_REPORT, run, bench_report_format);
	} else {
		bench_report_format(run, stdout);
		fflush(stdout);
	}
	if (run->outputs[BENCH_OUT_TIMELINE].fd >= 0 && run->nrows)
		ret |= write_output(BENCH_OUT_TIMELINE, run, bench_timeline);
	if (run->outputs[BENCH_OUT_PLOT].fd >= 0 && run->nrows) {
		int err = write_output(BENCH_OUT_PLOT, run, bench_plot_svg);

		if (!err)
			fprintf(stderr, "chart: %s\n", run->job.plot);
		ret |= err;
	}
	return ret;
}

/* Whether @path could be opened for writing as output @what, made or not
 * (bench_open_outputs() with nothing made); exits 2 after one line if not. */
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

void bench_check_outputs(const struct bench_run *run, const struct bench_given *g)
{
	const char *paths[BENCH_OUT_N] = { run->job.output, run->job.timeline,
				     g->plot ? run->job.plot : NULL };
	struct stat st[BENCH_OUT_N];

	for (int i = 0; i < BENCH_OUT_N; i++) {
		if (!paths[i])
			continue;
		check_output(out_what[i], paths[i], &st[i]);
		for (int j = 0; j < i; j++)
			if (paths[j] && st[i].st_ino && S_ISREG(st[i].st_mode) &&
			    st[j].st_ino && st[j].st_dev == st[i].st_dev &&
			    st[j].st_ino == st[i].st_ino)
				usage_error("the %s and the %s are the same file '%s'",
					    out_what[j], out_what[i], paths[i]);
	}
}
