// SPDX-License-Identifier: MIT
/*
 * The phases of pagecliff bench: for each mode, a cold start, one worker
 * thread per file reading it through the library (or, with --rw write,
 * writing a fresh file through the write stream and fdatasync'ing it inside
 * the phase), and the main thread sampling the system every interval (via
 * sample.c) into timeline rows; for writes it also polls the workers' kernel
 * stacks to tell dirty throttling from reclaim waiting for writeback.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cgroup.h"
#include "progress.h"
#include "sample.h"
#include "trace.h"
#include "util.h"

struct worker {
	pthread_t thread;
	struct bench_run *run;
	unsigned int k;			/* file index; directory k / numjobs */
	struct pc_opts opts;
	int node;			/* NUMA node to pin to, -1 none */
	_Atomic uint64_t bytes;
	_Atomic int done;
	_Atomic int flushing;		/* in the final fdatasync */
	_Atomic pid_t tid;
	int error;
	struct pc_stats stats;
	struct pc_wstats wstats;
	double sync_secs;
	int have_stats;
} __attribute__((aligned(64)));

/* Kernel-stack polls of the write workers within one interval. */
struct polls {
	unsigned int n, throttled, reclaim_wait, reclaim;
	int unreadable;
};

/* The CPUs of NUMA node @node into @set; 0 or -errno. */
static int node_cpus(int node, cpu_set_t *set)
{
	char path[96], list[1024], *p;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	if (sample_read_text(NULL, path, list, sizeof(list)))
		return -ENOENT;
	CPU_ZERO(set);
	for (p = list; *p;) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b && c < CPU_SETSIZE; c++)
			CPU_SET(c, set);
		p = *end == ',' ? end + 1 : end;
	}
	return CPU_COUNT(set) ? 0 : -ENOENT;
}

/*
 * NUMA node of the block device under @dir, or -1 when it has none: the
 * numa_node of the nearest device above the block device in sysfs that has
 * one (an NVMe controller, a PCI function: a virtio disk's is its PCI
 * function's, the virtio device between them has none).  Firmware sets it
 * (ACPI _PXM); "-1", or none up to /sys/devices (a loop device), is none.
 */
static int dir_node(const char *dir)
{
	char link[128], path[PATH_MAX + 16], *slash;
	struct stat st;
	uint64_t node;

	if (stat(dir, &st))
		return -1;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	if (!realpath(link, path))
		return -1;
	while ((slash = strrchr(path, '/')) && slash - path > (ptrdiff_t)strlen("/sys/devices")) {
		size_t len = strlen(path);

		snprintf(path + len, sizeof(path) - len, "/numa_node");
		if (!sample_read_u64(NULL, path, &node))
			return node > 4096 ? -1 : (int)node;
		*slash = '\0';
	}
	return -1;
}

/* Describe the topology into run->numa_desc; returns per-dir nodes. */
static void numa_plan(struct bench_run *run, int *nodes)
{
	size_t len = 0;

	for (unsigned int d = 0; d < run->job.ndirs; d++) {
		nodes[d] = run->job.numa ? dir_node(run->job.dirs[d]) : -1;
		if (run->job.numa && nodes[d] < 0)
			len += snprintf(run->numa_desc + len, sizeof(run->numa_desc) - len,
					"%s%s: no NUMA node, not pinned", d ? ", " : "",
					run->job.dirs[d]);
		else if (run->job.numa)
			len += snprintf(run->numa_desc + len, sizeof(run->numa_desc) - len,
					"%s%s: node %d, threads pinned to its CPUs", d ? ", " : "",
					run->job.dirs[d], nodes[d]);
		if (len >= sizeof(run->numa_desc))
			break;
	}
	if (!run->job.numa)
		snprintf(run->numa_desc, sizeof(run->numa_desc), "not pinned (--numa not given)");
}

/* Read the file once through the stream; 0 at end of file or stop. */
static int read_pass(struct worker *w, char *buf)
{
	const struct bench_job *job = &w->run->job;
	struct pc_stream *s;
	int ret;

	ret = pc_stream_open(&s, w->run->files[w->k], &w->opts);
	if (ret)
		return ret;
	while (!atomic_load_explicit(w->run->stop_flag, memory_order_relaxed)) {
		const void *p;
		ssize_t n = job->api == BENCH_COPY ? pc_stream_read(s, buf, job->bs)
						   : pc_stream_next(s, &p);

		if (n <= 0) {
			ret = (int)n;
			break;
		}
		atomic_fetch_add_explicit(&w->bytes, (uint64_t)n, memory_order_relaxed);
	}
	pc_stream_stats(s, &w->stats);
	w->have_stats = 1;
	pc_stream_close(s);
	return ret;
}

static void worker_wopts(const struct bench_job *job, enum pc_strategy mode,
			 struct pc_wopts *o)
{
	pc_wopts_init(o);
	o->strategy = mode;
	o->chunk_size = job->bs;
	if (job->engine == BENCH_ENGINE_URING)
		o->inflight = job->iodepth ? job->iodepth : 1;
	else if (job->engine != BENCH_ENGINE_DEFAULT)
		o->inflight = 1;	/* sync/psync: one write at a time */
	else if (job->iodepth)
		o->inflight = job->iodepth;
}

/* The buffers a write stream lent that bench has filled already. */
struct lent_seen {
	void *buf[64];
	unsigned int n;
};

/*
 * One chunk: from bench's buffer (copy API), or in the buffer the stream
 * lends, committed (zero-copy API).  Bench fills each lent buffer once and
 * then reuses its contents, as fio reuses its buffer (refill_buffers=0); the
 * first chunk, with the header, is always copied in.
 */
static ssize_t write_chunk(struct pc_wstream *s, const struct bench_job *job,
			   const char *src, size_t len, int first, struct lent_seen *seen)
{
	unsigned int i;
	void *lent;
	ssize_t size;

	if (job->api == BENCH_COPY)
		return pc_wstream_write(s, src, len);
	size = pc_wstream_lend(s, &lent);
	if (size < 0)
		return size;
	if ((size_t)size < len)
		len = size;
	for (i = 0; i < seen->n && seen->buf[i] != lent; i++)
		;
	if (first || i == seen->n)
		memcpy(lent, src, len);
	if (i == seen->n && seen->n < sizeof(seen->buf) / sizeof(seen->buf[0]))
		seen->buf[seen->n++] = lent;
	return pc_wstream_commit(s, len);
}

/*
 * Write a fresh file of --size bytes through the write stream (the first
 * chunk from @first, which carries bench's header), then fdatasync it: the
 * flush is part of the phase, as fio's end_fsync=1.
 */
static int write_pass(struct worker *w, const char *buf, const char *first)
{
	const struct bench_job *job = &w->run->job;
	struct pc_wstream *s = NULL;
	struct lent_seen seen = { .n = 0 };
	struct pc_wopts o;
	uint64_t off = 0;
	double t;
	int ret, cret;

	worker_wopts(job, w->opts.strategy, &o);
	/* made empty and recorded by bench_fresh_files() */
	ret = pc_wstream_open(&s, w->run->files[w->k], O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
			      0, &o);
	if (ret)
		return ret;
	while (off < job->size && !atomic_load_explicit(w->run->stop_flag, memory_order_relaxed)) {
		size_t len = job->size - off < job->bs ? job->size - off : job->bs;
		ssize_t n = write_chunk(s, job, off ? buf : first, len, !off, &seen);

		if (n <= 0) {
			ret = n ? (int)n : -EIO;
			break;
		}
		off += (uint64_t)n;
		atomic_fetch_add_explicit(&w->bytes, (uint64_t)n, memory_order_relaxed);
	}
	atomic_store(&w->flushing, 1);
	t = now_sec();
	if (!ret)
		ret = pc_wstream_sync(s);
	w->sync_secs = now_sec() - t;
	pc_wstream_stats(s, &w->wstats);
	w->have_stats = 1;
	cret = pc_wstream_close(s);
	return ret ? ret : cret;
}

/* A write worker's two buffers: the first chunk with the header, the rest. */
static int write_worker(struct worker *w, char *buf)
{
	const struct bench_job *job = &w->run->job;
	char *first = pc_buf_alloc(job->bs);
	int ret;

	if (!first)
		return -ENOMEM;
	bench_fill((uint8_t *)first, job->bs, w->k + 1, 1);
	bench_fill((uint8_t *)buf, job->bs, w->k + 1, 0);
	ret = write_pass(w, buf, first);
	pc_buf_free(first, job->bs);
	return ret;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct bench_job *job = &w->run->job;
	size_t size = job->bs + 4096;
	char *buf;
	cpu_set_t set;

	atomic_store(&w->tid, (pid_t)syscall(SYS_gettid));
	if (w->node >= 0 && !node_cpus(w->node, &set))
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	buf = pc_buf_alloc(size);	/* after pinning: first touch is local */
	if (!buf) {
		w->error = -ENOMEM;
		goto out;
	}
	memset(buf, 0, size);
	if (job->rw == BENCH_WRITE)
		w->error = write_worker(w, buf + job->mem_align);
	else
		do
			w->error = read_pass(w, buf + job->mem_align);
		while (!w->error && job->time_based &&
		       !atomic_load_explicit(w->run->stop_flag, memory_order_relaxed));
	pc_buf_free(buf, size);
out:
	atomic_store(&w->done, 1);
	return NULL;
}

/* Write back and evict each file of the job: only bench's own pages go. */
static void evict_files(struct bench_run *run)
{
	for (unsigned int k = 0; k < run->nfiles; k++) {
		int fd = open(run->files[k], O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		fdatasync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
}

/* Bytes of the job's files in the page cache now. */
static uint64_t cached_total(struct bench_run *run)
{
	uint64_t total = 0;

	for (unsigned int k = 0; k < run->nfiles; k++) {
		int fd = open(run->files[k], O_RDONLY | O_CLOEXEC);
		uint64_t bytes;

		if (fd < 0)
			continue;
		if (!pc_cached_bytes(fd, 0, 0, &bytes))
			total += bytes;
		close(fd);
	}
	return total;
}

/* The whole page cache, as root: only when fadvise left pages behind. */
static void drop_all_caches(struct bench_run *run)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	sync();
	if (fd < 0 || write(fd, "1", 1) != 1)
		bench_note(run, "cannot drop caches: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * Make the files cold with fadvise, which leaves everyone else's cache
 * alone; when pages stay (mapped or pinned by someone), drop the whole page
 * cache as root.  Then count what is still cached.
 */
static void cold_start(struct bench_run *run, struct bench_phase *ph)
{
	uint64_t total;

	evict_files(run);
	total = cached_total(run);
	if (total && !geteuid()) {
		drop_all_caches(run);
		total = cached_total(run);
	}
	ph->cached_before = total;
	ph->cold_ok = total * 100 <= (uint64_t)run->nfiles * run->job.size;
}

static void worker_opts(const struct bench_job *job, enum pc_strategy mode,
			struct pc_opts *o)
{
	pc_opts_init(o);
	o->strategy = mode;
	o->chunk_size = job->bs;
	if (job->engine == BENCH_ENGINE_URING)
		o->inflight = job->iodepth ? job->iodepth : 1;
	else if (job->engine != BENCH_ENGINE_DEFAULT)
		o->inflight = 1;	/* sync/psync: one read at a time */
	else if (job->iodepth)
		o->inflight = job->iodepth;
}

static int push_row(struct bench_run *run, const struct bench_row *row)
{
	if (run->nrows == run->cap_rows) {
		size_t cap = run->cap_rows ? run->cap_rows * 2 : 256;
		struct bench_row *rows = realloc(run->rows, cap * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		run->rows = rows;
		run->cap_rows = cap;
	}
	run->rows[run->nrows++] = *row;
	return 0;
}

int bench_keep_row(struct bench_run *run, const struct bench_row *row)
{
	return push_row(run, row);
}

/* A sample and the workers' byte counts at one instant. */
struct tick {
	struct sample s;
	uint64_t bytes[BENCH_MAX_DIRS * 64];
	double t;
	struct trace_snap tr;		/* kernel-event counters, when tr_ok */
	int tr_ok;
};

static void take(struct bench_run *run, struct worker *w, struct tick *tk)
{
	/* CPU and D state: the workers' process when apart (until reaped, a
	 * zombie's figures are still there) */
	struct sample_opts so = { .cgroup_dir = run->cgroup_dir[0] ? run->cgroup_dir : NULL,
				  .kswapd = 1, .kswapd_pids = &run->kswapd_pids,
				  .pid = run->workers_pid };
	for (unsigned int k = 0; k < run->nfiles; k++)
		tk->bytes[k] = atomic_load(&w[k].bytes);
	tk->t = now_sec();
	sample_take(&tk->s, &so);
	tk->tr_ok = run->trace && !trace_read(run->trace, &tk->tr);
}

/* kswapd's share is of its nodes' time: one kswapd thread per node. */
static unsigned int kswapd_nodes(const struct tick *b)
{
	return b->s.kswapd_ok && b->s.kswapd_threads ? b->s.kswapd_threads : 1;
}

/*
 * Where each write worker's kernel stack is now: throttled for dirty pages
 * (balance_dirty_pages), in reclaim waiting for writeback (reclaim_throttle,
 * or shrink_folio_list waiting on a folio), or elsewhere in direct reclaim.
 * A running thread has an empty stack; reading stacks needs root.
 */
static void poll_stacks(const struct bench_run *run, struct worker *w, struct polls *pl)
{
	char path[64], text[4096];
	int err;

	for (unsigned int k = 0; k < run->nfiles; k++) {
		pid_t tid = atomic_load(&w[k].tid);

		if (!tid || atomic_load(&w[k].done))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stack",
			 (int)(run->workers_pid ? run->workers_pid : getpid()), (int)tid);
		err = sample_read_text(NULL, path, text, sizeof(text));
		if (err) {
			/*
			 * Refused: the shares are unknown.  Gone (the worker
			 * ended after the check above): nothing to count.
			 */
			if (err == -EACCES || err == -EPERM)
				pl->unreadable = 1;
			continue;
		}
		pl->n++;
		if (strstr(text, "balance_dirty_pages"))
			pl->throttled++;
		else if (strstr(text, "reclaim_throttle") ||
			 (strstr(text, "shrink_folio_list") && strstr(text, "folio_wait")))
			pl->reclaim_wait++;
		else if (strstr(text, "try_to_free_mem_cgroup_pages") ||
			 strstr(text, "try_to_free_pages"))
			pl->reclaim++;
	}
}

/* The polls' shares into the row; NAN when no stack could be read. */
static void row_polls(const struct bench_run *run, struct bench_row *r, struct polls *pl)
{
	int known = run->job.rw == BENCH_WRITE && (pl->n || !pl->unreadable);

	r->throttled_pct = !known ? NAN : pl->n ? 100.0 * pl->throttled / pl->n : 0;
	r->reclaim_wait_pct = !known ? NAN : pl->n ? 100.0 * pl->reclaim_wait / pl->n : 0;
	r->reclaim_pct = !known ? NAN : pl->n ? 100.0 * pl->reclaim / pl->n : 0;
	memset(pl, 0, sizeof(*pl));
}

/* @v, or 0 when unknown (for sums). */
static double nz(double v)
{
	return isnan(v) ? 0 : v;
}

/*
 * File pages in the page cache system-wide: Cached less Shmem, so that the
 * RAM testbed's own tmpfs (and every other tmpfs) is not counted.
 */
static double system_file_cache(const struct sample *s)
{
	if (!sample_known(s->mem.cached) || !sample_known(s->mem.shmem))
		return NAN;
	return s->mem.cached > s->mem.shmem ? (double)(s->mem.cached - s->mem.shmem) : 0;
}

/* The row for the interval from @a to @b. */
static void make_row(const struct bench_run *run, unsigned int mode, double t0,
		     const struct tick *a, const struct tick *b, struct bench_row *r)
{
	struct sample_delta d;
	uint64_t dirb[BENCH_MAX_DIRS] = { 0 };

	memset(r, 0, sizeof(*r));
	sample_delta(&a->s, &b->s, &d);
	r->mode = mode;
	r->dt = b->t - a->t;
	r->t = b->t - t0;
	for (unsigned int k = 0; k < run->nfiles; k++) {
		r->bytes += b->bytes[k] - a->bytes[k];
		r->bytes_total += b->bytes[k];
		dirb[k / run->job.numjobs] += b->bytes[k] - a->bytes[k];
	}
	r->gbps = r->dt > 0 ? r->bytes / r->dt / 1e9 : 0;
	for (unsigned int i = 0; i < run->job.ndirs; i++)
		r->dir_gbps[i] = r->dt > 0 ? dirb[i] / r->dt / 1e9 : 0;
	r->d = d;
	r->sys_cpu = isnan(d.idle_pct) ? NAN :
		(100 - d.idle_pct - nz(d.iowait_pct) - (isnan(d.steal_pct) ? 0 : d.steal_pct)) / 100 *
		sysconf(_SC_NPROCESSORS_ONLN) * r->dt;
	r->dstate = b->s.dstate;
	if (run->cgroup_dir[0] && b->s.cg_ok) {
		r->dirty = sample_known(b->s.cg.dirty) ? (double)b->s.cg.dirty : NAN;
		r->writeback = sample_known(b->s.cg.writeback) ? (double)b->s.cg.writeback : NAN;
	} else {
		r->dirty = sample_known(b->s.mem.dirty) ? (double)b->s.mem.dirty : NAN;
		r->writeback = sample_known(b->s.mem.writeback) ? (double)b->s.mem.writeback : NAN;
	}
	if (run->cgroup_dir[0] && b->s.cg_ok) {
		r->cache = sample_known(b->s.cg.file) ? (double)b->s.cg.file : NAN;
		r->cache_limit = sample_known(b->s.cg.limit) ? (double)b->s.cg.limit : NAN;
		/* v2 counts the cgroup's reclaim in pages; v1 memory.stat has
		 * none (pgpgout counts folios, and lags), but the kernel adds
		 * cgroup reclaim to the global pgsteal_file */
		r->reclaim = !isnan(d.cg_pgsteal) ? d.cg_pgsteal : d.pgsteal_file;
	} else {
		r->cache = system_file_cache(&b->s);
		r->cache_limit = NAN;
		r->reclaim = isnan(d.pgsteal_direct) ? NAN : d.pgsteal_direct + nz(d.pgsteal_kswapd);
	}
	bench_trace_row(run, a->tr_ok ? &a->tr : NULL, b->tr_ok ? &b->tr : NULL,
			kswapd_nodes(b), r);
}

/* The row from @a to @b with the stack polls since @a (@pl, then emptied). */
static void fill_row(const struct bench_run *run, unsigned int mode, double t0,
		     struct worker *w, const struct tick *a, const struct tick *b,
		     struct polls *pl, struct bench_row *r)
{
	make_row(run, mode, t0, a, b, r);
	row_polls(run, r, pl);
	for (unsigned int k = 0; k < run->nfiles; k++)
		r->flushing += atomic_load(&w[k].flushing) && !atomic_load(&w[k].done);
}

/* The phase's line on a terminal (run->progress): a few redraws a second at most. */
static void status_line(struct bench_run *run, const struct bench_phase *ph,
			const struct bench_row *r)
{
	char c[32];
	double avg = r->t > 0 ? r->bytes_total / r->t / 1e9 : 0;
	double eta = run->job.runtime > 0 ? run->job.runtime - r->t : NAN;

	if (run->hooks) {	/* the sum over ranks: the cache is each host's own */
		fprintf(stderr, "\r%-10s %5.1f s  %6.2f GB/s now  %6.2f avg  total of %u ranks, "
			"%s so far ", pc_strategy_name(ph->mode), r->t, r->gbps, avg,
			run->cluster ? run->cluster->nhosts : 1,
			bench_size((double)r->bytes_total, c, sizeof(c)));
		return;
	}
	if (!isnan(r->gbps) && avg > 0 && !run->job.time_based) {
		double left = ((double)run->nfiles * run->job.size - r->bytes_total) / (avg * 1e9);

		eta = isnan(eta) ? left : fmin(eta, left);
	}
	progress_status(&run->progress, 0,
		"%-10s %5.1f s  %6.2f GB/s now  %6.2f avg  cache %s  reclaim %7.0f pages/s  ETA %3.0f s",
		pc_strategy_name(ph->mode), r->t, r->gbps, avg,
		bench_size(r->cache, c, sizeof(c)), isnan(r->reclaim) ? 0 : r->reclaim,
		isnan(eta) || eta < 0 ? 0 : eta);
}

/* Sleep until @deadline (monotonic seconds) or a signal. */
static void sleep_until(double deadline)
{
	struct timespec ts = { (time_t)deadline, (long)((deadline - (time_t)deadline) * 1e9) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int all_done(const struct bench_run *run, struct worker *w)
{
	for (unsigned int k = 0; k < run->nfiles; k++)
		if (!atomic_load(&w[k].done))
			return 0;
	return 1;
}

/*
 * Across hosts: give this interval's row (NULL: none) and state to the
 * other ranks; rank 0 shows their sum.  Returns the hook's answer.
 */
static int sync_interval(struct bench_run *run, const struct bench_phase *ph,
			 unsigned int mode, const struct bench_row *row,
			 enum bench_rank_state state, int tty)
{
	struct bench_row total = { 0 };
	int sync = run->hooks->interval(run, mode, row, state, &total);

	if (tty && row && total.dt > 0)
		status_line(run, ph, &total);
	if (sync == BENCH_SYNC_FAIL)
		run->failed = 1;
	return sync;
}

/* A worker ended on an error (read after its done flag: set after it). */
static int workers_failed(const struct bench_run *run, struct worker *w)
{
	for (unsigned int k = 0; k < run->nfiles; k++)
		if (atomic_load(&w[k].done) && w[k].error)
			return 1;
	return 0;
}

/* The rank's state for the others: failed once a signal came or a worker
 * failed, so that the others stop now, not at their runtime. */
static enum bench_rank_state rank_state(const struct bench_run *run, struct worker *w,
					int finished)
{
	if (bench_stop || workers_failed(run, w))
		return BENCH_RANK_FAILED;
	return finished ? BENCH_RANK_DONE : BENCH_RANK_RUNNING;
}

/*
 * Sample until the workers finish, the runtime ends or a signal comes; run
 * across hosts, until the ranks agree the phase is over (a rank whose
 * workers finished waits, giving no rows).
 */
static void sample_loop(struct bench_run *run, struct bench_phase *ph, unsigned int mode,
			struct worker *w, struct tick *ticks)
{
	struct tick *first = &ticks[3];
	struct tick *a = &ticks[0], *b = &ticks[1], *prev = &ticks[2], *tmp;
	int tty = (isatty(STDERR_FILENO) || (run->hooks && run->hooks->live)) && !run->job.quiet;
	int writes = run->job.rw == BENCH_WRITE;
	int sync = BENCH_SYNC_GO, waiting = 0;
	struct polls pl = { 0 };
	double t0, next, done_at = NAN;	/* across hosts: when this rank's were done */
	struct bench_row row;

	progress_start(&run->progress, !run->job.quiet && !run->hooks, NULL, 0);
	take(run, w, a);
	*first = *a;
	t0 = next = a->t;
	ph->cache_start = run->cgroup_dir[0] && a->s.cg_ok && sample_known(a->s.cg.file) ?
		(double)a->s.cg.file : run->cgroup_dir[0] ? NAN : system_file_cache(&a->s);
	for (;;) {
		int finished, timeout, pushed = 0, folded = 0;

		next += run->job.interval;
		while (now_sec() < next && !bench_stop && sync == BENCH_SYNC_GO &&
		       (waiting || !all_done(run, w))) {
			sleep_until(fmin(next, now_sec() + 0.05));
			if (writes && !waiting)
				poll_stacks(run, w, &pl);
		}
		if (waiting) {
			sync = sync_interval(run, ph, mode, NULL, rank_state(run, w, 1), 0);
			if (sync != BENCH_SYNC_GO || bench_stop)
				break;
			continue;
		}
		timeout = run->job.runtime > 0 && now_sec() - t0 >= run->job.runtime - 1e-3;
		/* writers stop at the runtime but their fdatasync counts */
		finished = all_done(run, w) || bench_stop || (timeout && !writes) ||
			   sync != BENCH_SYNC_GO;
		if (finished || timeout)
			atomic_store(run->stop_flag, 1);
		take(run, w, b);
		/* writes keep a short last interval: the flush ends there */
		if (b->t - a->t >= run->job.interval / 4 || run->nrows == ph->first_row ||
		    (finished && writes)) {
			fill_row(run, mode, t0, w, a, b, &pl, &row);
			if (push_row(run, &row)) {
				error("cannot keep the timeline: %s", strerror(ENOMEM));
				atomic_store(run->stop_flag, 1);
				break;
			}
			if (tty && !run->hooks)
				status_line(run, ph, &row);
			tmp = prev;
			prev = a;
			a = b;
			b = tmp;
			pushed = 1;
		} else if (finished) {
			/* a read phase's tail too short for a row of its own (a write
			 * phase keeps its short last row, where its flush ends): its
			 * bytes go in the last row, rebuilt from that row's start, so
			 * the rows add up */
			fill_row(run, mode, t0, w, prev, b, &pl, &run->rows[run->nrows - 1]);
			run->last_row_rebuilt = 1;
			tmp = a;
			a = b;
			b = tmp;
			folded = 1;
		}
		if (run->hooks && sync == BENCH_SYNC_GO) {
			sync = sync_interval(run, ph, mode, pushed ? &run->rows[run->nrows - 1] : NULL,
					     rank_state(run, w, finished), tty);
			if (sync != BENCH_SYNC_GO && !finished)
				continue;	/* stopped by the others: one last sample */
			waiting = finished && sync == BENCH_SYNC_GO && !bench_stop;
			if (waiting) {
				/* its figures end at its last sample, not when all are done */
				done_at = pushed || folded ? a->t : b->t;
				continue;
			}
		}
		if (finished)
			break;
	}
	if (tty && run->hooks)
		fprintf(stderr, "\r%*s\r", 120, "");
	progress_end(&run->progress);
	/* the rank's own active time: to its last sample, never a wait for others */
	ph->secs = (isnan(done_at) ? a->t : done_at) - t0;
	bench_trace_phase(run, ph, first->tr_ok ? &first->tr : NULL, a->tr_ok ? &a->tr : NULL,
			  kswapd_nodes(a));
}

/* Wait for the phase's workers: their threads, or their process. */
static void join_workers(struct bench_run *run, struct worker *w)
{
	if (run->workers_pid) {
		while (waitpid(run->workers_pid, NULL, 0) < 0 && errno == EINTR)
			;
		run->workers_pid = 0;
		return;
	}
	for (unsigned int k = 0; k < run->nfiles; k++)
		pthread_join(w[k].thread, NULL);
}

static void finish_phase(struct bench_run *run, struct bench_phase *ph, struct worker *w)
{
	ph->bytes = 0;
	join_workers(run, w);
	for (unsigned int k = 0; k < run->nfiles; k++) {
		ph->bytes += atomic_load(&w[k].bytes);
		if (w[k].error && !ph->error)
			ph->error = w[k].error;
		if (w[k].have_stats && !ph->reason[0] && run->job.rw == BENCH_WRITE) {
			ph->strategy = w[k].wstats.strategy;
			snprintf(ph->reason, sizeof(ph->reason), "%s", w[k].wstats.reason);
		} else if (w[k].have_stats && !ph->reason[0]) {
			ph->strategy = w[k].stats.strategy;
			snprintf(ph->reason, sizeof(ph->reason), "%s", w[k].stats.reason);
		}
		ph->sync_secs = fmax(ph->sync_secs, w[k].sync_secs);
	}
	ph->nrows = run->nrows - ph->first_row;
	ph->interrupted = bench_stop != 0;
	ph->ran = 1;
}

/* A phase's failure in one line; run->failed set. */
static void report_phase(struct bench_run *run, struct bench_phase *ph)
{
	if (ph->error) {
		error("%s phase: cannot %s: %s", pc_strategy_name(ph->mode),
		      run->job.rw == BENCH_WRITE ? "write" : "read", strerror(-ph->error));
		run->failed = 1;
	} else if (!ph->bytes && !ph->interrupted) {
		/* 0.00 GB/s would be a figure of nothing */
		error("%s phase: read nothing in %.1f s: its figures measure no I/O",
		      pc_strategy_name(ph->mode), ph->secs);
		run->failed = 1;
	}
}

/*
 * Where the sampler stands while it starts the workers.  On cgroup v1 it
 * runs outside the memory cap (bench-setup.c), but a thread is born in its
 * creator's cgroup and the workers' kernel objects are theirs to be
 * charged for: the sampler steps into the cap for the clone calls and
 * out again.  0 or -errno; nothing to do without a v1 split.
 */
static int sampler_in_cap(const struct bench_run *run, int in)
{
	if (!run->cgroup_home[0])
		return 0;
	return cgroup_move_thread(in ? run->cgroup_dir : run->cgroup_home,
				  (pid_t)syscall(SYS_gettid));
}

/* Start one thread per file; on a failure stop and join those started. */
static int start_workers(struct bench_run *run, struct bench_phase *ph, struct worker *w,
			 const int *nodes)
{
	sigset_t all, old;
	int ret = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);	/* signals go to the sampler */
	for (unsigned int k = 0; k < run->nfiles && !ret; k++) {
		w[k].run = run;
		w[k].k = k;
		w[k].node = nodes[k / run->job.numjobs];
		worker_opts(&run->job, ph->mode, &w[k].opts);
		ret = -pthread_create(&w[k].thread, NULL, worker_main, &w[k]);
		if (ret) {
			atomic_store(run->stop_flag, 1);
			for (unsigned int j = 0; j < k; j++)
				pthread_join(w[j].thread, NULL);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/*
 * cgroup v2 holds whole processes, and the sampler's thousands of /proc,
 * sysfs and cgroup reads an interval are kernel memory charged to the
 * cgroup of whoever makes them: in the cap, next to a cache filled to the
 * limit, they would be charged to it and could bring its OOM killer.  There
 * the workers run in a child process in the capped cgroup (run->cgroup_dir)
 * and the sampler stays in bench's own leaf outside it; the worker structs
 * and the stop flag are in memory shared with that child.  The child dies
 * with bench and leaves signals to it.  0 once the workers run, or -errno.
 */
static int spawn_workers(struct bench_run *run, struct bench_phase *ph, struct worker *w,
			 const int *nodes)
{
	pid_t parent = getpid();
	int fds[2], ret = 0;
	ssize_t n;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	run->workers_pid = fork();
	if (run->workers_pid < 0) {
		ret = -errno;
		run->workers_pid = 0;
	} else if (!run->workers_pid) {
		close(fds[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		ret = getppid() != parent ? -ESRCH : cgroup_join_dir(run->cgroup_dir, 0);
		if (!ret)
			ret = start_workers(run, ph, w, nodes);
		n = write(fds[1], &ret, sizeof(ret));
		if (!ret)
			for (unsigned int k = 0; k < run->nfiles; k++)
				pthread_join(w[k].thread, NULL);
		_exit(ret || n != sizeof(ret));
	}
	close(fds[1]);
	if (!ret && (n = read(fds[0], &ret, sizeof(ret))) != sizeof(ret))
		ret = -ECHILD;	/* it died before saying */
	close(fds[0]);
	if (ret && run->workers_pid) {
		atomic_store(run->stop_flag, 1);
		join_workers(run, w);
	}
	return ret;
}

static int run_phase(struct bench_run *run, unsigned int mode, struct worker *w,
		     struct tick *ticks, const int *nodes)
{
	struct bench_phase *ph = &run->phases[mode];
	int ret, err;

	ph->mode = run->job.modes[mode];
	ph->strategy = ph->mode;
	if (run->job.rw == BENCH_READ)
		cold_start(run, ph);
	else if (bench_fresh_files(run))
		return -1;
	else
		ph->cold_ok = 1;	/* fresh files: nothing of them is cached */
	if (run->hooks && run->hooks->phase_start(run, mode) != BENCH_SYNC_GO) {
		run->failed = 1;
		if (run->job.rw == BENCH_WRITE)
			bench_remove_files(run);
		return 0;
	}
	ph->first_row = run->nrows;
	run->last_row_rebuilt = 0;
	atomic_store(run->stop_flag, 0);
	memset(w, 0, sizeof(*w) * run->nfiles);
	bench_trace_mark(run);
	ret = sampler_in_cap(run, 1);
	if (ret)
		return error("cannot start the workers in memory cgroup '%s': %s",
			     run->cgroup_dir, strerror(-ret));
	if (run->cgroup_dir[0] && run->cgroup_version == 2) {
		ret = spawn_workers(run, ph, w, nodes);
		if (ret)
			return error("cannot start the workers' process in memory cgroup '%s': %s",
				     run->cgroup_dir, strerror(-ret));
	} else {
		ret = start_workers(run, ph, w, nodes);
	}
	err = sampler_in_cap(run, 0);
	if (ret)
		return error("cannot start worker thread: %s", strerror(-ret));
	if (err)	/* its reads count against the cap: as on v2 */
		bench_note(run, "the sampler stayed in the memory cgroup for the %s phase: "
			   "cannot move it out (%s)", pc_strategy_name(ph->mode), strerror(-err));
	sample_loop(run, ph, mode, w, ticks);
	finish_phase(run, ph, w);
	bench_trace_work(run, ph);
	if (run->job.rw == BENCH_WRITE)
		bench_remove_files(run);
	if (run->hooks && run->failed)
		ph->interrupted = 1;	/* stopped by the other ranks */
	report_phase(run, ph);
	if (run->hooks && run->hooks->phase_end(run, mode) != BENCH_SYNC_GO)
		run->failed = 1;
	return 0;
}

int bench_run_phases(struct bench_run *run)
{
	/* shared: the workers may run in a child process (spawn_workers()) */
	size_t len = 64 + sizeof(struct worker) * run->nfiles;
	char *shared = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct worker *w = shared == MAP_FAILED ? NULL : (struct worker *)(shared + 64);
	/* three rotate (a row's start, its end, the row before's start), one the phase's first */
	struct tick *ticks = calloc(4, sizeof(*ticks));
	int nodes[BENCH_MAX_DIRS], ret = 0;

	if (!w || !ticks) {
		ret = error("cannot allocate workers: %s", strerror(ENOMEM));
		goto out;
	}
	run->stop_flag = (atomic_int *)shared;
	numa_plan(run, nodes);
	snprintf(run->cache_desc, sizeof(run->cache_desc), "%s", run->cgroup_dir[0] ?
		 "file pages of the memory cgroup (memory.stat file, v1 cache)" :
		 "file pages system-wide: Cached - Shmem of /proc/meminfo (tmpfs not counted)");
	for (unsigned int m = 0; m < run->job.nmodes && !bench_stop && !ret &&
	     !(run->hooks && run->failed); m++)
		ret = run_phase(run, m, w, ticks, nodes);
	run->interrupted = bench_stop != 0;
out:
	free(ticks);
	if (w)
		munmap(shared, len);
	run->stop_flag = NULL;
	return ret;
}
