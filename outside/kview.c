// SPDX-License-Identifier: MIT
/*
 * The kernel's view of streams (kview.h): the BPF program's records taken
 * from its ring buffer into one kfile per process and file (kfile.c), found
 * through a hash of (pid, device, inode), and acted on at every tick.  Its
 * cost grows with the pages added by the processes followed, not with their
 * number or their descriptors: with nothing streaming a tick reads an empty
 * ring.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kfile.h"
#include "kview.h"
#include "proc.h"
#include "trace-shared.h"

#ifdef HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf-open.h"
#endif

/*
 * A process that dropped this many pages of a file itself (1 MiB) cares for
 * that file's cache: the shim in it, or its own fadvise.
 */
#define PCO_KV_SELF 256
/* Files followed at once at most (the guard on a host that reads many). */
#define PCO_KV_MAX_FILES 65536
/* The shortest and the longest wait between ticks while files stream (s). */
#define PCO_KV_FASTEST 0.002
#define PCO_KV_SLOWEST 0.1

struct pco_kview {
	void *skel;			/* struct pagecliff_bpf */
	void *rb;			/* struct ring_buffer */
	int targets_fd;
	int self_fd;			/* pages processes dropped themselves */
	int runs_fd;			/* the runs not sent yet */
	int stats_fd;
	int claim;			/* processes were running before: attach */
	uint64_t min, keep, budget;	/* pages */
	uint64_t lost;			/* records lost, as last said */
	double now;			/* the tick's, for the ring's callback */
	struct pco_kfile **kf;
	unsigned int n, cap;
	unsigned int *slots;		/* index + 1 into kf, 0: empty */
	unsigned int nslots;		/* a power of two, at least 2 * cap */
};

static void say(const struct pco_kview *kv, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (kv->stats_fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && n < (int)sizeof(line) && write(kv->stats_fd, line, n) < 0)
		return;
}

static unsigned int hash(pid_t pid, unsigned int kdev, uint64_t ino)
{
	uint64_t h = ino * 0x9e3779b97f4a7c15ull ^ ((uint64_t)kdev << 32 | (uint32_t)pid);

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (unsigned int)(h ^ h >> 32);
}

static unsigned int *slot_of(struct pco_kview *kv, pid_t pid, unsigned int kdev, uint64_t ino)
{
	unsigned int mask = kv->nslots - 1, i = hash(pid, kdev, ino) & mask;

	for (;; i = (i + 1) & mask) {
		struct pco_kfile *kf;

		if (!kv->slots[i])
			return &kv->slots[i];
		kf = kv->kf[kv->slots[i] - 1];
		if (kf->pid == pid && kf->kdev == kdev && kf->ino == ino)
			return &kv->slots[i];
	}
}

/* Put every kfile in a table of @nslots slots; 0 or -ENOMEM. */
static int rehash(struct pco_kview *kv, unsigned int nslots)
{
	unsigned int *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	free(kv->slots);
	kv->slots = slots;
	kv->nslots = nslots;
	for (unsigned int i = 0; i < kv->n; i++)
		*slot_of(kv, kv->kf[i]->pid, kv->kf[i]->kdev, kv->kf[i]->ino) = i + 1;
	return 0;
}

static struct pco_kfile *kfile_new(struct pco_kview *kv, pid_t pid, unsigned int kdev,
				   uint64_t ino)
{
	struct pco_kfile *kf;

	if (kv->n == PCO_KV_MAX_FILES)
		return NULL;	/* its pages are not followed; files end and make room */
	if (kv->n == kv->cap) {
		unsigned int cap = kv->cap ? 2 * kv->cap : 64;
		struct pco_kfile **more = realloc(kv->kf, cap * sizeof(*more));

		if (!more)
			return NULL;
		kv->kf = more;
		kv->cap = cap;
		if (rehash(kv, 4 * cap))
			return NULL;
	}
	kf = calloc(1, sizeof(*kf));
	if (!kf)
		return NULL;
	kf->pid = pid;
	kf->kdev = kdev;
	kf->dev = makedev(kdev >> 20, kdev & 0xfffff);
	kf->ino = ino;
	kf->fd = kf->fdnum = -1;
	kf->last_pos = UINT64_MAX;
	kf->seen = pco_boot_ticks();
	kv->kf[kv->n++] = kf;
	*slot_of(kv, pid, kdev, ino) = kv->n;
	return kf;
}

static int on_record(void *arg, void *data, size_t size)
{
	struct pco_kview *kv = arg;
	const struct kv_rec *r = data;
	struct pco_kfile *kf;
	unsigned int *slot;

	if (size < sizeof(*r) || r->end <= r->start)
		return 0;
	slot = slot_of(kv, (pid_t)r->tgid, r->dev, r->ino);
	kf = *slot ? kv->kf[*slot - 1] : kfile_new(kv, (pid_t)r->tgid, r->dev, r->ino);
	if (kf)		/* an ended one's too: added before it exited */
		pco_kfile_add(kf, r->start, r->end, r->run, kv->now);
	return 0;
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

static unsigned int own_pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) ? 0 : (unsigned int)st.st_ino;
}

/* Load only pc_kv_add of the project's program, attach it, open its ring. */
static int load(struct pco_kview *kv, int all)
{
	struct pagecliff_bpf *skel;
	struct bpf_program *prog;
	int err;

	libbpf_set_print(getenv("PC_BPF_DEBUG") ? loud : quiet);
	skel = pcl_bpf_open();
	if (!skel)
		return -errno;
	skel->rodata->hot_ns_ino = own_pidns();
	skel->rodata->kv_all = !!all;
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, prog == skel->progs.pc_kv_add ||
					  prog == skel->progs.pc_kv_del);
	err = pagecliff_bpf__load(skel);
	if (!err) {
		skel->links.pc_kv_add = bpf_program__attach(skel->progs.pc_kv_add);
		err = skel->links.pc_kv_add ? 0 : -errno;
	}
	if (!err) {
		skel->links.pc_kv_del = bpf_program__attach(skel->progs.pc_kv_del);
		err = skel->links.pc_kv_del ? 0 : -errno;
	}
	if (!err) {
		kv->rb = ring_buffer__new(bpf_map__fd(skel->maps.pc_kv_ring), on_record, kv, NULL);
		err = kv->rb ? 0 : -errno;
	}
	if (err) {
		pagecliff_bpf__destroy(skel);
		return err;
	}
	kv->skel = skel;
	kv->targets_fd = bpf_map__fd(skel->maps.pc_kv_targets);
	kv->self_fd = bpf_map__fd(skel->maps.pc_kv_self);
	kv->runs_fd = bpf_map__fd(skel->maps.pc_kv_runs);
	return 0;
}

static void unload(struct pco_kview *kv)
{
	if (kv->rb)
		ring_buffer__free(kv->rb);
	pagecliff_bpf__destroy(kv->skel);
}

int pco_kview_follow(struct pco_kview *kv, pid_t pid)
{
	unsigned int key = (unsigned int)pid;
	unsigned char one = 1;

	return bpf_map_update_elem(kv->targets_fd, &key, &one, BPF_ANY) ? -errno : 0;
}

/*
 * What a thread of @pid added last and had not sent yet (less than a
 * chunk a run), into its files; its entries out of the map.
 */
static void flush_runs(struct pco_kview *kv, pid_t pid)
{
	struct kv_key key, next, *prev = NULL;
	struct kv_run run;

	while (!bpf_map_get_next_key(kv->runs_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(kv->runs_fd, &key, &run) || run.tgid != (unsigned int)pid)
			continue;
		if (run.end > run.start) {
			unsigned int *slot = slot_of(kv, pid, key.dev, key.ino);

			if (*slot)
				pco_kfile_add(kv->kf[*slot - 1], run.start, run.end,
					      run.end - run.run_start, kv->now);
		}
		bpf_map_delete_elem(kv->runs_fd, &key);
	}
}

/* @pid is gone: out of the targets (its number may be reused), its last pages in. */
static void unfollow(struct pco_kview *kv, pid_t pid, int acting)
{
	unsigned int key = (unsigned int)pid;

	bpf_map_delete_elem(kv->targets_fd, &key);
	if (acting)
		flush_runs(kv, pid);
}

/* Pages @kf's process dropped of its file itself (kview.h), and forget them. */
static uint64_t self_dropped(struct pco_kview *kv, const struct pco_kfile *kf, int forget)
{
	struct kv_key k = { .ino = kf->ino, .dev = kf->kdev, .tid = (unsigned int)kf->pid };
	unsigned long long pages = 0;

	bpf_map_lookup_elem(kv->self_fd, &k, &pages);
	if (forget)
		bpf_map_delete_elem(kv->self_fd, &k);
	return pages;
}

int pco_kview_fd(const struct pco_kview *kv)
{
	return kv->rb ? ring_buffer__epoll_fd(kv->rb) : -1;
}

static void consume(struct pco_kview *kv)
{
	struct pagecliff_bpf *skel = kv->skel;
	uint64_t lost;

	ring_buffer__consume(kv->rb);
	lost = __atomic_load_n(&skel->bss->kv_lost, __ATOMIC_RELAXED);
	if (lost != kv->lost)
		say(kv, "pagecliff: the kernel's view lost %llu records (its ring was full): "
		    "some pages added are not followed\n", (unsigned long long)(lost - kv->lost));
	kv->lost = lost;
}
#else
static int load(struct pco_kview *kv, int all)
{
	return -ENOTSUP;
}

static void unload(struct pco_kview *kv)
{
}

int pco_kview_follow(struct pco_kview *kv, pid_t pid)
{
	return -ENOTSUP;
}

int pco_kview_fd(const struct pco_kview *kv)
{
	return -1;
}

static void consume(struct pco_kview *kv)
{
}

static uint64_t self_dropped(struct pco_kview *kv, const struct pco_kfile *kf, int forget)
{
	return 0;
}

static void unfollow(struct pco_kview *kv, pid_t pid, int acting)
{
}
#endif

static void why_not(int err, char *why, size_t size)
{
	if (err == -ENOTSUP)
		snprintf(why, size, "built without BPF support");
	else if (err == -EPERM || err == -EACCES)
		snprintf(why, size, "refused by the kernel: needs root or CAP_BPF and CAP_PERFMON");
	else if (err == -ENOENT || err == -ESRCH || err == -EINVAL)
		snprintf(why, size, "no filemap tracepoint or BTF in this kernel: %s",
			 strerror(-err));
	else
		snprintf(why, size, "the BPF program did not load: %s", strerror(-err));
}

int pco_kview_open(const struct pco_opts *o, struct pco_kview **ret_kv, char *why, size_t size)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct pco_kview *kv;
	int err;

	*ret_kv = NULL;
	if (getenv("PAGECLIFF_NO_BPF") && *getenv("PAGECLIFF_NO_BPF")) {
		snprintf(why, size, "PAGECLIFF_NO_BPF is set");
		return -ENOTSUP;
	}
	kv = calloc(1, sizeof(*kv));
	if (!kv || rehash(kv, 256)) {
		free(kv);
		snprintf(why, size, "out of memory");
		return -ENOMEM;
	}
	kv->stats_fd = o->stats_fd;
	kv->min = o->min_size / page;
	kv->budget = o->budget / page;
	kv->keep = kv->budget / 2;
	kv->claim = !o->own_children;
	err = load(kv, o->all);
	if (err) {
		why_not(err, why, size);
		free(kv->slots);
		free(kv);
		return err;
	}
	*ret_kv = kv;
	return 0;
}

/*
 * A process followed while it ran (attach) read before: what it read from
 * storage (its read_bytes) and the kernel's view has not seen it add may be
 * claimed right below where @kf's file was first seen growing (a whole-file
 * copy_file_range or sendfile caught half-way).  Conservative: all it was
 * seen adding counts, and only whole cached MiB right below are taken.
 */
static void claim(struct pco_kview *kv, struct pco_kfile *kf)
{
	uint64_t bytes, seen = 0, moved;

	/*
	 * A writer's by the bytes it dirtied, a reader's by its storage reads:
	 * both counted as they happen, inside one long call too (rchar and
	 * wchar are counted when the call returns).
	 */
	if (kf->claimed || pco_io_field(kf->pid, kf->writer ? "write_bytes" : "read_bytes", &bytes))
		return;
	for (unsigned int i = 0; i < kv->n; i++)
		if (kv->kf[i]->pid == kf->pid && kv->kf[i]->writer == kf->writer)
			seen += kv->kf[i]->added;
	moved = bytes / (uint64_t)sysconf(_SC_PAGESIZE);
	if (moved > seen)
		pco_kfile_claim(kf, moved - seen);
}

/* Seconds until @kf's growth could take it past the budget. */
static double interval(const struct pco_kview *kv, const struct pco_kfile *kf, double now)
{
	double room = (double)(kv->budget - kv->keep) / 2, iv;

	if (kf->ended)
		return kf->n ? 0.01 : 1e9;
	if (kf->rate <= 0)
		return kf->fresh ? 0.02 : 1e9;	/* new: its rate from a look soon */
	if (now - kf->last_add > 1.0)
		return 1e9;
	if (kf->state == PCO_KF_CANDIDATE && kf->seq < kv->min)
		room += (double)(kv->min - kf->seq);
	iv = room / kf->rate;
	return iv < PCO_KV_FASTEST ? PCO_KV_FASTEST : iv > PCO_KV_SLOWEST ? PCO_KV_SLOWEST : iv;
}

/* Release the files that are done (their --stats lines), keep the rest. */
static void compact(struct pco_kview *kv, double now)
{
	unsigned int keep = 0;

	for (unsigned int i = 0; i < kv->n; i++) {
		if (pco_kfile_done(kv->kf[i], now)) {
			self_dropped(kv, kv->kf[i], 1);
			pco_kfile_release(kv->kf[i], kv->stats_fd);
			free(kv->kf[i]);
			continue;
		}
		kv->kf[keep++] = kv->kf[i];
	}
	if (keep == kv->n)
		return;
	kv->n = keep;
	memset(kv->slots, 0, kv->nslots * sizeof(*kv->slots));
	for (unsigned int i = 0; i < kv->n; i++)
		*slot_of(kv, kv->kf[i]->pid, kv->kf[i]->kdev, kv->kf[i]->ino) = i + 1;
}

double pco_kview_tick(struct pco_kview *kv, const struct pco_kview_env *env, double now)
{
	double next = 1e9;

	kv->now = now;
	consume(kv);
	for (unsigned int i = 0; i < kv->n; i++) {
		struct pco_kfile *kf = kv->kf[i];
		enum pco_kf_state was;
		double iv;

		if (!kf->self && kf->seq >= kv->min && self_dropped(kv, kf, 0) >= PCO_KV_SELF)
			kf->self = 1;
		was = kf->state;
		pco_kfile_act(kf, env, now, kv->keep, kv->min);
		if (kv->claim && was != PCO_KF_ACTING && kf->state == PCO_KF_ACTING)
			claim(kv, kf);
		iv = interval(kv, kf, now);
		if (iv < next)
			next = iv;
	}
	compact(kv, now);
	return next;
}

void pco_kview_defer(struct pco_kview *kv, pid_t pid, unsigned int dev, uint64_t ino,
		     int writer)
{
	unsigned int kdev = major(dev) << 20 | minor(dev), *slot = slot_of(kv, pid, kdev, ino);
	struct pco_kfile *kf = *slot ? kv->kf[*slot - 1] : kfile_new(kv, pid, kdev, ino);

	if (!kf)
		return;
	kf->deferred = 1;
	kf->writer |= writer;		/* what it added is no read: claim() */
	if (kf->last_add < kv->now)
		kf->last_add = kv->now;		/* not forgotten while its owner reads */
}

int pco_kview_take(struct pco_kview *kv, pid_t pid, unsigned int dev, uint64_t ino)
{
	unsigned int kdev = major(dev) << 20 | minor(dev), *slot = slot_of(kv, pid, kdev, ino);
	struct pco_kfile *kf = *slot ? kv->kf[*slot - 1] : NULL;

	if (!kf || kf->state != PCO_KF_ACTING || kf->self || kf->working)
		return 0;
	kf->took = 1;
	return 1;
}

void pco_kview_gone(struct pco_kview *kv, pid_t pid)
{
	int acting = 0;

	for (unsigned int i = 0; i < kv->n; i++) {
		if (kv->kf[i]->pid != pid)
			continue;
		kv->kf[i]->ended = 1;
		acting |= kv->kf[i]->state == PCO_KF_ACTING;
	}
	unfollow(kv, pid, acting);
}

int pco_kview_busy(const struct pco_kview *kv)
{
	for (unsigned int i = 0; i < kv->n; i++)
		if (kv->kf[i]->ended && kv->kf[i]->n && kv->kf[i]->state == PCO_KF_ACTING)
			return 1;
	return 0;
}

void pco_kview_free(struct pco_kview *kv, const struct pco_kview_env *env)
{
	double now;

	if (!kv)
		return;
	now = kv->now + PCO_KV_SLOWEST;
	kv->now = now;
	consume(kv);
	for (unsigned int i = 0; i < kv->n; i++) {
		kv->kf[i]->ended = 1;
		pco_kfile_act(kv->kf[i], env, now, kv->keep, kv->min);
		pco_kfile_release(kv->kf[i], kv->stats_fd);
		free(kv->kf[i]);
	}
	unload(kv);
	free(kv->kf);
	free(kv->slots);
	free(kv);
}
