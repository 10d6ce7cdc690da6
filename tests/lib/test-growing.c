// SPDX-License-Identifier: MIT
/*
 * A file that grows or shrinks while it is read: a stream ends where a plain
 * read(2) would end at that moment (cat(1)'s contract: read until read(2)
 * returns 0).  For every strategy and auto (which takes direct for this cold
 * file) and for the copy API (aligned whole chunks, odd lengths into an
 * unaligned buffer, positioned reads) and the lent API: open, read part of
 * the file, let another process append less than a page, a dozen lines
 * across page boundaries or many MiB, or truncate it (above and below the
 * cursor, and once with other bytes written after the cut), then read until
 * the stream says end of file; every byte must be the file's and the end
 * must be the file's size then.  What it catches: a direct pipeline that
 * stops at the size it saw when it filled its read-ahead or hands out
 * read-ahead bytes a truncate took away, and a small-read buffer (the other
 * strategies') that hands out its old bytes after a truncate and new writes.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define SEED 23
/* Bytes written after a truncate: other bytes at the same offsets. */
#define SEED_NEW 24
/* Over auto's 4 MiB line, and no multiple of a page. */
#define START (4 * MIB + 1000)
/* What is read before the file changes: the direct pipeline reads it all ahead. */
#define PART (MIB + 4097)

enum api { API_READ, API_ODD, API_NEXT, API_PREAD, API_COUNT };
static const char *const api_name[] = { "read", "read-odd", "next", "pread" };

enum change {
	GROW_SMALL,		/* 100 bytes */
	GROW_LINES,		/* 13 lines of 1000 bytes: across 3 pages */
	GROW_BIG,		/* 9 MiB + 333 in 1 MiB writes */
	GROW_TAIL,		/* read into the last page first, then 5000 bytes */
	GROW_AFTER_EOF,		/* read to the end first, then 2 pages + 77 */
	GROW_FROM_EMPTY,	/* opened empty, then 2 MiB + 5 */
	SHRINK,			/* truncated above the cursor */
	SHRINK_BELOW,		/* truncated below the cursor */
	SHRINK_REGROW,		/* truncated, read to the end, new bytes appended */
	CHANGE_COUNT
};
static const char *const change_name[] = {
	"grow 100 B", "grow 13 lines", "grow 9 MiB", "grow from the last page",
	"grow after end of file", "grow from empty", "shrink above the cursor",
	"shrink below the cursor", "shrink, then new bytes"
};

struct reader {
	struct pc_stream *s;
	enum api api;
	char *buf;		/* 1 MiB + a page, page aligned */
	uint64_t off;		/* bytes read and checked */
	uint64_t renewed;	/* bytes from here on are SEED_NEW's */
	unsigned int calls;
	size_t len;		/* API_ODD: this length, 0: the odd ones in turn */
	const char *what;	/* for messages */
};

/* Append @len bytes of pattern @seed, @piece per write, from a child. */
static void append_seed(const char *path, uint64_t len, size_t piece, uint32_t seed)
{
	pid_t pid = fork();
	int status;

	T_CHECK(pid >= 0, "fork");
	if (!pid) {
		int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		char *buf = malloc(piece);
		off_t at = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);

		if (at < 0 || !buf)
			_exit(2);
		for (uint64_t done = 0; done < len; done += piece) {
			size_t n = len - done < piece ? len - done : piece;

			t_pattern_fill(buf, at + done, n, seed);
			if (write(fd, buf, n) != (ssize_t)n)
				_exit(3);
		}
		_exit(close(fd) ? 4 : 0);
	}
	T_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		!WEXITSTATUS(status), "appending to %s failed", path);
}

static void append(const char *path, uint64_t len, size_t piece)
{
	append_seed(path, len, piece, SEED);
}

/* The first byte of @p (@n bytes at @off) that is not the file's, or -1. */
static int64_t check(const struct reader *r, const char *p, uint64_t off, size_t n)
{
	size_t old = off >= r->renewed ? 0 : r->renewed - off < n ? r->renewed - off : n;
	int64_t bad = t_pattern_check(p, off, old, SEED);

	if (bad < 0)
		bad = t_pattern_check(p + old, off + old, n - old, SEED_NEW);
	return bad;
}

static void shrink(const char *path, uint64_t size)
{
	T_CHECK(!truncate(path, (off_t)size), "truncate %s", path);
}

/* One read of the API's kind at the reader's offset; bytes checked. */
static ssize_t read_one(struct reader *r)
{
	static const size_t odd[] = { 4097, 100, 65539, 1, 300001, 4095 };
	const void *p = r->buf;
	ssize_t n;

	switch (r->api) {
	case API_READ:
		n = pc_stream_read(r->s, r->buf, MIB);
		break;
	case API_ODD:
		p = r->buf + 1;
		n = pc_stream_read(r->s, r->buf + 1, r->len ? r->len : odd[r->calls % 6]);
		break;
	case API_NEXT:
		n = pc_stream_next(r->s, &p);
		break;
	default:
		n = pc_stream_pread(r->s, r->buf, 300001, r->off);
		break;
	}
	r->calls++;
	T_CHECK(n >= 0, "%s: read at %llu failed: %s", r->what,
		(unsigned long long)r->off, strerror((int)-n));
	if (n > 0) {
		int64_t bad = check(r, p, r->off, n);

		T_CHECK(bad < 0, "%s: byte %lld is not the file's (read of %zd at %llu)",
			r->what, (long long)bad, n, (unsigned long long)r->off);
	}
	r->off += n;
	return n;
}

static void read_to(struct reader *r, uint64_t until)
{
	while (r->off < until && read_one(r) > 0)
		;
}

static void read_to_end(struct reader *r)
{
	while (read_one(r) > 0)
		;
}

/* Make the file's change; returns where a plain read must end now. */
static uint64_t make_change(const char *path, enum change c, struct reader *r)
{
	uint64_t size = START;

	switch (c) {
	case GROW_SMALL:
		append(path, 100, 100);
		return size + 100;
	case GROW_LINES:
		append(path, 13000, 1000);
		return size + 13000;
	case GROW_BIG:
		append(path, 9 * MIB + 333, MIB);
		return size + 9 * MIB + 333;
	case GROW_TAIL:
		read_to(r, START - 500);
		append(path, 5000, 1000);
		return size + 5000;
	case GROW_AFTER_EOF:
		read_to_end(r);
		T_CHECK(r->off == START, "%s: ended at %llu of %llu bytes", r->what,
			(unsigned long long)r->off, START);
		append(path, 2 * 4096 + 77, 3000);
		return size + 2 * 4096 + 77;
	case GROW_FROM_EMPTY:
		append(path, 2 * MIB + 5, 65536);
		return 2 * MIB + 5;
	case SHRINK:
		shrink(path, 3 * MIB + 333);
		return 3 * MIB + 333;
	case SHRINK_REGROW:
		/* Cut above the cursor, in what was read ahead: those bytes must go. */
		size = r->off + 100000;
		shrink(path, size);
		/*
		 * With 100-byte reads the stream's small-read buffer holds 1 MiB
		 * past the cut; reads of 300001 to the end pass it by at the end,
		 * where it keeps the old bytes unless it saw the file shrink.
		 */
		r->len = r->len ? 300001 : 0;
		read_to_end(r);
		T_CHECK(r->off == size, "%s: ended at %llu after the truncate to %llu",
			r->what, (unsigned long long)r->off, (unsigned long long)size);
		r->len = r->len ? 100 : 0;	/* the next bytes through the buffer */
		r->renewed = size;
		append_seed(path, 2 * MIB + 7, 100000, SEED_NEW);
		return size + 2 * MIB + 7;
	default:
		shrink(path, 512 * KIB + 5);
		return 512 * KIB + 5;
	}
}

struct test_case {
	const char *dir;
	int strategy;		/* -1: auto */
	enum api api;
	enum change change;
};

static int run_case(void *arg)
{
	const struct test_case *t = arg;
	const char *dir = t->dir;
	int strategy = t->strategy;
	enum api api = t->api;
	enum change c = t->change;
	char path[4200], what[200];
	struct reader r = { .api = api, .what = what, .renewed = UINT64_MAX };
	struct pc_stats st;
	struct pc_opts o;
	uint64_t end;

	snprintf(what, sizeof(what), "%s, %s, %s",
		 strategy < 0 ? "auto" : pc_strategy_name(strategy),
		 api_name[api], change_name[c]);
	snprintf(path, sizeof(path), "%s/f", dir);
	t_make_file(path, c == GROW_FROM_EMPTY ? 0 : START, SEED);
	t_evict(path);
	pc_opts_init(&o);
	o.strategy = strategy < 0 ? PC_AUTO : strategy;
	T_CHECK(!pc_stream_open(&r.s, path, &o), "%s: open", what);
	pc_stream_stats(r.s, &st);
	/* Where a file system refuses a strategy, its fallback was tested already. */
	if (strategy >= 0 && st.strategy != (enum pc_strategy)strategy)
		t_skip("%s: not here: %s", what, st.reason);
	if (strategy < 0 && c != GROW_FROM_EMPTY && st.strategy != PC_DIRECT)
		t_skip("%s: auto chose %s: %s", what, pc_strategy_name(st.strategy),
		       st.reason);
	if (api == API_ODD && c == SHRINK_REGROW)
		r.len = 100;
	r.buf = pc_buf_alloc(MIB + 4096);
	T_CHECK(r.buf, "%s: buffer", what);
	read_to(&r, c == GROW_FROM_EMPTY ? 1 : PART);
	end = make_change(path, c, &r);
	if (r.off > end && api == API_PREAD)
		r.off = end - 4096;	/* positioned: read what is left at the end */
	else if (r.off > end)
		end = r.off;	/* the cursor is past the new end: read(2) gives 0 */
	read_to_end(&r);
	T_CHECK(r.off == end, "%s: read ended at %llu, the file has %llu bytes",
		what, (unsigned long long)r.off, (unsigned long long)end);
	T_CHECK(read_one(&r) == 0, "%s: bytes after the end", what);
	pc_buf_free(r.buf, MIB + 4096);
	pc_stream_close(r.s);
	T_CHECK(!unlink(path), "unlink %s", path);
	return 0;
}

int main(void)
{
	static const int strategies[] = { PC_BUFFERED, PC_DONTCACHE, PC_DROPBEHIND,
					  PC_DIRECT, -1 };
	char dir[4096];
	unsigned int cases = 0, failed = 0, skipped = 0;

	alarm(240);	/* a hang is a failure */
	t_tmpdir(dir, sizeof(dir), t_workdir());
	for (unsigned int i = 0; i < sizeof(strategies) / sizeof(*strategies); i++)
		for (int api = 0; api < API_COUNT; api++)
			for (int c = 0; c < CHANGE_COUNT; c++, cases++) {
				struct test_case t = { dir, strategies[i], api, c };
				char path[4200];
				int ret;

				/* Each in a child: every failing case is named. */
				ret = t_in_child(run_case, &t);
				skipped += ret == T_EXIT_SKIP;
				failed += ret && ret != T_EXIT_SKIP;
				snprintf(path, sizeof(path), "%s/f", dir);
				unlink(path);
			}
	t_rmtree(dir);
	if (failed)
		t_fail("%u of %u cases did not end where read(2) ends", failed, cases);
	if (skipped == cases)
		t_skip("no strategy as requested here");
	printf("%u cases (%u skipped): every stream ended where read(2) ends, "
	       "with the file's bytes\n", cases, skipped);
	return T_EXIT_PASS;
}
