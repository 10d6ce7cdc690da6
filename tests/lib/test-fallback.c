// SPDX-License-Identifier: MIT
/*
 * Forced fallbacks stay exact: with io_uring, RWF_DONTCACHE or O_DIRECT
 * refused by the kernel (a seccomp filter, as a sysctl, a file system or a
 * sandbox would), every strategy still returns the file's bytes and the
 * stream's reason says what was refused.
 */
#include <string.h>
#include <unistd.h>

#include "exact.h"
#include "helpers.h"

static char dir[4096];

struct scenario {
	enum t_refuse refuse;
	const char *needle;		/* must appear in the reason */
	enum pc_strategy asked;
	enum pc_strategy want;		/* the strategy it must end on (PC_AUTO: any) */
};

static const struct scenario scenarios[] = {
	{ T_REFUSE_URING, "io_uring unavailable", PC_DIRECT, PC_DIRECT },
	{ T_REFUSE_DONTCACHE, "RWF_DONTCACHE refused", PC_DONTCACHE, PC_DROPBEHIND },
	{ T_REFUSE_DIRECT, "O_DIRECT refused", PC_DIRECT, PC_DROPBEHIND },
	{ T_REFUSE_DIRECT, "O_DIRECT refused", PC_AUTO, PC_AUTO },
};

static int run_scenario(void *arg)
{
	const struct scenario *sc = arg;
	uint64_t sizes[] = { 0, 4097, (1 << 20) + 1, (64u << 20) + 3 };
	char path[4200];

	t_refuse(sc->refuse);
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct pc_opts o;
		struct pc_stream *s;
		struct pc_stats st;

		snprintf(path, sizeof(path), "%s/f%u", dir, i);
		exact_check(path, sizes[i], i + 7, sc->asked, 65539, 1 << 20);
		t_evict(path);
		pc_opts_init(&o);
		o.strategy = sc->asked;
		T_CHECK(!pc_stream_open(&s, path, &o), "cannot open %s", path);
		pc_stream_stats(s, &st);
		pc_stream_close(s);
		/* auto picks direct for large files only */
		if (sc->asked == PC_AUTO && sizes[i] < (4 << 20))
			continue;
		T_CHECK(sc->want == PC_AUTO || st.strategy == sc->want,
			"%s: ended on %s, want %s (%s)",
			path, pc_strategy_name(st.strategy),
			pc_strategy_name(sc->want), st.reason);
		T_CHECK(strstr(st.reason, sc->needle), "%s: reason '%s' lacks '%s'",
			path, st.reason, sc->needle);
	}
	return 0;
}

int main(void)
{
	uint64_t sizes[] = { 0, 4097, (1 << 20) + 1, (64u << 20) + 3 };
	char path[4200];
	int failed = 0;

	t_tmpdir(dir, sizeof(dir), t_workdir());
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(path, sizeof(path), "%s/f%u", dir, i);
		t_make_file(path, sizes[i], i + 7);
	}
	for (unsigned int i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		int st = t_in_child(run_scenario, (void *)&scenarios[i]);

		if (st == T_EXIT_SKIP) {
			t_rmtree(dir);
			t_skip("seccomp unavailable");
		}
		if (st) {
			fprintf(stderr, "scenario %u (%s) failed\n", i, scenarios[i].needle);
			failed = 1;
		}
	}
	t_rmtree(dir);
	return failed ? T_EXIT_FAIL : T_EXIT_PASS;
}
