// SPDX-License-Identifier: MIT
/*
 * The host guard's candidates from kernel events.  The BPF program
 * (bpf/pagecliff.bpf.c, pc_filemap_add) counts the pages each file gains in
 * the page cache and remembers the process that added them last; here the
 * map is read, every file that gained at least min_size is named (the
 * fastest first) and taken out of the map, so that it is named again only
 * after it gains as much once more.  The adder is the candidate; a file
 * filled by a kernel thread is looked for by inode among the descriptors of
 * the processes.  The watcher then follows only those processes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hot.h"
#include "proc.h"
#include "trace-shared.h"

#ifdef HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf-open.h"
#endif

/* Files named per read, the fastest first; the map is read at most this often. */
#define PCO_HOT_TOP 16
#define PCO_HOT_EVERY 0.1
/*
 * A file filled by a kernel thread (a loop device's backing file, held by
 * no descriptor) is looked for again after 5 s, then twice as long each
 * time, up to 5 minutes.
 */
#define PCO_HOT_SEEK_AGAIN 5.0
#define PCO_HOT_SEEK_MAX 300.0
#define PCO_HOT_SOUGHT 64
#define PCO_HOT_SAID 256
#define PCO_HOT_MAX_PIDS 65536
#define PCO_HOT_MAX_FDS 4096

struct hot_entry {
	struct hot_key key;
	struct hot_val val;
};

struct hot_sought {
	unsigned long long ino;
	double at, wait;
};

struct hot_said {
	unsigned long long ino;
	pid_t pid;
};

struct pco_hot {
	int stats_fd;
	uint64_t min_pages;
	double taken;
	void *skel;			/* struct pagecliff_bpf, NULL: scanning */
	int map_fd;
	struct hot_key keys[HOT_MAX_FILES];
	struct hot_val vals[HOT_MAX_FILES];
	struct hot_entry top[PCO_HOT_TOP];
	struct hot_sought sought[PCO_HOT_SOUGHT];
	struct hot_said said[PCO_HOT_SAID];
	unsigned int nsought, nsaid;
	pid_t scan_pids[PCO_HOT_MAX_PIDS];
	int scan_fds[PCO_HOT_MAX_FDS];
};

static void say(const struct pco_hot *h, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (h->stats_fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && n < (int)sizeof(line) && write(h->stats_fd, line, n) < 0)
		return;
}

/* Our PID namespace's inode number, 0 when unknown. */
static unsigned int own_pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) ? 0 : (unsigned int)st.st_ino;
}

#ifdef HAVE_BPF
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* PC_BPF_DEBUG=1 in the environment: libbpf's and the verifier's log. */
static int loud(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return vfprintf(stderr, fmt, ap);
}

/* Load only pc_filemap_add of the project's program and attach it. */
static int hot_load(struct pco_hot *h, char *why, size_t size)
{
	struct pagecliff_bpf *skel;
	struct bpf_program *prog;
	int err;

	libbpf_set_print(getenv("PC_BPF_DEBUG") ? loud : quiet);
	skel = pcl_bpf_open();
	if (!skel) {
		err = -errno;
		goto out_why;
	}
	skel->rodata->hot_ns_ino = own_pidns();
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, prog == skel->progs.pc_filemap_add);
	err = pagecliff_bpf__load(skel);
	if (!err) {
		skel->links.pc_filemap_add = bpf_program__attach(skel->progs.pc_filemap_add);
		err = skel->links.pc_filemap_add ? 0 : -errno;
	}
	if (err)
		goto out_destroy;
	h->skel = skel;
	h->map_fd = bpf_map__fd(skel->maps.pc_hot);
	return 0;
out_destroy:
	pagecliff_bpf__destroy(skel);
out_why:
	if (err == -EPERM || err == -EACCES)
		snprintf(why, size, "refused by the kernel: needs root or CAP_BPF and CAP_PERFMON");
	else if (err == -ENOENT || err == -ESRCH || err == -EINVAL)
		snprintf(why, size, "no filemap tracepoint or BTF in this kernel: %s", strerror(-err));
	else
		snprintf(why, size, "the BPF program did not load: %s", strerror(-err));
	return err;
}

static void hot_unload(struct pco_hot *h)
{
	pagecliff_bpf__destroy(h->skel);
}

/* Every entry of the map into keys and vals (a batch at a time); how many. */
static int hot_read(struct pco_hot *h)
{
	unsigned int in, out, count;
	int n = 0, err;

	do {
		count = HOT_MAX_FILES - n;
		err = bpf_map_lookup_batch(h->map_fd, n ? &in : NULL, &out, h->keys + n,
					   h->vals + n, &count, NULL);
		if (err && errno != ENOENT)
			return n;
		n += count;
		in = out;
	} while (!err && n < HOT_MAX_FILES);
	return n;
}

static void hot_forget(struct pco_hot *h, const struct hot_key *k)
{
	bpf_map_delete_elem(h->map_fd, k);
}
#else
static int hot_load(struct pco_hot *h, char *why, size_t size)
{
	snprintf(why, size, "built without BPF support");
	return -ENOTSUP;
}

static void hot_unload(struct pco_hot *h)
{
}

static int hot_read(struct pco_hot *h)
{
	return 0;
}

static void hot_forget(struct pco_hot *h, const struct hot_key *k)
{
}
#endif

int pco_hot_on(struct pco_hot **hp, const struct pco_opts *o)
{
	struct pco_hot *h = *hp;
	char why[200];

	if (h)
		return h->skel != NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return 0;		/* scan, and try again next time */
	h->stats_fd = o->stats_fd;
	h->min_pages = o->min_size / (uint64_t)sysconf(_SC_PAGESIZE);
	if (getenv("PAGECLIFF_NO_BPF") && *getenv("PAGECLIFF_NO_BPF"))
		snprintf(why, sizeof(why), "PAGECLIFF_NO_BPF is set");
	else if (!hot_load(h, why, sizeof(why)))
		why[0] = 0;
	if (why[0])
		say(h, "pagecliff: attach --all: candidates by scanning every process's "
		    "descriptors (no kernel events: %s)\n", why);
	else
		say(h, "pagecliff: attach --all: candidates from kernel events "
		    "(BPF, filemap:mm_filemap_add_to_page_cache per inode)\n");
	*hp = h;
	return h->skel != NULL;
}

/* Keep the PCO_HOT_TOP entries with the most pages past the threshold; how many. */
static int hot_top(struct pco_hot *h, int n)
{
	int ntop = 0;

	for (int i = 0; i < n; i++) {
		int j;

		if (h->vals[i].pages < h->min_pages)
			continue;
		if (ntop == PCO_HOT_TOP && h->vals[i].pages <= h->top[ntop - 1].val.pages)
			continue;
		j = ntop < PCO_HOT_TOP ? ntop++ : ntop - 1;
		for (; j > 0 && h->top[j - 1].val.pages < h->vals[i].pages; j--)
			h->top[j] = h->top[j - 1];
		h->top[j] = (struct hot_entry){ h->keys[i], h->vals[i] };
	}
	return ntop;
}

/* Whether @ino was looked for lately; if not, remember it is now. */
static int sought_lately(struct pco_hot *h, unsigned long long ino, double now)
{
	struct hot_sought *s;

	for (int i = 0; i < PCO_HOT_SOUGHT; i++) {
		s = &h->sought[i];
		if (s->ino != ino || !s->wait)
			continue;
		if (now - s->at < s->wait)
			return 1;
		s->at = now;
		s->wait = s->wait * 2 < PCO_HOT_SEEK_MAX ? s->wait * 2 : PCO_HOT_SEEK_MAX;
		return 0;
	}
	s = &h->sought[h->nsought++ % PCO_HOT_SOUGHT];
	*s = (struct hot_sought){ ino, now, PCO_HOT_SEEK_AGAIN };
	return 0;
}

static int add_pid(pid_t *pids, int n, int max, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (pids[i] == pid)
			return n;
	if (n < max)
		pids[n++] = pid;
	return n;
}

/* Name @pid for @ino in --stats, once per pair (of the last few hundred). */
static void said(struct pco_hot *h, unsigned long long ino, pid_t pid, const char *how)
{
	for (int i = 0; i < PCO_HOT_SAID; i++)
		if (h->said[i].ino == ino && h->said[i].pid == pid)
			return;
	h->said[h->nsaid++ % PCO_HOT_SAID] = (struct hot_said){ ino, pid };
	say(h, "pagecliff: attach --all: process %d fills the page cache with inode %llu "
	    "(%s)\n", (int)pid, ino, how);
}

/*
 * The processes holding a descriptor of one of @inos (by inode number only:
 * through overlayfs or a btrfs subvolume the device differs), into @pids.
 */
static int seek_holders(struct pco_hot *h, const unsigned long long *inos, int ninos,
			pid_t *pids, int n, int max)
{
	int npids = pco_pid_list(NULL, h->scan_pids, PCO_HOT_MAX_PIDS), self = getpid();
	char path[64];
	struct stat st;

	for (int i = 0; i < npids; i++) {
		int nfds = h->scan_pids[i] == self ? 0 :
			   pco_fds(h->scan_pids[i], h->scan_fds, PCO_HOT_MAX_FDS);

		for (int j = 0; j < nfds; j++) {
			snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)h->scan_pids[i],
				 h->scan_fds[j]);
			if (stat(path, &st) || !S_ISREG(st.st_mode))
				continue;
			for (int k = 0; k < ninos; k++) {
				if (st.st_ino != inos[k])
					continue;
				n = add_pid(pids, n, max, h->scan_pids[i]);
				said(h, inos[k], h->scan_pids[i], "its descriptors");
			}
		}
	}
	return n;
}

int pco_hot_pids(struct pco_hot *h, double now, pid_t *pids, int max)
{
	unsigned long long seek[PCO_HOT_TOP];
	int n = 0, nseek = 0, ntop;

	if (!h || !h->skel || now - h->taken < PCO_HOT_EVERY)
		return 0;
	h->taken = now;
	ntop = hot_top(h, hot_read(h));
	for (int i = 0; i < ntop; i++) {
		const struct hot_entry *e = &h->top[i];

		hot_forget(h, &e->key);	/* named again once it gains as much again */
		if (e->val.tgid) {
			n = add_pid(pids, n, max, (pid_t)e->val.tgid);
			said(h, e->key.ino, (pid_t)e->val.tgid, "kernel events");
		} else if (!sought_lately(h, e->key.ino, now)) {
			seek[nseek++] = e->key.ino;
		}
	}
	if (nseek)
		n = seek_holders(h, seek, nseek, pids, n, max);
	return n;
}

void pco_hot_free(struct pco_hot *h)
{
	if (!h)
		return;
	if (h->skel)
		hot_unload(h);
	free(h);
}
