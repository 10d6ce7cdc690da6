/* SPDX-License-Identifier: MIT */
/*
 * pagecliff bench: what its parts share.  One concern per file, and the
 * files call each other in one direction only: each calls only files of
 * the lines above its own (no two files call each other, no circle).
 *
 *   bench-util.c      the leaf: bench_stop, notes, sizes, sum over hosts
 *   bench-detect.c    the fall in a timeline          (bench-detect.h)
 *   bench-verdict.c   the cliff and the gap in words  (bench-verdict.h)
 *   bench-timeline.c  the table of a timeline row's columns
 *   bench-trace.c     the kernel's events: loaded, a row's, a phase's figures
 *   bench-plot.c      the SVG chart
 *     bench-analyse.c   figures, detector and verdict of each mode
 *     bench-text.c, bench-json.c, bench-csv.c   one host's report, per format
 *     bench-layout.c    the data folders, their lock and the data set
 *       bench-cluster.c   a run across hosts: totals, then each host's report
 *       bench-worker.c    the workers: NUMA placement, a read or write pass a file
 *       bench-sampler.c   a phase's sampling: one row per interval, the live line
 *       bench-run.c       the phases: cold start, workers started and joined (bench-run.h)
 *       testbed.c         the RAM testbed and the state journal (testbed.h)
 *         bench-options.c   the option table, defaults, the job's checks
 *         bench-setup.c     testbed, memory cgroup and sampler thread set up
 *         bench-output.c    the report, timeline and chart files; the format
 *           cmd-bench.c       the command: signals, set-up, run, tear-down
 *
 * A run's state lives in struct bench_run (journal, outputs, live line,
 * stop flag); the only process-wide state is bench_stop and the signal
 * that set it.
 */
#ifndef PC_CLI_BENCH_H
#define PC_CLI_BENCH_H

#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pagecliff.h"
#include "bench-detect.h"
#include "bench-verdict.h"
#include "cmd.h"
#include "progress.h"
#include "sample.h"
#include "testbed.h"

#define BENCH_MAX_DIRS 16
/* --numjobs: threads, each with its own file, per directory. */
#define BENCH_MAX_JOBS 64
#define BENCH_MAX_IODEPTH 1024
#define BENCH_MAX_BS (1ull << 30)
/* The least --size: a page. */
#define BENCH_MIN_SIZE 4096
/* The library's bound on one direct stream's bytes in flight: direct reads
 * fewer or smaller requests when --iodepth x --bs is more. */
#define BENCH_DIRECT_CEILING (64ull << 20)
/* Threads' stacks, the timeline, the program: beside the buffers. */
#define BENCH_MEM_BASE (16ull << 20)
/* --mem-align's offsets are below this; each worker's buffer has it spare. */
#define BENCH_ALIGN_ROOM 4096
/* O_DIRECT writes whole blocks: a multiple of any disk's logical block (512 or 4096). */
#define BENCH_DIRECT_BLOCK 4096
#define BENCH_MAX_MODES 8
#define BENCH_FOLDER "pagecliff-bench"
/* In every chart bench writes: the default chart is replaced only when it
 * carries it. */
#define BENCH_CHART_MARKER "<!-- written by pagecliff bench -->"

enum bench_format { BENCH_TEXT, BENCH_JSON, BENCH_CSV };
enum bench_api { BENCH_COPY, BENCH_ZEROCOPY };
enum bench_rw { BENCH_READ, BENCH_WRITE };
enum bench_engine { BENCH_ENGINE_DEFAULT, BENCH_ENGINE_SYNC, BENCH_ENGINE_PSYNC,
		    BENCH_ENGINE_URING };

/* The job, as parsed from the command line (fio's names where they overlap). */
struct bench_job {
	char *dirs[BENCH_MAX_DIRS];
	unsigned int ndirs;
	unsigned int numjobs;
	uint64_t size;			/* bytes per thread (file) */
	uint64_t bs;
	enum bench_engine engine;
	unsigned int iodepth;		/* 0: the library's default */
	double runtime;			/* seconds per phase, 0: until the files are read */
	int time_based;			/* loop over the files until runtime */
	int direct;			/* -1 unset, 0, 1 */
	enum pc_strategy modes[BENCH_MAX_MODES];
	unsigned int nmodes;
	uint64_t mem_align;
	int numa;
	uint64_t mem_limit;		/* 0: no cap */
	uint64_t testbed;		/* ram:SIZE bytes per device, 0: none */
	unsigned int testbed_devices;	/* ram:COUNTxSIZE: COUNT, 0 or 1: one */
	int keep;
	enum bench_format format;
	const char *output, *timeline, *plot;
	double interval;
	enum bench_api api;
	int builtin;			/* the built-in default job */
	int quiet;			/* no live status line */
	enum bench_rw rw;		/* --rw: read the data set, or write fresh files */
	int no_trace;			/* --no-trace: the /proc counters only */
};

/* What the command line set, so the built-in job fills in only the rest. */
struct bench_given {
	int numjobs, size, runtime, interval, plot, mem_limit, modes, time_based;
	int cleanup;
};

/*
 * Parse bench's options (argv[0] is the command's name) into @job, zeroed
 * but for direct = -1, and @g; a bad command line is one line and exit 2
 * (cmd_parse()), -h prints the help and exits 0.  For `pagecliff bench` and
 * other front ends of the same job.
 */
void bench_parse_opts(int argc, char **argv, struct bench_job *job, struct bench_given *g);

/* One sampling interval of one phase: every figure the report shows. */
struct bench_row {
	unsigned int mode;		/* index into job->modes */
	double t, dt;			/* end of the interval since phase start, length */
	uint64_t bytes, bytes_total;	/* read in the interval, in the phase so far */
	double gbps;			/* 1e9 bytes per second */
	double dir_gbps[BENCH_MAX_DIRS];
	/* The system over the interval as sample.c measured it: CPU shares,
	 * process and kswapd CPU, reclaim and PSI rates (NAN unknown). */
	struct sample_delta d;
	double sys_cpu;			/* CPU seconds of the system in the interval */
	double cache, cache_limit;	/* bytes (cgroup when capped); limit NAN if none */
	double reclaim;			/* pages/s taken by reclaim (cgroup or system) */
	unsigned int dstate;		/* worker threads in D state at the end */
	double dirty, writeback;	/* bytes (cgroup when capped), at the end */
	/* Write phases: share of the workers' kernel stacks, polled every
	 * 50 ms, caught in each place; NAN when stacks cannot be read. */
	double throttled_pct;		/* balance_dirty_pages: dirty throttling */
	double reclaim_wait_pct;	/* reclaim waiting for writeback */
	double reclaim_pct;		/* direct reclaim, any other wait */
	unsigned int flushing;		/* workers in their final fdatasync at the end */
	/* From the kernel's tracepoints (trace.c): % of the workers' time
	 * (kswapd: of its nodes' time), NAN when not traced */
	double direct_reclaim_pct, memcg_reclaim_pct, lock_wait_pct;
	double kswapd_busy_pct, dirty_throttle_pct;
	double top_lock_pct;		/* of the workers' time, at top_lock */
	char top_lock[96];		/* "spin lock in __remove_mapping", "" none */
};

/*
 * Kernel work per GiB moved, counted on the kernel's events (bench-trace.c):
 * by the workers, but the pages kswapd deletes, for every process.
 */
enum bench_work {
	BENCH_WORK_ADDED,		/* pages added to the page cache */
	BENCH_WORK_DELETED,		/* pages deleted from it */
	BENCH_WORK_DELETED_KSWAPD,	/* pages deleted from it by kswapd */
	BENCH_WORK_FADVISE,		/* fadvise calls */
	BENCH_WORK_DONTNEED,		/* of them POSIX_FADV_DONTNEED */
	BENCH_WORK_DRAIN,		/* lru_add_drain_all work queued, one a CPU */
	BENCH_WORK_IPI,			/* IPIs sent to other CPUs, one a CPU */
	BENCH_WORK_LOCK_WAITS,		/* contended-lock waits */
	BENCH_WORK_LOCK_MS,		/* their milliseconds */
	BENCH_NWORK,
};

/* One figure of the work: its JSON key and CSV column, text header, decimals. */
struct bench_work_fig {
	const char *key, *head;
	int prec;
};

extern const struct bench_work_fig bench_work_figs[BENCH_NWORK];

/* What one phase (mode) measured, beside its rows. */
struct bench_phase {
	enum pc_strategy mode;
	enum pc_strategy strategy;	/* what the library used */
	char reason[160];
	uint64_t bytes;
	double secs;
	uint64_t cached_before;		/* bytes of the files cached at the cold start */
	int cold_ok;			/* cached_before under 1% of the data set */
	int ran, interrupted;
	int error;			/* -errno of the first worker failure */
	size_t first_row, nrows;
	struct detect_result det;
	double gbps_avg, gbps_median, gbps_min;
	double cpu_proc_per_gib, cpu_sys_per_gib, cpu_kswapd_per_gib;
	double peak_cache, pages_reclaimed;
	double cache_start;		/* page cache at the phase's first sample */
	double sync_secs;		/* write phases: longest fdatasync at the end */
	double peak_dirty, peak_writeback;	/* bytes */
	double throttled_pct, reclaim_wait_pct, reclaim_pct;	/* over the phase */
	struct verdict v;		/* the cliff and the gap (bench-verdict.h) */
	char verdict[1024];		/* the cliff's words */
	char gap[512];			/* the gap's words, "" when none */
	/* Kernel events over the whole phase (trace.c), NAN when not traced */
	double direct_reclaim_pct, memcg_reclaim_pct, lock_wait_pct;
	double kswapd_busy_pct, dirty_throttle_pct;
	unsigned int ntop_locks;
	struct { char name[96]; double pct; } top_locks[3];
	double work[BENCH_NWORK];	/* per GiB moved (enum bench_work), NAN not counted */
};

/*
 * A file the run writes (bench-output.c): opened before anything is made,
 * truncated only when it is written, removed when bench made it and
 * nothing came.
 */
enum { BENCH_OUT_REPORT, BENCH_OUT_TIMELINE, BENCH_OUT_PLOT, BENCH_OUT_N };

struct bench_output {
	const char *what;		/* "report", "timeline", "plot" */
	const char *path;
	char name[64];			/* the default chart's free name */
	int fd;				/* -1: not open */
	int made;			/* this run created it */
};

/* A run: job, rows, phases and what the environment gave it. */
struct bench_run {
	struct bench_job job;
	int argc;			/* the command line from "bench" on, to run */
	char **argv;			/* again in a systemd scope; NULL from MPI */
	struct bench_row *rows;
	size_t nrows, cap_rows;
	struct bench_phase phases[BENCH_MAX_MODES];
	char files[BENCH_MAX_DIRS * BENCH_MAX_JOBS][PATH_MAX];	/* unused entries empty */
	unsigned int nfiles;
	char cgroup_dir[PATH_MAX];	/* memory cgroup the workers ran in, or "" */
	char cgroup_home[PATH_MAX];	/* v1: the sampler's cgroup, outside the cap, or "" */
	int last_row_rebuilt;		/* this phase's last row took in a short tail */
	struct sample_kswapd_pids kswapd_pids;	/* found by the first sample */
	int cgroup_version;
	char testbed_desc[512];		/* "xfs on /dev/loop0 over ..." or "" */
	char numa_desc[256];
	char cache_desc[128];		/* what "page cache" counts */
	char notes[8][256];		/* what it could not do, and why */
	unsigned int nnotes;
	int interrupted;
	int failed;			/* a phase's workers failed to read */
	int best;			/* index of the best mode, -1 none */
	double best_gbps;
	unsigned int cpus;		/* online CPUs when analysed, 0 unknown */
	char summary[1024];		/* the verdict in one line, "summary: ..." */
	double started;			/* wall clock, seconds since the epoch */
	struct bench_claim *claims;	/* per directory: folder, lock, what we made */
	struct trace *trace;		/* kernel-event counters, NULL when not traced */
	struct trace_snap *trace_at;	/* the counters at the phase's start */
	char trace_why[160];		/* why not, when not */
	const struct bench_hooks *hooks;	/* a run across hosts; NULL in plain bench */
	struct bench_cluster *cluster;	/* rank 0 of such a run: every host's figures */
	struct state_journal journal;	/* root: what this run made, for a later undo */
	struct bench_output outputs[BENCH_OUT_N];	/* bench_outputs_init() */
	struct progress progress;	/* the live line: the layout's, then each phase's */
	/* While the phases run (bench-run.c): the phase's stop flag, in memory
	 * shared with the workers' process when they run apart from the
	 * sampler (cgroup v2); that process's pid, 0 while the workers are
	 * this process's threads. */
	atomic_int *stop_flag;
	pid_t workers_pid;
};

/*
 * A run across hosts (pagecliff-mpi): the points where bench-run.c (a phase's
 * start and end) and bench-sampler.c (each interval) meet the other ranks.  Each returns BENCH_SYNC_GO, or BENCH_SYNC_STOP (end the phase
 * now, as all ranks agreed) or BENCH_SYNC_FAIL (a rank failed or is gone:
 * stop, run no further phase).  None may block past a signal (bench_stop).
 */
enum { BENCH_SYNC_GO, BENCH_SYNC_STOP, BENCH_SYNC_FAIL };
enum bench_rank_state { BENCH_RANK_RUNNING, BENCH_RANK_DONE, BENCH_RANK_FAILED };

struct bench_hooks {
	/* Before phase @mode's workers start: every rank ready (a barrier). */
	int (*phase_start)(struct bench_run *run, unsigned int mode);
	/*
	 * Each interval: this rank's @row (NULL when it has none: its workers
	 * finished) and @state to rank 0; the answer says whether the phase
	 * goes on.  On rank 0, @ret_total gets the interval's sum over ranks.
	 */
	int (*interval)(struct bench_run *run, unsigned int mode, const struct bench_row *row,
			enum bench_rank_state state, struct bench_row *ret_total);
	/* After the phase: its figures to rank 0; FAIL when a rank failed. */
	int (*phase_end)(struct bench_run *run, unsigned int mode);
	/* After the options are parsed and defaulted, before anything is made. */
	void (*job_ready)(struct bench_run *run);
	/* Show the live status line even when standard error is no terminal
	 * (under mpirun it is a pipe); -q still turns it off. */
	int live;
};

/* One rank of a run across hosts, as rank 0 keeps it for the report. */
struct bench_host {
	char name[64];			/* host name */
	int rank;
	unsigned int on_host;		/* ranks sharing this host, itself included */
	struct bench_run *run;		/* its job, phases and timeline */
	int state;			/* enum bench_rank_state at the end */
	char why[160];			/* how it failed, "" when it did not */
};

struct bench_cluster {
	unsigned int nhosts;		/* ranks */
	struct bench_host *hosts;	/* by rank */
	char failure[256];		/* "rank 2 (node3) failed: ...", "" none */
};

struct figure;
struct trace;
struct trace_snap;
struct bench_hooks;
struct bench_cluster;

/*
 * Set by the signal handler: stop workers and tear down.  A lock-free
 * atomic, not a volatile sig_atomic_t: the handler may run on another
 * thread than the one reading it (an MPI library's, say).
 */
extern atomic_int bench_stop;

/* bench-util.c, the leaf */
void bench_note(struct bench_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Human sizes: "1.5 GiB" into @buf. */
const char *bench_size(double bytes, char *buf, size_t len);
/* Sum of rows over hosts (t, dt and the bytes; the rest unknown). */
void bench_row_add(struct bench_row *sum, const struct bench_row *r);
/* Whether @v is a figure: NAN (unknown) and infinities are not. */
int bench_known(double v);
const char *bench_engine_name(enum bench_engine e);

/* bench-layout.c */
/*
 * Claim DIR/pagecliff-bench/ of directories @from.. for this run: make or
 * check the folder (never a symlink), take its lock (bench.lock, flock: it
 * dies with its holder) and read what earlier runs of bench recorded making
 * there (bench.made).  0, or -1 after one line (a second run, a symlink).
 */
int bench_claim(struct bench_run *run, unsigned int from);
/* Give the folders back: record (--keep) or remove what bench made, unlock. */
void bench_release(struct bench_run *run);
int bench_layout_check(struct bench_run *run, uint64_t *ret_to_write);
/* bench_claim()'s and bench_layout_check()'s checks with no lock taken and
 * nothing made (pagecliff-mpi, before any rank makes anything); 0 or -1. */
int bench_layout_precheck(struct bench_run *run);
/* Called for each thing bench_release_stale() removed. */
typedef void (*bench_removed_fn)(const char *what, const char *path, int result, void *arg);
/*
 * Give back DIR/pagecliff-bench/ (@folder) of a killed run as its end would
 * have: remove what its bench.made records (only what is still the file
 * recorded), bench.made, the lock, the folder when bench made it and it is
 * empty; with @keep the data stays recorded.  Nothing when a live run holds
 * the lock or nothing was recorded.  How many things went, or -errno.
 */
int bench_release_stale(const char *folder, int keep, bench_removed_fn fn, void *arg);
int bench_layout(struct bench_run *run);
/* Write phases: the header and fill of bench's files, and their removal. */
void bench_fill(uint8_t *buf, size_t len, uint64_t seed, int first);
int bench_fresh_files(struct bench_run *run);
void bench_remove_files(struct bench_run *run);

/* bench-sampler.c: append @row to the run's timeline: 0 or -ENOMEM. */
int bench_keep_row(struct bench_run *run, const struct bench_row *row);
/* bench-run.c */
int bench_run_phases(struct bench_run *run);

/* bench-trace.c */
/*
 * Load the kernel-event counters for this process (before it joins the
 * memory cgroup, so their memory is not charged to the cap) or say, once,
 * why not; stop unloads them (also when never started).
 */
void bench_trace_start(struct bench_run *run);
void bench_trace_stop(struct bench_run *run);
/* A row's, a phase's shares of time from @a to @b (NULL: not read: unknown);
 * kswapd's of @nodes nodes' time. */
void bench_trace_row(const struct bench_run *run, const struct trace_snap *a,
		     const struct trace_snap *b, unsigned int nodes, struct bench_row *r);
void bench_trace_phase(const struct bench_run *run, struct bench_phase *ph,
		       const struct trace_snap *a, const struct trace_snap *b,
		       unsigned int nodes);
/* Before a phase's workers start: the counters now.  After they ended (its
 * bytes known): the phase's work per GiB into @ph->work. */
void bench_trace_mark(struct bench_run *run);
void bench_trace_work(const struct bench_run *run, struct bench_phase *ph);

/* bench-analyse.c: figures, detector and verdict of every mode, and the
 * run's summary line, from the timeline alone. */
void bench_analyse(struct bench_run *run);

/*
 * bench-timeline.c: the columns of a timeline row, in the order both the
 * JSON intervals and the timeline CSV give them: one list, so the two and
 * the CSV's header cannot drift apart.  A NULL name leaves the column out
 * of that format.
 */
enum bench_col_kind { BENCH_COL_NUM, BENCH_COL_UINT, BENCH_COL_U64, BENCH_COL_STR,
		      BENCH_COL_DIRS };

struct bench_col {
	const char *csv, *json;		/* the CSV header's name, the JSON key */
	enum bench_col_kind kind;
	size_t off, len;		/* of the field in struct bench_row */
	int prec;			/* CSV decimals (BENCH_COL_NUM) */
	double div;			/* the field is divided by it, 0 for none */
	int total;			/* a sum over hosts knows it (bench_row_add) */
	/* A figure of the catalogue (figures.h), read from the row's sample_delta,
	 * its names the figure's; NULL for bench's own fields above. */
	const struct figure *fig;
};

extern const struct bench_col bench_cols[];
extern const size_t bench_ncols;
/* Column @c's CSV header name and JSON key, NULL when a format leaves it out. */
const char *bench_col_csv_name(const struct bench_col *c);
const char *bench_col_json_key(const struct bench_col *c);
/* Column @c of @r as a number (NUM, UINT, U64), divided; as text (STR). */
double bench_col_value(const struct bench_row *r, const struct bench_col *c);
const char *bench_col_text(const struct bench_row *r, const struct bench_col *c);
/* A row whose figures are all unknown (NAN), its counts 0, its text "". */
void bench_row_unknown(struct bench_row *r);
/* The column the timeline CSV's header calls @name, or NULL. */
const struct bench_col *bench_col_csv(const char *name);
/* A timeline CSV cell back into @r's field (multiplied back): 0 or -EINVAL. */
int bench_col_parse(struct bench_row *r, const struct bench_col *c, const char *cell);

/* One host's report in each format (bench-text.c, bench-json.c, bench-csv.c). */
void bench_report_text(const struct bench_run *run, FILE *out);
void bench_report_json(const struct bench_run *run, FILE *out);
void bench_report_csv(const struct bench_run *run, FILE *out);
void bench_timeline_csv(const struct bench_run *run, FILE *out);

/* bench-json.c: the pieces bench-cluster.c adds to. */
struct json;
/* The report as one object: the run's members, then @more's (or NULL). */
void bench_json_report(const struct bench_run *run, FILE *out,
		       void (*more)(struct json *j, const struct bench_run *run));
/* The members of one host's report (the whole report of plain bench). */
void bench_json_run(struct json *j, const struct bench_run *run);
/* One interval; with @total only the columns a sum over hosts knows. */
void bench_json_row(struct json *j, const struct bench_run *run, const struct bench_row *r,
		    int total);

/* bench-csv.c: the pieces bench-cluster.c adds to.  @prefix: across hosts,
 * "HOST,RANK," before each line; else NULL. */
void bench_csv_str(FILE *out, const char *s);
/* A figure with @prec decimals, empty when unknown; a comma after with @comma. */
void bench_csv_num(FILE *out, int prec, double v, int comma);
void bench_csv_header(FILE *out);
void bench_csv_phases(const struct bench_run *run, const char *prefix, FILE *out);
void bench_timeline_header(const struct bench_run *run, FILE *out);
void bench_csv_rows(const struct bench_run *run, const struct bench_row *rows, size_t n,
		    const char *prefix, FILE *out);

/* bench-cluster.c: the report of a run across hosts (run->cluster set). */
void bench_cluster_text(const struct bench_run *run, FILE *out);
void bench_cluster_json(const struct bench_run *run, FILE *out);
void bench_cluster_csv(const struct bench_run *run, FILE *out);
void bench_cluster_timeline(const struct bench_run *run, FILE *out);

/*
 * bench-options.c: the option table and its parser, for cmd-bench.c's
 * command entry; the job's defaults and checks.  Each exits 2 after one
 * line on a bad job (the CLI's usage_error).
 */
extern const struct cmd_option bench_options[];
/* The job and what the command line set, for bench_option(). */
struct bench_parse {
	struct bench_job *job;
	struct bench_given *g;
};
/* One option @key with @arg into the struct bench_parse at @state. */
void bench_option(void *state, int key, const char *arg);
/* Fill in what the command line left open; the built-in job when no
 * directory was given. */
void bench_apply_defaults(struct bench_run *run, const struct bench_given *g);
/* Root-only options, memory and testbed size: before anything is made. */
void bench_check_job(struct bench_run *run);
/* Where the built-in job runs without root, and what it cannot do there. */
void bench_builtin_dir(struct bench_run *run);

/* bench-setup.c: what run_job() in cmd-bench.c sets up and tears down. */
struct cgroup;
/* As root: undo what killed runs left (state files, cgroups), saying so. */
void bench_cleanup_stale(void);
/*
 * Record in the state file (root) the data folder of each of the user's
 * directories, before it is claimed: a killed run's folder is given back by
 * the next run or --cleanup (the testbed's go with the testbed).
 */
void bench_record_folders(struct bench_run *run);
/* The testbed's devices, one directory of the job each; one line on stderr
 * says what was made.  0, or -1 reported (a signal: undone, unreported). */
int bench_setup_testbed(struct bench_run *run, struct testbed *tb);
/*
 * Create the memory cgroup before anything else is made, so that a cap that
 * cannot be had is a usage error with nothing created (the built-in job
 * goes on without one and says so).  Returns 0, -1 (reported) or
 * -EXIT_USAGE.
 */
int bench_make_cgroup(struct bench_run *run, struct cgroup *cg);
/*
 * Root on a host systemd runs, where the own cgroup v2 (a login session's
 * scope) holds other processes and systemd did not delegate it: run this
 * command again in a transient scope with delegation (systemd-run --scope
 * -p Delegate=yes), before anything is made, so that bench_make_cgroup()
 * finds a cgroup holding bench alone.  Returns only when it does not.
 */
void bench_scope_reexec(struct bench_run *run);
/*
 * v1: move this process into the cgroup, after the layout: the data set's
 * own pages are not charged to it.  v2: cgroup_create() moved it to its
 * leaf beside the capped one already; the workers' process joins that
 * (bench-run.c), so the sampler is never charged to the cap.
 */
int bench_join_cgroup(struct bench_run *run, struct cgroup *cg);
/* Run the phases in the cap: on cgroup v1 from a sampler thread outside it. */
int bench_run_capped(struct bench_run *run, const struct cgroup *cg);

/* bench-output.c */
/* The outputs closed: before anything else of them. */
void bench_outputs_init(struct bench_run *run);
/* Open (never truncate yet) each output the job names, each one made
 * recorded in the run's journal; exits 2 on failure. */
void bench_open_outputs(struct bench_run *run, const struct bench_given *g);
/* The outputs the job names, checked as bench_open_outputs() would, nothing
 * made (pagecliff-mpi); exits 2 after one line if one cannot be written. */
void bench_check_outputs(const struct bench_run *run, const struct bench_given *g);
/* Close the outputs; remove those this run made. */
void bench_outputs_abandon(struct bench_run *run);
/* The report in the job's format, the timeline CSV: of all hosts when the
 * run has a cluster. */
void bench_report_format(const struct bench_run *run, FILE *out);
void bench_timeline(const struct bench_run *run, FILE *out);
/* Analyse the run and write its report (to standard output without -o),
 * timeline and chart; 0 or -1 after a line. */
int bench_report(struct bench_run *run);

/* cmd-bench.c, for pagecliff-mpi: check the job as `pagecliff bench` would,
 * its outputs too with @with_outputs, nothing made (exits 2 after one line
 * when it is bad; its directories into @ret_dirs, ':' between), and run it
 * with @hooks. */
void bench_check_args(int argc, char **argv, int with_outputs, char *ret_dirs, size_t len);
int bench_run_hooked(int argc, char **argv, const struct bench_hooks *hooks);

/* bench-plot.c */
void bench_plot_svg(const struct bench_run *run, FILE *out);

#endif
