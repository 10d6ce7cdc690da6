// SPDX-License-Identifier: MIT
/*
 * bench's workers: one thread per file, pinned to its directory's NUMA
 * node with --numa, reading the file through the library's read stream
 * (or, with --rw write, writing a fresh one through the write stream and
 * fdatasync'ing it inside the phase), counting the bytes it moved.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench-run.h"
#include "sample.h"
#include "util.h"
#include "clock.h"

/* A numa_node above this is not a node (-1, or a bad value). */
#define NODE_MAX 4096

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
			return node > NODE_MAX ? -1 : (int)node;
		*slash = '\0';
	}
	return -1;
}

void bench_numa_plan(struct bench_run *run, int *nodes)
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

/*
 * The I/O a worker keeps in flight: --iodepth (io_uring: at least one), one
 * at a time for sync and psync, else @dflt (the library's default).
 */
static unsigned int job_inflight(const struct bench_job *job, unsigned int dflt)
{
	if (job->engine == BENCH_ENGINE_URING)
		return job->iodepth ? job->iodepth : 1;
	if (job->engine != BENCH_ENGINE_DEFAULT)
		return 1;
	return job->iodepth ? job->iodepth : dflt;
}

static void worker_wopts(const struct bench_job *job, enum pc_strategy mode,
			 struct pc_wopts *o)
{
	pc_wopts_init(o);
	o->strategy = mode;
	o->chunk_size = job->bs;
	o->inflight = job_inflight(job, o->inflight);
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
	t = pcc_now_sec();
	if (!ret)
		ret = pc_wstream_sync(s);
	w->sync_secs = pcc_now_sec() - t;
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
	size_t size = job->bs + BENCH_ALIGN_ROOM;
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

static void worker_opts(const struct bench_job *job, enum pc_strategy mode,
			struct pc_opts *o)
{
	pc_opts_init(o);
	o->strategy = mode;
	o->chunk_size = job->bs;
	o->inflight = job_inflight(job, o->inflight);
}

int bench_workers_start(struct bench_run *run, struct bench_phase *ph, struct worker *w,
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
