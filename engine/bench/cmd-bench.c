// SPDX-License-Identifier: MIT
/*
 * pagecliff bench: reproduce the page-cache cliff, one phase per read mode
 * over the same files, sampled every interval, judged and charted.  This
 * file is the command: its entry in the command table, the signals, and
 * the order of a run: parse (bench-options.c), open the journal (as root)
 * and the outputs (bench-output.c), set up (bench-setup.c), lay out and run
 * the phases, always tear down, then report; the journal holds the outputs
 * until they are written.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cgroup.h"
#include "cmd.h"
#include "testbed.h"
#include "util.h"

/* The signal that stopped the run: process-wide, as its handler is. */
static atomic_int stop_signal;

static void on_signal(int sig)
{
	bench_stop = 1;
	stop_signal = sig;
}

void bench_parse_opts(int argc, char **argv, struct bench_job *job, struct bench_given *g)
{
	struct bench_parse p = { job, g };

	cmd_parse(&cmd_bench_entry, argc, argv, &p);
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/*
 * After the teardown the journal holds only the outputs bench made, still
 * to be written: a run killed while it writes its report leaves no partial
 * report behind either.  The new journal is open before the old one goes.
 */
static void journal_outputs_only(struct bench_run *run)
{
	struct state_journal next = { 0 };

	if (!run->journal.path[0])
		return;
	if (state_open(&next))
		next.path[0] = '\0';
	state_close(&run->journal);
	run->journal = next;
	for (int i = 0; i < BENCH_OUT_N; i++)
		if (run->outputs[i].made && run->outputs[i].fd >= 0)
			state_record_output(&run->journal, run->outputs[i].path,
					    run->outputs[i].fd);
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

	bench_record_folders(run);
	if (bench_claim(run, 0)) {
		bench_release(run);
		journal_outputs_only(run);
		return -EXIT_USAGE;
	}
	if (run->job.mem_limit && (ret = bench_make_cgroup(run, &cg)))
		goto out;
	if (run->job.testbed && (ret = bench_setup_testbed(run, &tb)))
		goto out;
	if (bench_claim(run, ndirs) || bench_layout_check(run, &to_write)) {
		ret = -EXIT_USAGE;
		goto out;
	}
	if (bench_stop || (ret = bench_layout(run)))
		goto out;
	bench_trace_start(run);		/* before the cap: its memory is not the workers' */
	if ((ret = bench_join_cgroup(run, &cg)))
		goto out;
	if (!bench_stop)
		ret = bench_run_capped(run, &cg);
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
	journal_outputs_only(run);
	return ret;
}

/* Run the parsed job and report; returns the exit status. */
static int bench_main(struct bench_run *run, const struct bench_given *g)
{
	int ret;

	if (g->cleanup) {
		if (geteuid())
			usage_error("--cleanup needs root: what it removes was made by root");
		bench_cleanup_stale();
		return 0;
	}
	bench_apply_defaults(run, g);
	if (run->hooks)
		run->hooks->job_ready(run);
	bench_check_job(run);
	bench_scope_reexec(run);	/* before anything is made: it may not return */
	if (!geteuid())
		state_open(&run->journal);
	bench_open_outputs(run, g);
	bench_cleanup_stale();
	if (run->job.builtin && !run->job.testbed)
		bench_builtin_dir(run);
	if (run->job.keep && run->job.testbed)
		bench_note(run, "--keep has no effect on the testbed: it is torn down");
	if (run->job.keep && run->job.rw == BENCH_WRITE)
		bench_note(run, "--keep has no effect with --rw write: each phase removes the "
			   "files it wrote");
	run->started = (double)time(NULL);
	ret = run_job(run);
	if (ret == -EXIT_USAGE) {
		bench_outputs_abandon(run);
		state_close(&run->journal);
		return EXIT_USAGE;
	}
	if (run->nrows || run->interrupted)
		ret |= bench_report(run);
	bench_outputs_abandon(run);	/* what got no rows */
	state_close(&run->journal);
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
	bench_outputs_init(run);
	bench_parse_opts(argc, argv, &run->job, g);
	return run;
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
	bench_apply_defaults(run, &g);
	bench_check_job(run);
	if (with_outputs)
		bench_check_outputs(run, &g);
	if (run->job.builtin && !run->job.testbed)
		bench_builtin_dir(run);
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

	if (!hooks) {		/* a rank of pagecliff-mpi is not run again */
		run->argc = argc;
		run->argv = argv;
	}
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

