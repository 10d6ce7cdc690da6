// SPDX-License-Identifier: MIT
/*
 * io_uring_enter(2) refusing to submit, with EAGAIN (no request memory for
 * now) or ENOMEM, for the first one or three submissions or for all of them
 * (uring-inject.c).  "direct" must not hang, not even in close, and never
 * hand out a wrong byte.  A passing refusal must cost nothing: the whole
 * file exact.  A lasting one: the whole file exact (a synchronous
 * fallback) or -EAGAIN/-ENOMEM from the read; either is accepted.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "rig.h"
#include "uring-inject.h"

#define FILE_SIZE ((16ull << 20) + 3)

struct inject_case {
	int err;
	unsigned long count;		/* ULONG_MAX: every submission */
};

static const char *path;

static int run_case(void *arg)
{
	const struct inject_case *c = arg;
	int lasting = c->count == ULONG_MAX;
	struct fr_result r;
	struct pc_stats st;
	struct pc_stream *s;
	int ok;

	signal(SIGALRM, SIG_DFL);	/* the parent sees SIGALRM: a hang */
	alarm(5);
	ui_install(c->err, c->count);
	s = fr_open(path, PC_DIRECT);
	pc_stream_stats(s, &st);
	if (st.strategy != PC_DIRECT) {
		printf("SKIP: direct is not available here: %s\n", st.reason);
		fflush(stdout);
		return T_EXIT_SKIP;
	}
	fr_drain(s, 1 << 20, FR_SEED, &r);
	pc_stream_close(s);
	ok = r.bad < 0 && ((!r.err && r.bytes == FILE_SIZE) ||
			   (lasting && r.err == -c->err));
	printf("%s %s on %s submissions (%lu refused): %llu bytes, %s\n",
	       ok ? "ok  " : "FAIL", strerror(c->err), lasting ? "all" : "the first",
	       ui_refused(), (unsigned long long)r.bytes,
	       r.err ? strerror(-r.err) : "end of file, exact");
	fflush(stdout);
	return ok ? T_EXIT_PASS : T_EXIT_FAIL;
}

int main(void)
{
	static const struct inject_case cases[] = {
		{ EAGAIN, 0 }, { EAGAIN, 1 }, { EAGAIN, 3 }, { ENOMEM, 1 },
		{ EAGAIN, ULONG_MAX }, { ENOMEM, ULONG_MAX },
	};
	int failed = 0, skipped = 0;

	path = fr_scratch_file(FILE_SIZE);
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int st = t_in_child(run_case, (void *)&cases[i]);

		if (st == 128 + SIGALRM)
			printf("FAIL %s on %s submissions: hung\n", strerror(cases[i].err),
			       cases[i].count == ULONG_MAX ? "all" : "the first");
		skipped += st == T_EXIT_SKIP;
		failed += st != T_EXIT_PASS && st != T_EXIT_SKIP;
	}
	fr_scratch_remove();
	if (skipped == sizeof(cases) / sizeof(cases[0]))
		t_skip("direct or seccomp not available");
	T_CHECK(!failed, "%d io_uring submission failures mishandled", failed);
	printf("io_uring submission failures handled\n");
	return T_EXIT_PASS;
}
