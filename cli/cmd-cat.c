// SPDX-License-Identifier: MIT
/*
 * pagecliff cat: write files to stdout through the library, like cat(1) but
 * without leaving them in the page cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pagecliff.h"
#include "cmd.h"
#include "progress.h"
#include "quote.h"
#include "util.h"
#include "clock.h"

struct cat_opts {
	struct pc_opts lib;
	int stats;
	int copy;		/* use the copy API instead of borrowing chunks */
	char *buf;		/* the copy API's buffer */
	struct stat out;	/* standard output, to refuse to read it */
	int out_failed;		/* standard output failed: reported, stop */
	int want_progress;	/* --progress */
	struct progress progress;
};

enum { CAT_COPY = CMD_LONG, CAT_PROGRESS };

static const struct cmd_option cat_options[] = {
	{ "mode", 'm', CMD_ARG_REQUIRED, "MODE",
	  CMD_HELP_MODES "; default auto" },
	{ "bs", 'b', CMD_ARG_REQUIRED, "SIZE",
	  "bytes per read, fio units (4k, 1m, 1MiB); default 1m" },
	{ "copy", CAT_COPY, CMD_ARG_NONE, NULL,
	  "read into a buffer of cat's own instead of borrowing\n"
	  "the library's (measures the copy API)" },
	{ "stats", 's', CMD_ARG_NONE, NULL,
	  "per file on stderr: bytes, GB/s, strategy and why,\n"
	  "page-cache pages added and dropped" },
	{ "progress", CAT_PROGRESS, CMD_ARG_NONE, NULL,
	  "on a terminal: bytes, rate and time left on stderr,\n"
	  "like pv" },
	{ 0 },
};

/* Cached bytes of the file on @fd, or UINT64_MAX when it cannot tell. */
static uint64_t cached_now(int fd)
{
	uint64_t bytes;

	return pc_cached_bytes(fd, 0, 0, &bytes) ? UINT64_MAX : bytes;
}

/* @bytes as a page count into @buf, or "unknown" for UINT64_MAX. */
static const char *pages_str(uint64_t bytes, uint64_t psz, char *buf, size_t size)
{
	if (bytes == UINT64_MAX)
		snprintf(buf, size, "unknown");
	else
		snprintf(buf, size, "%llu", (unsigned long long)(bytes / psz));
	return buf;
}

static void print_stats(const char *name, struct pc_stream *s, double secs,
			uint64_t before, uint64_t after)
{
	uint64_t psz = (uint64_t)sysconf(_SC_PAGESIZE);
	char added[32], b[24], a[24];
	struct pc_stats st;

	pc_stream_stats(s, &st);
	if (before != UINT64_MAX && after != UINT64_MAX)
		snprintf(added, sizeof(added), "%+lld pages",
			 ((long long)after - (long long)before) / (long long)psz);
	else
		snprintf(added, sizeof(added), "unknown");
	fprintf(stderr,
		"%s: %llu bytes, %.3f s, %.2f GB/s, strategy %s (%s), "
		"page cache %s (%s cached before, %s after), "
		"%llu pages dropped, %llu syscalls\n",
		name, (unsigned long long)st.bytes_read, secs,
		secs > 0 ? st.bytes_read / secs / 1e9 : 0.0,
		pc_strategy_name(st.strategy), st.reason, added,
		pages_str(before, psz, b, sizeof(b)), pages_str(after, psz, a, sizeof(a)),
		(unsigned long long)(st.bytes_dropped / psz),
		(unsigned long long)st.syscalls);
}

/* Copy the whole stream to stdout; 0, or an error already reported. */
static int pump(const char *name, struct pc_stream *s, struct cat_opts *o)
{
	for (;;) {
		const void *p = o->buf;
		ssize_t n;
		int ret;

		if (o->copy)
			n = pc_stream_read(s, o->buf, o->lib.chunk_size);
		else
			n = pc_stream_next(s, &p);
		if (n == 0)
			return 0;
		if (n < 0) {
			struct pc_stats st;

			pc_stream_stats(s, &st);
			return error("cannot read %s at byte %llu: %s", name,
				     (unsigned long long)st.bytes_read, strerror(-n));
		}
		ret = write_all(STDOUT_FILENO, p, n);
		if (ret) {
			o->out_failed = 1;
			return error("cannot write standard output: %s",
				     strerror(-ret));
		}
		progress_add(&o->progress, (uint64_t)n);
	}
}

/*
 * Whether @fd (stat @st) is the regular file standard output writes to and
 * has bytes left to read: copying it would feed its own output back in
 * without end (cat(1)'s "input file is output file").
 */
static int is_output(int fd, const struct stat *st, const struct cat_opts *o)
{
	off_t cur;

	if (!S_ISREG(o->out.st_mode) || st->st_dev != o->out.st_dev ||
	    st->st_ino != o->out.st_ino)
		return 0;
	cur = lseek(fd, 0, SEEK_CUR);
	return cur < st->st_size;
}

/*
 * Leave a regular file's offset where reading ended, as read(2) and cat(1)
 * do: the library reads at its own cursor and never moves the fd's offset,
 * so the next reader of a shared stdin would see the same bytes again.
 */
static int advance_offset(int fd, uint64_t start, struct pc_stream *s,
			  const char *name)
{
	struct pc_stats st;

	pc_stream_stats(s, &st);
	if (lseek(fd, (off_t)(start + st.bytes_read), SEEK_SET) < 0)
		return error("cannot move the offset of %s: %s", name, strerror(errno));
	return 0;
}

/* Copy one open file to stdout; 0, or -1 with the error reported. */
static int cat_fd(int fd, const char *name, struct cat_opts *o)
{
	uint64_t before, after, start = 0;
	struct pc_stream *s;
	struct stat st;
	double t0;
	int ret;

	if (fstat(fd, &st))
		return error("cannot read %s: %s", name, strerror(errno));
	if (is_output(fd, &st, o))
		return error("%s: input file is output file", name);
	if (S_ISREG(st.st_mode)) {
		off_t cur = lseek(fd, 0, SEEK_CUR);

		start = cur > 0 ? (uint64_t)cur : 0;
	}
	/* a pipe or terminal has no page cache to count */
	before = o->stats && S_ISREG(st.st_mode) ? cached_now(fd) : UINT64_MAX;
	t0 = pcc_now_sec();
	ret = pc_stream_fdopen(&s, fd, &o->lib);
	if (ret)
		return error("cannot read %s: %s", name, strerror(-ret));
	ret = pump(name, s, o);
	if (o->stats) {
		double secs = pcc_now_sec() - t0;

		progress_end(&o->progress);	/* the line is the stats' */
		after = S_ISREG(st.st_mode) ? cached_now(fd) : UINT64_MAX;
		print_stats(name, s, secs, before, after);
	}
	if (S_ISREG(st.st_mode) && advance_offset(fd, start, s, name))
		ret = -1;
	pc_stream_close(s);
	return ret;
}

static int cat_one(const char *path, struct cat_opts *o)
{
	int fd, ret;

	if (!strcmp(path, "-"))
		return cat_fd(STDIN_FILENO, "standard input", o);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return error("cannot open %s: %s", quote_name(path), strerror(errno));
	ret = cat_fd(fd, quote_name(path), o);
	close(fd);
	return ret;
}

static void cat_option(void *state, int key, const char *arg)
{
	struct cat_opts *o = state;

	switch (key) {
	case 'm':
		o->lib.strategy = cmd_mode_arg(arg);
		break;
	case 'b':
		o->lib.chunk_size = cmd_bs_arg(arg, 1u << 30, "1g");
		break;
	case CAT_COPY:
		o->copy = 1;
		break;
	case 's':
		o->stats = 1;
		break;
	case CAT_PROGRESS:
		o->want_progress = 1;
		break;
	}
}

static int cmd_cat(int argc, char **argv)
{
	struct cat_opts o = { 0 };
	char *stdin_only[] = { "-", NULL };
	char **files;
	uint64_t total = 0;
	int failed = 0, first;

	pc_opts_init(&o.lib);
	first = cmd_parse(&cmd_cat_entry, argc, argv, &o);
	/* before any open(2) could be handed fd 1 and write into an input */
	if (fstat(STDOUT_FILENO, &o.out))
		die("cannot write standard output: %s", strerror(errno));
	files = first < argc ? argv + first : stdin_only;
	if (o.copy) {
		o.buf = pc_buf_alloc(o.lib.chunk_size);
		if (!o.buf)
			die("cannot allocate a %zu-byte buffer", o.lib.chunk_size);
	}
	for (char **f = files; o.want_progress && *f; f++)
		total += strcmp(*f, "-") ? progress_tree_bytes(*f, 0) : 0;
	progress_start(&o.progress, o.want_progress, "cat", total);
	for (; *files && !o.out_failed; files++) {
		if (cat_one(*files, &o))
			failed = 1;
	}
	progress_end(&o.progress);
	pc_buf_free(o.buf, o.lib.chunk_size);
	return failed;
}

const struct cmd_entry cmd_cat_entry = {
	.name = "cat",
	.summary = "stream files to stdout without flooding the page cache",
	.usage = "[--mode MODE] [--bs SIZE] [--copy] [--stats] [--progress] FILE...",
	.about = "Write FILEs (- for stdin) to stdout without leaving them in the page cache.",
	.options = cat_options,
	.width = 15,
	.operands = { 0, -1 },
	.option = cat_option,
	.exec = cmd_cat,
};
