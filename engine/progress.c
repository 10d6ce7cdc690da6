// SPDX-License-Identifier: MIT
/*
 * Progress on a terminal (progress.h): bytes, share, rate and time left, as
 * rsync --info=progress2 and pv show them, on one line of stderr that is
 * redrawn in place ("\r", then erase to the end of the line) and erased when
 * the work ends.
 */
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progress.h"
#include "util.h"
#include "clock.h"

void progress_start(struct progress *p, int want, const char *label, uint64_t total)
{
	*p = (struct progress){
		.on = want && isatty(STDERR_FILENO),
		.label = label,
		.total = total,
		.t0 = pcc_now_sec(),
	};
}

/* "12.3 MiB": three digits at most before the unit. */
static const char *human(double v, char *buf, size_t size)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	unsigned int u = 0;

	while (v >= 1000 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

/* "1:02:03" or "2:03". */
static const char *clock_text(double secs, char *buf, size_t size)
{
	unsigned long s = secs > 0 && secs < 360000 ? (unsigned long)(secs + 0.5) : 0;

	if (s >= 3600)
		snprintf(buf, size, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, size, "%lu:%02lu", s / 60, s % 60);
	return buf;
}

static void draw(struct progress *p, double now)
{
	double secs = now - p->t0, rate = secs > 0 ? p->done / secs : 0;
	char done[16], total[16], speed[16], when[48];

	fprintf(stderr, "\r%s%s%s", p->label ? p->label : "", p->label ? ": " : "",
		human((double)p->done, done, sizeof(done)));
	if (p->total)
		fprintf(stderr, " of %s (%.0f%%)", human((double)p->total, total, sizeof(total)),
			p->done >= p->total ? 100.0 : 100.0 * p->done / p->total);
	fprintf(stderr, ", %s/s", human(rate, speed, sizeof(speed)));
	if (p->total && rate > 0 && p->done <= p->total)
		fprintf(stderr, ", %s left", clock_text((p->total - p->done) / rate, when,
							 sizeof(when)));
	else
		fprintf(stderr, ", %s", clock_text(secs, when, sizeof(when)));
	fputs("\033[K", stderr);
	fflush(stderr);
	p->drawn_at = now;
	p->drawn = 1;
}

/* Draw when the period has passed since the last drawing (or none was). */
static void maybe_draw(struct progress *p)
{
	double now;

	if (!p || !p->on)
		return;
	now = pcc_now_sec();
	if (!p->drawn || now - p->drawn_at >= PROGRESS_PERIOD)
		draw(p, now);
}

void progress_add(struct progress *p, uint64_t n)
{
	if (!p)
		return;
	p->done += n;
	maybe_draw(p);
}

void progress_file_done(struct progress *p, uint64_t size)
{
	if (!p)
		return;
	p->done = p->file_base + size;
	p->file_base = p->done;
	maybe_draw(p);
}

void progress_status(struct progress *p, int force, const char *fmt, ...)
{
	double now;
	va_list ap;

	if (!p || !p->on)
		return;
	now = pcc_now_sec();
	if (!force && p->drawn && now - p->drawn_at < PROGRESS_PERIOD)
		return;
	fputc('\r', stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\033[K", stderr);
	fflush(stderr);
	p->drawn_at = now;
	p->drawn = 1;
}

void progress_end(struct progress *p)
{
	if (!p || !p->on || !p->drawn)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->drawn = 0;
}

static uint64_t tree_sum;

static int add_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type == FTW_F && S_ISREG(st->st_mode))
		tree_sum += (uint64_t)st->st_size;
	return 0;
}

uint64_t progress_tree_bytes(const char *path, int recursive)
{
	struct stat st;

	if (stat(path, &st))
		return 0;
	if (S_ISREG(st.st_mode))
		return (uint64_t)st.st_size;
	if (!recursive || !S_ISDIR(st.st_mode))
		return 0;
	tree_sum = 0;
	nftw(path, add_file, 32, FTW_PHYS);
	return tree_sum;
}
