// SPDX-License-Identifier: MIT
/*
 * The watcher's glue to the kernel's view (kview.h): the view's ways back
 * to the targets (a pidfd, whether a position stream owns a file), which
 * view follows streams, and one owner per stream between the two.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "watcher.h"

/* The kernel view's way to a followed process (kview.h): its pidfd. */
static int env_pidfd(void *arg, pid_t pid, uint64_t seen)
{
	struct pco_watcher *w = arg;
	struct pco_target *t = pco_target_find(w, pid);
	char why[256];

	/*
	 * The program vouched for it (a target's descendant, or --all); its
	 * start is checked against when it was seen (not a reused pid).  Not
	 * once the watcher ends: a target added then would never be closed.
	 */
	if (!t && !w->freeing && (w->o.all || w->o.cgroup || w->o.follow_children) &&
	    !pco_target_add(w, pid, 0, seen, why, sizeof(why)))
		t = pco_target_find(w, pid);
	return t && t->pidfd >= 0 ? t->pidfd : -ESRCH;
}

/* Whether a position stream of @pid acts on file (@dev, @ino), and how. */
static int env_owned(void *arg, pid_t pid, unsigned int dev, uint64_t ino)
{
	struct pco_watcher *w = arg;
	struct pco_target *t = pco_target_find(w, pid);
	double now = w->now;	/* the tick's */

	for (int i = 0; t && i < t->n; i++) {
		const struct pco_stream *s = &t->streams[i];
		const struct pco_mount *m;

		/* a reader that guesses (its cursor stands) yields to the facts */
		if (!pco_state_acting(s->state) || s->fi.ino != ino ||
		    (pco_state_reader(s->state) && pco_stream_guesses(s)))
			continue;
		m = pco_mount_by_id(w->mounts, pid, s->fi.mnt_id, now);
		if (m && m->dev == dev)
			return PCO_KV_OWNED;
	}
	return 0;
}

static void env_served(void *arg, const struct pco_mount *m)
{
	pco_watcher_say_served(arg, m);
}

void pco_watcher_kview_on(struct pco_watcher *w)
{
	char why[256] = "the watcher's own process could not be followed", line[400];
	int n;

	w->env = (struct pco_kview_env){ .arg = w, .pidfd = env_pidfd, .owned = env_owned,
					 .served = env_served, .mounts = w->mounts };
	if (!pco_kview_open(&w->o, &w->kv, why, sizeof(why)) && w->o.own_children &&
	    pco_kview_follow(w->kv, getpid())) {
		pco_kview_free(w->kv, &w->env);
		w->kv = NULL;
	}
	if (w->kv)
		n = snprintf(line, sizeof(line), "pagecliff: streams followed by the kernel's view "
			     "(BPF: the pages each process adds to the page cache)%s\n",
			     w->o.kernel_only ? ", beside the shim" : "");
	else if (w->o.kernel_only)
		n = snprintf(line, sizeof(line), "pagecliff: no kernel view beside the shim: %s\n",
			     why);
	else
		n = snprintf(line, sizeof(line), "pagecliff: streams followed by descriptor "
			     "positions (no kernel view: %s)\n", why);
	if (w->o.stats_fd >= 0 && n > 0 && n < (int)sizeof(line) &&
	    write(w->o.stats_fd, line, n) < 0)
		return;
}

int pco_watcher_kernel_view(const struct pco_watcher *w)
{
	return w->kv != NULL;
}

/*
 * Say once per file system, with --stats, that its files are left alone:
 * every call on them would be a request to a server that a user runs or
 * that a network answers, and one that never answers would hold the
 * watcher (and every other stream it follows) for good.
 */
void pco_watcher_say_served(struct pco_watcher *w, const struct pco_mount *m)
{
	char line[1400];
	int n;

	if (w->ctx.stats_fd < 0 || pco_mount_said(w->mounts, m))
		return;
	n = snprintf(line, sizeof(line), "pagecliff: %s (%s): left alone: its files are served by "
		     "a program or a network that could make the watcher wait\n", m->point, m->fstype);
	if (n > 0 && n < (int)sizeof(line) && write(w->ctx.stats_fd, line, n) < 0)
		return;
}

void pco_watcher_share(struct pco_watcher *w, struct pco_target *t, double now)
{
	for (int i = 0; w->kv && i < t->n; i++) {
		struct pco_stream *s = &t->streams[i];
		const struct pco_mount *m;

		if (!pco_state_acting(s->state))
			continue;
		m = pco_mount_by_id(w->mounts, t->pid, s->fi.mnt_id, now);
		if (!m)
			continue;
		if (pco_state_writer(s->state) || !pco_stream_guesses(s))
			pco_kview_defer(w->kv, t->pid, m->dev, s->fi.ino,
					pco_state_writer(s->state));
		else if (pco_kview_take(w->kv, t->pid, m->dev, s->fi.ino))
			pco_stream_yield(s, &w->ctx);
	}
}
