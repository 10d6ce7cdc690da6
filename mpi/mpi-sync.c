// SPDX-License-Identifier: MIT
/*
 * How the ranks of pagecliff-mpi keep together.  Every sync point is a
 * round: each rank sends rank 0 one message (its state, its newest row, its
 * phase), rank 0 answers each with one decision (go on, stop the phase, or
 * fail).  Every wait is non-blocking and polled, so that a signal
 * (bench_stop) always ends it, and every wait inside a phase has a deadline:
 * a rank silent past it is taken as failed, never waited for forever.  A
 * rank that leaves early says so (bye), and rank 0 stops the others.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcmpi.h"
#include "util.h"
#include "clock.h"

#define HOST_MAX 64
#define TAG_UP 1
#define TAG_DOWN 2
#define TAG_ALARM 3		/* a rank stopping: one int, sent eagerly, never waited on */
/* How long a rank may be silent inside a phase, beyond a few intervals. */
#define PATIENCE_S 30.0

enum up_kind { UP_START, UP_INTERVAL, UP_END, UP_BYE };

/* What a rank tells rank 0 at the start of a phase, once per phase. */
struct host_info {
	struct bench_job job;		/* its own: the placeholders made it so */
	char dirs[1024];		/* the job's directories, ':' between */
	char testbed_desc[512];
	char cgroup_dir[PATH_MAX];
	int cgroup_version;
	char numa_desc[256];
	char cache_desc[128];
	char trace_why[160];
	char notes[8][256];
	unsigned int nnotes, nfiles;
};

struct up_msg {
	int kind;			/* enum up_kind */
	int state;			/* enum bench_rank_state */
	unsigned int mode;
	int has_row;
	int replaces;			/* the row is the last one sent, rebuilt */
	int code;			/* bye: the rank's exit status */
	char why[160];			/* bye: how it failed */
	struct bench_row row;
	struct bench_phase phase;	/* UP_END */
	struct host_info info;		/* UP_START */
};

struct down_msg {
	int verdict;			/* BENCH_SYNC_*, or at the end the exit status */
};

static struct {
	int rank, size, stonewall;
	char (*hosts)[HOST_MAX];
	double patience;		/* seconds, set with the interval */
	int lost;			/* a request may be pending forever: no finalize */
	/* rank 0 only */
	int told_fail;			/* a round's answer was fail: stopped by others */
	int alarmed, alarm_out;		/* this rank told rank 0 it is stopping */
	MPI_Request alarm_req;
	int *alarm_in;			/* rank 0: one alarm slot per rank */
	MPI_Request *alarm_reqs;
	int *gone, *codes, *states, failed;
	int *bye;			/* rank 0: left inside a round, answer owed */
	struct bench_cluster cluster;
	struct up_msg *in;		/* one message per rank */
	size_t sent;			/* rows of this phase sent so far, by index */
} S;

int mpi_sync_rank(void)
{
	return S.rank;
}

int mpi_sync_size(void)
{
	return S.size;
}

const char *mpi_sync_host(int rank)
{
	return S.hosts[rank];
}

/*
 * Poll @req until it completes (0) or @deadline (monotonic seconds, 0:
 * none) passed (-ETIMEDOUT).  Once a signal came (bench_stop) it waits 0.2 s
 * more at most: enough to tell rank 0, never enough to hang.  A
 * request left behind marks the run lost: MPI is not finalized with it.
 */
static int wait_req(MPI_Request *req, double deadline)
{
	static double stop_at;
	int done = 0;

	for (;;) {
		MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (done)
			return 0;
		if (bench_stop && !stop_at)
			stop_at = pcc_now_sec() + 0.2;
		if (stop_at && (!deadline || stop_at < deadline))
			deadline = stop_at;
		if (deadline > 0 && pcc_now_sec() > deadline) {
			S.lost = 1;
			return bench_stop ? -EINTR : -ETIMEDOUT;
		}
		usleep(1000);
	}
}

static int send_wait(void *buf, int len, int to, int tag, double deadline)
{
	MPI_Request req;

	MPI_Isend(buf, len, MPI_BYTE, to, tag, MPI_COMM_WORLD, &req);
	return wait_req(&req, deadline);
}

static int recv_wait(void *buf, int len, int from, int tag, double deadline)
{
	MPI_Request req;
	int ret;

	MPI_Irecv(buf, len, MPI_BYTE, from, tag, MPI_COMM_WORLD, &req);
	ret = wait_req(&req, deadline);
	if (ret) {
		/* withdrawn: a late answer must not land in @buf (a receive
		 * cancels locally; the run stays lost, its peer may be gone) */
		MPI_Cancel(&req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	}
	return ret;
}

static double deadline_of(int kind)
{
	return kind == UP_START ? 0 : pcc_now_sec() + S.patience;
}

/* Rank 0: what rank @r's failure is called in the report (first one kept). */
static void host_failed(int r, const char *why)
{
	struct bench_host *h = &S.cluster.hosts[r];

	S.states[r] = BENCH_RANK_FAILED;
	h->state = BENCH_RANK_FAILED;
	if (!h->why[0])
		snprintf(h->why, sizeof(h->why), "%s", why);
	if (!S.cluster.failure[0])
		snprintf(S.cluster.failure, sizeof(S.cluster.failure), "rank %d (%s) %s", r,
			 S.hosts[r], h->why);
	S.failed = 1;
}

static void copy_info(struct bench_run *hr, const struct host_info *in)
{
	char list[sizeof(in->dirs)], *save = NULL;
	unsigned int n = 0;

	snprintf(list, sizeof(list), "%s", in->dirs);
	for (unsigned int d = 0; d < hr->job.ndirs; d++)
		free(hr->job.dirs[d]);
	hr->job = in->job;	/* its pointers are the other rank's: replaced or cleared */
	memset(hr->job.dirs, 0, sizeof(hr->job.dirs));
	hr->job.output = hr->job.timeline = hr->job.plot = NULL;
	for (char *p = strtok_r(list, ":", &save); p && n < BENCH_MAX_DIRS;
	     p = strtok_r(NULL, ":", &save))
		hr->job.dirs[n++] = strdup(p);
	hr->job.ndirs = n;
	hr->nfiles = in->nfiles;
	snprintf(hr->testbed_desc, sizeof(hr->testbed_desc), "%s", in->testbed_desc);
	snprintf(hr->cgroup_dir, sizeof(hr->cgroup_dir), "%s", in->cgroup_dir);
	hr->cgroup_version = in->cgroup_version;
	snprintf(hr->numa_desc, sizeof(hr->numa_desc), "%s", in->numa_desc);
	snprintf(hr->cache_desc, sizeof(hr->cache_desc), "%s", in->cache_desc);
	snprintf(hr->trace_why, sizeof(hr->trace_why), "%s", in->trace_why);
	memcpy(hr->notes, in->notes, sizeof(hr->notes));
	hr->nnotes = in->nnotes;
}

/*
 * Rank 0: the phase as its rows tell it, until the rank's own figures come
 * at the phase's end (if the rank fails first, these are all there are).
 */
static void phase_so_far(struct bench_run *hr, const struct up_msg *m)
{
	struct bench_phase *ph = &hr->phases[m->mode];

	ph->ran = 1;
	ph->interrupted = 1;
	ph->mode = ph->strategy = hr->job.modes[m->mode];
	ph->nrows = hr->nrows - ph->first_row;
	ph->bytes = m->row.bytes_total;
	ph->secs = m->row.t;
}

/* Rank 0: file what rank @r sent into its host's run. */
static void take_up(int r, const struct up_msg *m, int kind)
{
	struct bench_run *hr = S.cluster.hosts[r].run;

	if (m->kind == UP_BYE) {
		S.gone[r] = 1;		/* no more rounds from it */
		S.bye[r] = 1;		/* but it waits for one answer */
		S.codes[r] = m->code;
		char why[sizeof(m->why) + 32];

		snprintf(why, sizeof(why), "left the run (%s)", m->why[0] ? m->why : "failed");
		host_failed(r, why);
		return;
	}
	if (m->state == BENCH_RANK_FAILED)
		host_failed(r, "failed or was interrupted");
	else if (m->kind != kind)
		host_failed(r, "is out of step with rank 0");
	else
		S.states[r] = m->state;
	if (m->kind != kind)
		return;
	if (r == 0)
		return;		/* rank 0's host run is its own run */
	if (kind == UP_START) {
		copy_info(hr, &m->info);
		hr->phases[m->mode].first_row = hr->nrows;
	}
	if (m->has_row && m->replaces && hr->nrows > hr->phases[m->mode].first_row)
		hr->rows[hr->nrows - 1] = m->row;
	else if (m->has_row && bench_keep_row(hr, &m->row))
		host_failed(r, "sent more rows than rank 0 can keep");
	if (m->has_row)
		phase_so_far(hr, m);
	if (kind == UP_END) {
		size_t first = hr->phases[m->mode].first_row;

		hr->phases[m->mode] = m->phase;
		hr->phases[m->mode].first_row = first;
		hr->phases[m->mode].ran = m->phase.ran;
		hr->phases[m->mode].nrows = hr->nrows - first;
	}
}

/* Rank 0: who of the ranks whose message is pending has been silent. */
static void name_silent(const MPI_Request *req, const char *what)
{
	char why[160];

	for (int r = 1; r < S.size; r++) {
		if (req[r] == MPI_REQUEST_NULL)
			continue;
		S.gone[r] = 1;
		S.codes[r] = 1;
		snprintf(why, sizeof(why), "sent nothing %s: killed, hung or cut off", what);
		host_failed(r, why);
	}
}

/*
 * Rank 0: ranks that said they are stopping (a signal, a failure) are
 * failed and gone: their round messages may never come.  Returns how many
 * of @req (pending round receives, or NULL) that ends.
 */
static int take_alarms(MPI_Request *req)
{
	int ended = 0, done;

	for (int r = 1; r < S.size; r++) {
		if (S.alarm_reqs[r] == MPI_REQUEST_NULL)
			continue;
		MPI_Test(&S.alarm_reqs[r], &done, MPI_STATUS_IGNORE);
		if (!done || S.gone[r])
			continue;
		S.gone[r] = 1;
		S.codes[r] = 1;
		S.lost = 1;	/* its round receive stays posted */
		host_failed(r, "failed or was interrupted");
		if (req && req[r] != MPI_REQUEST_NULL) {
			req[r] = MPI_REQUEST_NULL;
			ended++;
		}
	}
	return ended;
}

/* Rank 0: every live rank's message of this round into S.in, at once. */
static void gather(int kind, const struct up_msg *own)
{
	double deadline = deadline_of(kind), waited = pcc_now_sec();
	MPI_Request *req = calloc(S.size, sizeof(*req));
	int left = 0, done, r;

	take_up(0, own, kind);
	take_alarms(NULL);
	if (!req) {
		host_failed(0, "ran out of memory");
		return;
	}
	for (r = 0; r < S.size; r++) {
		req[r] = MPI_REQUEST_NULL;
		if (r && !S.gone[r]) {
			MPI_Irecv(&S.in[r], sizeof(S.in[r]), MPI_BYTE, r, TAG_UP, MPI_COMM_WORLD,
				  &req[r]);
			left++;
		}
	}
	while (left) {
		MPI_Testany(S.size, req, &r, &done, MPI_STATUS_IGNORE);
		if (done && r != MPI_UNDEFINED) {
			take_up(r, &S.in[r], kind);
			left--;
			continue;
		}
		left -= take_alarms(req);
		if (bench_stop || (deadline > 0 && pcc_now_sec() > deadline))
			break;
		usleep(1000);
	}
	if (left) {
		char what[96];

		S.lost = 1;	/* their receives stay posted */
		snprintf(what, sizeof(what), "for %.1f s%s", pcc_now_sec() - waited,
			 bench_stop ? " (when rank 0 was stopped by a signal)" : "");
		name_silent(req, what);
		if (bench_stop)
			host_failed(0, "was stopped by a signal");
	}
	free(req);
}

/* Rank 0: the round's decision. */
static int decide(int kind)
{
	int done = 0, running = 0;

	if (S.failed)
		return BENCH_SYNC_FAIL;
	if (kind != UP_INTERVAL)
		return BENCH_SYNC_GO;
	for (int r = 0; r < S.size; r++) {
		done += S.states[r] == BENCH_RANK_DONE;
		running += S.states[r] == BENCH_RANK_RUNNING;
	}
	if (!running || (S.stonewall && done))
		return BENCH_SYNC_STOP;
	return BENCH_SYNC_GO;
}

/* Rank 0: the answer to rank @r, also to one that said bye in this round. */
static int answer(int r, struct down_msg *d)
{
	if (S.gone[r] && !S.bye[r])
		return 0;
	S.bye[r] = 0;
	return send_wait(d, sizeof(*d), r, TAG_DOWN, pcc_now_sec() + S.patience);
}

static int round_rank0(struct up_msg *own, int kind)
{
	static struct down_msg d;	/* a send left pending still reads it */

	gather(kind, own);
	d.verdict = decide(kind);
	for (int r = 1; r < S.size; r++)
		if (answer(r, &d)) {
			S.gone[r] = 1;
			host_failed(r, "took no answer in time");
			d.verdict = BENCH_SYNC_FAIL;
		}
	return d.verdict;
}

/*
 * A rank stopping tells rank 0 at once, in a message small enough to go
 * out without rank 0 taking it (eager): rank 0 need not wait for its round.
 */
static void alarm_rank0(void)
{
	int done;

	if (S.alarmed++)
		return;
	S.alarm_out = BENCH_RANK_FAILED;
	MPI_Isend(&S.alarm_out, 1, MPI_INT, 0, TAG_ALARM, MPI_COMM_WORLD, &S.alarm_req);
	MPI_Test(&S.alarm_req, &done, MPI_STATUS_IGNORE);
	if (!done)
		S.lost = 1;
}

/* One round from this rank: its message up, the decision back. */
static int do_round(struct up_msg *m)
{
	static struct down_msg d;	/* a receive left pending still writes it */
	double deadline = deadline_of(m->kind);

	if (bench_stop && S.rank)
		alarm_rank0();
	if (S.rank == 0)
		d.verdict = round_rank0(m, m->kind);
	else if (send_wait(m, sizeof(*m), 0, TAG_UP, deadline) ||
		 recv_wait(&d, sizeof(d), 0, TAG_DOWN, deadline)) {
		if (!bench_stop)
			error("rank 0 (%s) is gone: stopping", S.hosts[0]);
		d.verdict = BENCH_SYNC_FAIL;
	}
	S.told_fail |= d.verdict == BENCH_SYNC_FAIL;
	return d.verdict;
}

static struct up_msg *msg(int kind, unsigned int mode)
{
	static struct up_msg m;

	memset(&m, 0, sizeof(m));
	m.kind = kind;
	m.mode = mode;
	m.state = bench_stop ? BENCH_RANK_FAILED : BENCH_RANK_RUNNING;
	return &m;
}

static void fill_info(const struct bench_run *run, struct host_info *in)
{
	size_t len = 0;

	in->job = run->job;
	for (unsigned int d = 0; d < run->job.ndirs && len < sizeof(in->dirs); d++)
		len += snprintf(in->dirs + len, sizeof(in->dirs) - len, "%s%s", d ? ":" : "",
				run->job.dirs[d]);
	snprintf(in->testbed_desc, sizeof(in->testbed_desc), "%s", run->testbed_desc);
	snprintf(in->cgroup_dir, sizeof(in->cgroup_dir), "%s", run->cgroup_dir);
	in->cgroup_version = run->cgroup_version;
	snprintf(in->numa_desc, sizeof(in->numa_desc), "%s", run->numa_desc);
	snprintf(in->cache_desc, sizeof(in->cache_desc), "%s", run->cache_desc);
	snprintf(in->trace_why, sizeof(in->trace_why), "%s", run->trace_why);
	memcpy(in->notes, run->notes, sizeof(in->notes));
	in->nnotes = run->nnotes;
	in->nfiles = run->nfiles;
}

static int hook_phase_start(struct bench_run *run, unsigned int mode)
{
	struct up_msg *m = msg(UP_START, mode);

	fill_info(run, &m->info);
	S.sent = run->nrows;
	return do_round(m);
}

/* Rank 0: this round's rows summed over ranks (their newest, by rank). */
static void round_total(const struct up_msg *own, struct bench_row *ret_total)
{
	memset(ret_total, 0, sizeof(*ret_total));
	for (int r = 0; r < S.size; r++) {
		const struct up_msg *m = r ? &S.in[r] : own;

		if (!S.gone[r] && m->kind == UP_INTERVAL && m->has_row)
			bench_row_add(ret_total, &m->row);
	}
}

static int hook_interval(struct bench_run *run, unsigned int mode, const struct bench_row *row,
			 enum bench_rank_state state, struct bench_row *ret_total)
{
	struct up_msg *m = msg(UP_INTERVAL, mode);
	int verdict;

	m->state = state;
	if (row) {
		m->has_row = 1;
		m->row = *row;
		S.sent = run->nrows;
	}
	verdict = do_round(m);
	if (S.rank == 0)
		round_total(m, ret_total);
	return verdict;
}

static int hook_phase_end(struct bench_run *run, unsigned int mode)
{
	struct up_msg *m = msg(UP_END, mode);

	m->phase = run->phases[mode];
	/* failed itself, not stopped because another did */
	m->state = bench_stop || m->phase.error || (run->failed && !S.told_fail) ?
		BENCH_RANK_FAILED : BENCH_RANK_DONE;
	/* the last sample, taken once the ranks agreed to stop, went in no round */
	if (run->nrows > S.sent) {
		m->has_row = 1;
		m->row = run->rows[run->nrows - 1];
	} else if (run->last_row_rebuilt) {
		/* sent in a round, then it took in the phase's short tail */
		m->has_row = 1;
		m->replaces = 1;
		m->row = run->rows[run->nrows - 1];
	}
	return do_round(m);
}

/* Rank 0 writes the report and the chart, the others only run. */
static void hook_job_ready(struct bench_run *run)
{
	S.patience = PATIENCE_S + 4 * run->job.interval;
	if (S.rank) {
		run->job.output = run->job.timeline = run->job.plot = NULL;
		run->job.quiet = 1;
		return;
	}
	S.cluster.hosts[0].run = run;
	run->cluster = &S.cluster;
	for (int r = 1; r < S.size; r++)
		S.cluster.hosts[r].run->job = run->job;
	for (int r = 1; r < S.size; r++)
		S.cluster.hosts[r].run->job.ndirs = 0;	/* its own come at its start */
}

static struct bench_hooks hooks = {
	.phase_start = hook_phase_start,
	.interval = hook_interval,
	.phase_end = hook_phase_end,
	.job_ready = hook_job_ready,
};

const struct bench_hooks *mpi_sync_hooks(void)
{
	return &hooks;
}

/* Rank 0's table of hosts, each rank's run to fill as it reports. */
static int cluster_init(void)
{
	S.cluster.nhosts = S.size;
	S.cluster.hosts = calloc(S.size, sizeof(*S.cluster.hosts));
	S.gone = calloc(S.size, sizeof(int));
	S.bye = calloc(S.size, sizeof(int));
	S.codes = calloc(S.size, sizeof(int));
	S.states = calloc(S.size, sizeof(int));
	S.in = calloc(S.size, sizeof(*S.in));
	S.alarm_in = calloc(S.size, sizeof(int));
	S.alarm_reqs = calloc(S.size, sizeof(*S.alarm_reqs));
	if (!S.cluster.hosts || !S.gone || !S.bye || !S.codes || !S.states || !S.in || !S.alarm_in ||
	    !S.alarm_reqs)
		return error("out of memory");
	S.alarm_reqs[0] = MPI_REQUEST_NULL;
	for (int r = 1; r < S.size; r++)
		MPI_Irecv(&S.alarm_in[r], 1, MPI_INT, r, TAG_ALARM, MPI_COMM_WORLD,
			  &S.alarm_reqs[r]);
	for (int r = 0; r < S.size; r++) {
		struct bench_host *h = &S.cluster.hosts[r];

		snprintf(h->name, sizeof(h->name), "%s", S.hosts[r]);
		h->rank = r;
		for (int q = 0; q < S.size; q++)
			h->on_host += !strcmp(S.hosts[q], S.hosts[r]);
		/* calloc: its unused file names are pages never touched */
		if (r && !(h->run = calloc(1, sizeof(*h->run))))
			return error("out of memory");
	}
	return 0;
}

int mpi_sync_init(int stonewall, int live)
{
	char host[HOST_MAX] = "";

	MPI_Comm_rank(MPI_COMM_WORLD, &S.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &S.size);
	S.stonewall = stonewall;
	hooks.live = live && !S.rank;
	S.patience = PATIENCE_S + 4;
	gethostname(host, sizeof(host) - 1);
	S.hosts = calloc(S.size, sizeof(*S.hosts));
	if (!S.hosts)
		return error("out of memory");
	MPI_Allgather(host, HOST_MAX, MPI_CHAR, S.hosts, HOST_MAX, MPI_CHAR, MPI_COMM_WORLD);
	return S.rank ? 0 : cluster_init();
}

/* Rank 0: rank @r's next message, unless it alarms first (1) or the wait
 * ends (-1). */
static int recv_or_alarm(int r)
{
	double deadline = pcc_now_sec() + S.patience;
	MPI_Request req;
	int done = 0;

	MPI_Irecv(&S.in[r], sizeof(S.in[r]), MPI_BYTE, r, TAG_UP, MPI_COMM_WORLD, &req);
	for (;;) {
		MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (done)
			return 0;
		take_alarms(NULL);
		if (S.gone[r] || bench_stop || pcc_now_sec() > deadline) {
			S.lost = 1;	/* the receive stays posted */
			return S.gone[r] ? 1 : -1;
		}
		usleep(1000);
	}
}

/* Rank 0: every other rank's bye (answering its rounds with fail meanwhile). */
static int collect_byes(int code)
{
	static struct down_msg d = { .verdict = BENCH_SYNC_FAIL };
	int worst = code;

	for (int r = 1; r < S.size; r++) {
		while (!S.gone[r]) {
			if (recv_or_alarm(r)) {
				S.gone[r] = 1;
				S.codes[r] = S.codes[r] ? S.codes[r] : 1;
				break;
			}
			if (S.in[r].kind == UP_BYE) {
				S.codes[r] = S.in[r].code;
				break;
			}
			/* rank 0 left first: the others' phases stop */
			if (send_wait(&d, sizeof(d), r, TAG_DOWN, pcc_now_sec() + S.patience))
				S.gone[r] = 1;
		}
		if (S.codes[r] > worst)
			worst = S.codes[r];
	}
	return worst;
}

/* Rank 0: the alarm receives no rank used, withdrawn before MPI ends. */
static void cancel_alarms(void)
{
	for (int r = 1; r < S.size; r++) {
		if (S.alarm_reqs[r] == MPI_REQUEST_NULL)
			continue;
		MPI_Cancel(&S.alarm_reqs[r]);
		MPI_Wait(&S.alarm_reqs[r], MPI_STATUS_IGNORE);
	}
}

int mpi_sync_leave(int code)
{
	static struct down_msg d;	/* see do_round() */

	d.verdict = code;
	if (S.rank == 0) {
		d.verdict = collect_byes(code);
		for (int r = 1; r < S.size; r++)
			if (answer(r, &d))
				S.lost = 1;
		if (!S.lost)
			cancel_alarms();
	} else {
		struct up_msg *m = msg(UP_BYE, 0);

		m->code = code;
		snprintf(m->why, sizeof(m->why), "exit status %d", code);
		if (send_wait(m, sizeof(*m), 0, TAG_UP, pcc_now_sec() + S.patience) ||
		    recv_wait(&d, sizeof(d), 0, TAG_DOWN, pcc_now_sec() + S.patience))
			d.verdict = code ? code : 1;
	}
	if (!S.lost)
		MPI_Finalize();
	/* a rank that ran well exits non-zero when another did not */
	return code ? code : d.verdict ? 1 : 0;
}
