// SPDX-License-Identifier: MIT
/*
 * The watcher's loop: targets (processes, with their children, a cgroup's
 * members or the whole host), a look at each target's descriptors per tick,
 * and the interval to the next tick: as long as the fastest stream may run
 * without leaving more than the budget behind its cursor.  Who the targets
 * are is targets.c's; the kernel's view is reached through watcher-kview.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "policy.h"
#include "watcher.h"
#include "clock.h"

/* Ticks are at most this far apart, and at least this close. */
#define PCO_IDLE 0.02
/* The host guard looks at every descriptor of every process: less often. */
#define PCO_IDLE_ALL 0.5
#define PCO_FASTEST 0.001
/*
 * A stream is first seen up to one interval after it began, and below its
 * first position nothing is dropped (whose pages they are the watcher did not
 * see): a program just started (it opens its files now) and one whose stream
 * just ended at speed (tar, cp -r, restic: the next file follows) are looked
 * at often, so that the first look comes after at most PCO_NEW_STREAM bytes.
 */
#define PCO_FIRST 0.002
#define PCO_YOUNG 0.1
#define PCO_NEW_STREAM (4.0 * (1 << 20))
#define PCO_AFTER_STREAM 1.0
#define PCO_SKIP_LOOKS 8

/*
 * A target that did no I/O since its last look (its /proc/PID/io the
 * same) and has no stream acted on is not looked at again before this: a
 * descriptor moves only by a read or a write, so an idle process with
 * thousands of files costs one small read a tick.  What such a look would
 * still find late is a descriptor closed meanwhile.
 */
#define PCO_QUIET_FULL 10.0
/*
 * And a target found quiet again and again is asked less often: after n
 * quiet looks, n x PCO_IDLE later, at most this.  A stream it starts is
 * seen that much later, and what it read before claimed (claimable()).
 */
#define PCO_QUIET_MAX 0.25
/* With many targets, quiet ones are asked at most this often in all (per second). */
#define PCO_QUIET_RATE 400.0

/* Mappings are looked at this often per process, and whether it executed. */
#define PCO_MAPS_EVERY 0.1
#define PCO_EXEC_EVERY 0.1

void pco_opts_init(struct pco_opts *o)
{
	struct policy p;

	*o = (struct pco_opts){ .follow_children = 1, .stats_fd = -1 };
	policy_load(&p, o->bad, sizeof(o->bad));	/* the defaults where it is bad */
	o->min_size = p.min_size;
	o->budget = p.budget;
}

/* A watcher with no targets yet; 0 or -errno. */
static int watcher_new(const struct pco_opts *o, struct pco_watcher **ret_w)
{
	struct pco_watcher *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->pids = calloc(PCO_MAX_PIDS, sizeof(pid_t));
	if (!w->pids) {
		free(w);
		return -ENOMEM;
	}
	if (pco_mounts_new(&w->mounts)) {
		free(w->pids);
		free(w);
		return -ENOMEM;
	}
	w->o = *o;
	pco_watcher_kview_on(w);
	w->self = getpid();
	w->mntns = pco_mntns(0);
	w->keep_open = !o->all && !geteuid();
	w->ctx = (struct pco_ctx){ .min_size = o->min_size, .budget = o->budget,
				   .stats_fd = o->stats_fd };
	*ret_w = w;
	return 0;
}




int pco_watcher_start(const struct pco_opts *o, const pid_t *pids, int n,
		      struct pco_watcher **ret_w, char *why, size_t size)
{
	struct pco_watcher *w;
	int err;

	if (o->bad[0]) {
		snprintf(why, size, "%s", o->bad);
		return -EINVAL;
	}
	err = pco_check_kernel(why, size);
	if (err)
		return err;
	err = watcher_new(o, &w);
	if (err) {
		snprintf(why, size, "out of memory");
		return err;
	}
	for (int i = 0; i < n && !err; i++)
		err = pco_target_add(w, pids[i], 0, 0, why, size);
	if (err) {
		pco_watcher_free(w);
		return err;
	}
	*ret_w = w;
	return 0;
}

/* Hand an ended stream's unfinished cleaning to the drain list, or release it. */
static void end_stream(struct pco_watcher *w, struct pco_stream *s)
{
	struct pco_target *t = pco_target_find(w, s->pid);

	if (t && s->state != PCO_SKIP && s->rate > 0) {
		t->ended_rate = s->rate;
		t->ended_at = s->t_last;
	}
	if (pco_stream_end(s, &w->ctx) && w->ndrain < 4096) {
		if (w->ndrain == w->capdrain) {
			int cap = w->capdrain ? 2 * w->capdrain : 16;
			struct pco_stream *more = realloc(w->drain, cap * sizeof(*more));

			if (!more)
				goto out_release;
			w->drain = more;
			w->capdrain = cap;
		}
		w->drain[w->ndrain++] = *s;
		return;
	}
out_release:
	pco_stream_release(s, &w->ctx);
}

static struct pco_stream *new_stream(struct pco_target *t)
{
	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 16;
		struct pco_stream *more = realloc(t->streams, cap * sizeof(*more));

		if (!more)
			return NULL;
		t->streams = more;
		t->cap = cap;
	}
	return &t->streams[t->n++];
}

static struct pco_stream *find_stream(struct pco_target *t, int fd)
{
	for (int i = 0; i < t->n; i++)
		if (t->streams[i].fd == fd)
			return &t->streams[i];
	return NULL;
}

/* End the streams not seen in this look, and compact the list. */
static void sweep(struct pco_watcher *w, struct pco_target *t)
{
	int keep = 0;

	for (int i = 0; i < t->n; i++) {
		if (!t->streams[i].seen)
			end_stream(w, &t->streams[i]);
		else
			t->streams[keep++] = t->streams[i];
	}
	t->n = keep;
}

static void target_gone(struct pco_watcher *w, struct pco_target *t)
{
	if (w->kv)
		pco_kview_gone(w->kv, t->pid);
	for (int i = 0; i < t->n; i++)
		end_stream(w, &t->streams[i]);
	t->n = 0;
	free(t->streams);
	t->streams = NULL;
	close(t->pidfd);
	t->pidfd = -1;
	if (t->fd_dir >= 0)
		close(t->fd_dir);
	t->fd_dir = -1;
	t->dead = 1;
}

/* A process first looked at less than PCO_YOUNG ago (or not yet). */
static int young(const struct pco_target *t, double now)
{
	return !t->added || now - t->added < PCO_YOUNG;
}

/*
 * @t's descriptor @fd as fdinfo says now: through the stream's fdinfo kept
 * open where it has one (a pread a look).  --all keeps none: every
 * descriptor of the host would be one of ours.  Nor does a watcher without
 * root: access is checked at open, and one kept open would go on showing
 * positions after the process executed a setuid program.
 */
static int read_fdinfo(struct pco_watcher *w, struct pco_target *t, struct pco_stream *s,
		       int fd, struct pco_fdinfo *ret)
{
	/* only for a file that may become a stream: not 20,000 of an idle database's */
	if (s && s->info < 0 && w->keep_open && s->state != PCO_SKIP && s->size >= w->o.min_size)
		s->info = pco_fdinfo_open(t->pid, fd);
	if (s && s->info >= 0)
		return pco_fdinfo_pread(s->info, ret);
	return pco_fdinfo_read(t->pid, fd, ret);
}


/* @s is @t's descriptor @fd, newly seen naming the file @fi says. */
static void new_file(struct pco_watcher *w, struct pco_target *t, struct pco_stream *s,
		     int fd, const struct pco_fdinfo *fi, double now)
{
	const struct pco_mount *m = pco_mount_by_id(w->mounts, t->pid, fi->mnt_id, now);

	pco_stream_init(s, t->pid, fd, fi, m, t->foreign);
	if (m->class == PCO_FS_SERVED)
		pco_watcher_say_served(w, m);
}

/*
 * One descriptor of @t as fdinfo says now; a stream new in this look may
 * claim what its process read before it was seen (claimable()).
 */
static void look_fd(struct pco_watcher *w, struct pco_target *t, int fd, double now)
{
	struct pco_fdinfo fi;
	struct pco_stream *s = find_stream(t, fd);
	int fresh = 0;

	/*
	 * A descriptor left alone (a pipe, a socket, a tty) is read again
	 * only every PCO_SKIP_LOOKS looks: whether its number now names a
	 * regular file is found a few looks late, and what the new stream
	 * passed meanwhile is caught up behind it.  But at every look of a
	 * young process: it opens its files now (dd reopens its input on 0).
	 */
	if (s && s->state == PCO_SKIP && ++s->skipped % PCO_SKIP_LOOKS && !young(t, now)) {
		s->seen = 1;
		return;
	}
	if (read_fdinfo(w, t, s, fd, &fi))
		return;		/* closed since the listing: swept as unseen */
	if (s && (s->fi.mnt_id != fi.mnt_id || s->fi.ino != fi.ino)) {
		end_stream(w, s);	/* the number was reused for another file */
		new_file(w, t, s, fd, &fi, now);
		s->t_last = now;
		fresh = 1;
	}
	if (!s) {
		s = new_stream(t);
		if (!s)
			return;
		new_file(w, t, s, fd, &fi, now);
		s->t_last = now;
		fresh = 1;
	}
	s->seen = 1;
	pco_stream_look(s, t->pidfd, &fi, now, fresh ? &t->read_left : NULL, &w->ctx);
}

struct mapped_ctx {
	struct pco_watcher *w;
	struct pco_target *t;
};

/* A file mapped: out of reach; said once per process in --stats. */
static void on_mapped(void *arg, const char *path, unsigned int dev, uint64_t ino)
{
	struct mapped_ctx *m = arg;
	struct pco_target *t = m->t;
	char line[4400];
	struct stat st;
	int n;

	for (int i = 0; i < t->nmapped; i++)
		if (t->mapped[i] == ino)
			return;
	/* A path is walked only in our own namespace, to a file of a local file system. */
	if (t->nmapped == PCO_MAPPED_MAX || t->foreign ||
	    pco_mount_by_dev(m->w->mounts, t->pid, dev, pcc_now_sec())->class != PCO_FS_LOCAL ||
	    stat(path, &st) || !S_ISREG(st.st_mode) ||
	    st.st_ino != ino || (uint64_t)st.st_size < m->w->o.min_size)
		return;
	t->mapped[t->nmapped++] = ino;
	n = snprintf(line, sizeof(line), "pagecliff: %s: mapped with mmap(2) by pid %d: out of "
		     "the watcher's reach, its pages are not dropped\n", path, (int)t->pid);
	if (n > 0 && n < (int)sizeof(line) && write(m->w->ctx.stats_fd, line, n) < 0)
		return;
}

static void look_maps(struct pco_watcher *w, struct pco_target *t, double now)
{
	struct mapped_ctx m = { w, t };

	/* the kernel's view follows readers through mappings */
	if (w->ctx.stats_fd < 0 || w->o.all || w->kv || now - t->maps_seen < PCO_MAPS_EVERY)
		return;
	t->maps_seen = now;
	pco_maps(t->pid, on_mapped, &m);
}

/* Say once per exec, with --stats, that the process runs another program. */
static void say_exec(struct pco_watcher *w, const struct pco_target *t)
{
	char path[64], exe[4096], line[4400];
	const char *name = t->exec.comm;
	ssize_t len;
	int n;

	if (w->ctx.stats_fd < 0)
		return;
	/* The file executed, where it can be read: comm is "exe" for /proc/self/exe. */
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)t->pid);
	len = readlink(path, exe, sizeof(exe) - 1);
	if (len > 0) {
		exe[len] = 0;
		name = exe;
	}
	n = snprintf(line, sizeof(line), "pagecliff: pid %d executed %s: its streams are "
		     "followed afresh\n", (int)t->pid, name);
	if (n > 0 && n < (int)sizeof(line) && write(w->ctx.stats_fd, line, n) < 0)
		return;
}

/* A stream of @t is read or written behind (not a candidate, not left alone). */
static int acting(const struct pco_target *t)
{
	for (int i = 0; i < t->n; i++)
		if (pco_state_acting(t->streams[i].state))
			return 1;
	return 0;
}

/*
 * Did @t execute another program since the last check?  Its streams end
 * there (their --stats lines are the old program's), the descriptors that
 * survived the exec are followed afresh from where they stand, and what was
 * said of its mappings is said again of the new program's.  Asked only
 * while the watcher acts on one of its streams (the host guard follows
 * hundreds of idle processes), against the program it ran when the first
 * of them began to be acted on.  Without that, a candidate's file replaced
 * by the new program is still told by its inode, and the same file opened
 * again looks like a seek.
 */
static void look_exec(struct pco_watcher *w, struct pco_target *t, double now)
{
	struct pco_exec_id id;

	if (!acting(t)) {
		t->exec_known = 0;
		return;
	}
	if (now - t->exec_seen < PCO_EXEC_EVERY || pco_exec_id(t->pid, &id))
		return;
	t->exec_seen = now;
	if (!t->exec_known || (id.code == t->exec.code && id.stack == t->exec.stack &&
			       !strcmp(id.comm, t->exec.comm))) {
		t->exec = id;
		t->exec_known = 1;
		return;
	}
	t->exec = id;
	t->exec_known = 0;	/* read again once a stream of the new program acts */
	for (int i = 0; i < t->n; i++) {
		t->streams[i].cut = 1;
		end_stream(w, &t->streams[i]);
	}
	t->n = 0;
	t->nmapped = 0;
	say_exec(w, t);
}

/*
 * What @t read from storage that a stream new in this look may claim as
 * its own (pco_stream_look()): at the first look all it read so far; later
 * what it read since the last look, when none of its streams was acted on
 * (those read it, as far as the watcher can tell: nothing is claimed).  A
 * stream found late (a loaded host, a reader fast through its first MiBs)
 * so still drops what its process read before it was seen.
 */
static void claimable(struct pco_target *t, int was_acting, double now)
{
	if (!t->added) {
		t->added = now;
		t->read_left = t->read_bytes;
	} else {
		t->read_left = was_acting || t->read_bytes < t->read_last ? 0 :
			       t->read_bytes - t->read_last;
	}
	t->read_last = t->read_bytes;
}

enum { LOOK_FULL, LOOK_NONE, LOOK_LIST };

/*
 * How much of @t to look at (see PCO_QUIET_FULL): all of it; nothing (it
 * did no I/O since); or, now and then, only which descriptors it still
 * has (what a quiet process changes is which files it holds open).
 */
static int how_much(const struct pco_watcher *w, struct pco_target *t, double now)
{
	double most = w->n / PCO_QUIET_RATE > PCO_QUIET_MAX ? w->n / PCO_QUIET_RATE : PCO_QUIET_MAX;
	uint64_t sum;

	if (pco_io_counts(t->pid, &sum, &t->read_bytes)) {
		t->read_bytes = 0;
		return LOOK_FULL;	/* no task I/O accounting: every time */
	}
	if (!t->added || sum != t->io_sum || acting(t)) {
		t->io_sum = sum;
		t->full_at = now;
		t->quiet_looks = 0;
		return LOOK_FULL;
	}
	t->quiet_looks++;
	t->next_at = now + (t->quiet_looks * PCO_IDLE < most ? t->quiet_looks * PCO_IDLE : most);
	if (now - t->full_at < PCO_QUIET_FULL)
		return LOOK_NONE;
	t->full_at = now;
	return LOOK_LIST;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* End the streams of @t whose descriptors are not among the @n in w->fds. */
static void look_list(struct pco_watcher *w, struct pco_target *t, int n)
{
	qsort(w->fds, n, sizeof(w->fds[0]), cmp_int);
	for (int i = 0; i < t->n; i++)
		t->streams[i].seen = !!bsearch(&t->streams[i].fd, w->fds, n, sizeof(w->fds[0]),
					       cmp_int);
	sweep(w, t);
}


static void look_target(struct pco_watcher *w, struct pco_target *t, double now)
{
	int first = !t->added, how, n;

	/* not even its pidfd: its exit is found when it is due */
	if (t->quiet && now < t->next_at)
		return;
	if (w->o.kernel_only) {
		/*
		 * The shim acts on its descriptors, the kernel's view on the
		 * rest: only its exit is looked for, as seldom as a quiet one's.
		 */
		t->added = t->added ? t->added : now;
		t->quiet = 1;
		t->next_at = now + PCO_QUIET_MAX;
		if (pco_pidfd_alive(t->pidfd))
			target_gone(w, t);
		return;
	}
	how = how_much(w, t, now);

	t->quiet = how != LOOK_FULL;
	if (how == LOOK_NONE) {
		if (pco_pidfd_alive(t->pidfd))
			target_gone(w, t);
		return;
	}
	n = t->fd_dir >= 0 ? pco_fds_at(t->fd_dir, w->fds, PCO_MAX_FDS) :
	    pco_fds(t->pid, w->fds, PCO_MAX_FDS);

	if (n < 0 || pco_pidfd_alive(t->pidfd)) {
		target_gone(w, t);
		return;
	}
	if (how == LOOK_LIST) {
		look_list(w, t, n);
		return;
	}
	claimable(t, acting(t), now);
	if (!first)
		look_exec(w, t, now);
	for (int i = 0; i < t->n; i++)
		t->streams[i].seen = 0;
	for (int i = 0; i < n; i++)
		look_fd(w, t, w->fds[i], now);
	pco_watcher_share(w, t, now);
	sweep(w, t);
	look_maps(w, t, now);
	if (pco_pidfd_alive(t->pidfd))
		target_gone(w, t);	/* exited (or a zombie): its files are closed */
}


/* Forget dead targets, keeping the array small for --all. */
static void compact(struct pco_watcher *w)
{
	int keep = 0;

	for (int i = 0; i < w->n; i++)
		if (!w->t[i].dead)
			w->t[keep++] = w->t[i];
	w->n = keep;
}

static void drain(struct pco_watcher *w)
{
	int keep = 0;

	for (int i = 0; i < w->ndrain; i++) {
		if (pco_stream_drain(&w->drain[i]))
			w->drain[keep++] = w->drain[i];
		else
			pco_stream_release(&w->drain[i], &w->ctx);
	}
	w->ndrain = keep;
}

/* How soon a new stream of @t must be seen (see PCO_FIRST). */
static double target_interval(const struct pco_watcher *w, const struct pco_target *t,
			      double now, double next)
{
	double iv;

	if (w->o.all)
		return next;
	if (young(t, now))
		return PCO_FIRST;
	if (t->ended_rate > 0 && now - t->ended_at < PCO_AFTER_STREAM) {
		iv = PCO_NEW_STREAM / t->ended_rate;
		if (iv < next)
			next = iv < PCO_FIRST ? PCO_FIRST : iv;
	}
	return next;
}

/*
 * When every target is quiet, the next tick can wait for the first of
 * them to be asked again (@soonest), up to the next discovery: an idle
 * host is not woken 50 times a second.
 */
static double quiet_wait(const struct pco_watcher *w, double now, double next, double soonest)
{
	double most = w->o.all ? PCO_IDLE_ALL : w->o.cgroup ? PCO_DISCOVER_CGROUP : PCO_QUIET_MAX;

	if (w->ndrain || soonest - now <= next)
		return next;
	return soonest - now < most ? soonest - now : most;
}

/*
 * Check the targets once and act behind every stream; returns the seconds
 * until the next look, by the fastest stream's rate and the budget.
 */
static double watcher_tick(struct pco_watcher *w)
{
	double now = pcc_now_sec(), next = w->o.all ? PCO_IDLE_ALL : PCO_IDLE;
	double soonest = 1e9, kv_next;
	int quiet = 1;

	w->now = now;
	pco_targets_discover(w, now);
	for (int i = 0; i < w->n; i++) {
		if (w->t[i].dead)
			continue;
		look_target(w, &w->t[i], now);
		if (w->t[i].dead)
			continue;
		next = target_interval(w, &w->t[i], now, next);
		quiet &= w->t[i].quiet;
		if (w->t[i].quiet && w->t[i].next_at < soonest)
			soonest = w->t[i].next_at;
		for (int j = 0; !w->t[i].quiet && j < w->t[i].n; j++) {
			double iv = pco_stream_interval(&w->t[i].streams[j], &w->ctx);

			if (iv < next)
				next = iv;
		}
	}
	kv_next = w->kv ? pco_kview_tick(w->kv, &w->env, now) : 1e9;
	compact(w);
	drain(w);
	if (quiet)
		next = quiet_wait(w, now, next, soonest);
	if (kv_next < next)
		next = kv_next;		/* quiet targets may stream all the same */
	if (w->ndrain && next > 0.01)
		next = 0.01;
	next -= pcc_now_sec() - now;
	return next < PCO_FASTEST ? PCO_FASTEST : next;
}

/* Are targets left?  (--all always; a cgroup until it is removed.) */
static int watcher_alive(const struct pco_watcher *w)
{
	if (w->o.all || (w->o.cgroup && !w->cgroup_gone))
		return 1;
	for (int i = 0; i < w->n; i++)
		if (!w->t[i].dead)
			return 1;
	return w->ndrain > 0;
}

static void sleep_for(double secs)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

	nanosleep(&ts, NULL);
}

/* Wait up to @secs for a target to exit or a signal; returns at once on either. */
static void watcher_wait(struct pco_watcher *w, double secs)
{
	double start = pcc_now_sec();
	struct pollfd p[65];
	struct timespec ts;
	int n = 0, ring = -1;

	/* a quiet target is asked when it is due, its exit with it */
	for (int i = 0; i < w->n && n < 64; i++)
		if (!w->t[i].dead && !w->t[i].quiet)
			p[n++] = (struct pollfd){ .fd = w->t[i].pidfd, .events = POLLIN };
	/* the kernel's view: a stream's first pages wake us */
	if (w->kv && (ring = pco_kview_fd(w->kv)) >= 0)
		p[n++] = (struct pollfd){ .fd = ring, .events = POLLIN };
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - ts.tv_sec) * 1e9);
	if (ppoll(p, n, &ts, NULL) > 0 && ring >= 0 && p[n - 1].revents &&
	    pcc_now_sec() - start < PCO_IDLE && secs > PCO_IDLE)
		/* a busy host: 50 looks a second at most */
		sleep_for(PCO_IDLE - (pcc_now_sec() - start));
}

void pco_watcher_free(struct pco_watcher *w)
{
	if (!w)
		return;
	w->freeing = 1;
	for (int i = 0; i < w->n; i++)
		if (!w->t[i].dead)
			target_gone(w, &w->t[i]);
	/*
	 * Writers' tails: their writeback was started; a few seconds at most,
	 * a few tenths when a signal asked us to end (systemd's stop).
	 */
	for (int i = 0; i < (w->stopping ? 30 : 300) &&
			(w->ndrain || (w->kv && pco_kview_busy(w->kv))); i++) {
		const struct timespec tick = { 0, 10000000 };

		drain(w);
		w->now = pcc_now_sec();
		if (w->kv)
			pco_kview_tick(w->kv, &w->env, w->now);
		nanosleep(&tick, NULL);
	}
	pco_kview_free(w->kv, &w->env);
	for (int i = 0; i < w->ndrain; i++)
		pco_stream_release(&w->drain[i], &w->ctx);
	free(w->drain);
	free(w->t);
	free(w->pids);
	free(w->known);
	pco_hot_free(w->hot);
	pco_mounts_free(w->mounts);
	free(w);
}

int pco_watcher_loop(struct pco_watcher *w, pid_t child, double secs,
		     volatile sig_atomic_t *stop, int *ret_status)
{
	double end = secs > 0 ? pcc_now_sec() + secs : 0;

	for (;;) {
		double next = watcher_tick(w);

		if (*stop) {
			w->stopping = 1;
			return 1;
		}
		if (child > 0 && waitpid(child, ret_status, WNOHANG) == child)
			return 0;
		if (child <= 0 && !watcher_alive(w))
			return 0;
		if (end && pcc_now_sec() >= end)
			return 0;
		if (end && pcc_now_sec() + next > end)
			next = end - pcc_now_sec();
		watcher_wait(w, next > 0 ? next : 0);
	}
}
