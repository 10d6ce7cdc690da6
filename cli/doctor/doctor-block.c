// SPDX-License-Identifier: MIT
/*
 * doctor's mounts and block devices: which file systems hold the data, on
 * which device, with which queue settings, and whether the file system type
 * caches in large folios.  Reads /proc/self/mountinfo and /sys/dev/block
 * through sample.c under a root prefix.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "doctor.h"
#include "sample.h"
#include "mount-escape.h"

/* File systems that hold files worth streaming. */
static const char *const data_fs[] = {
	"xfs", "ext4", "ext3", "ext2", "btrfs", "f2fs", "bcachefs", "nfs",
	"nfs4", "cifs", "smb3", "ceph", "fuse", "fuseblk", "zfs", "tmpfs",
	"virtiofs", "9p", "overlay", NULL,
};

static int is_data_fs(const char *type)
{
	for (const char *const *t = data_fs; *t; t++) {
		if (!strcmp(*t, type) || (!strncmp(type, "fuse.", 5) && !strcmp(*t, "fuse")))
			return 1;
	}
	return 0;
}

/* Parse one mountinfo line; 0 or -EINVAL. */
static int parse_mountinfo(const char *line, struct doctor_mount *m)
{
	char dir[512], opts[256], type[32], source[256], sopts[256];
	const char *sep = strstr(line, " - ");

	if (!sep || sscanf(line, "%*u %*u %u:%u %*s %511s %255s", &m->major,
			   &m->minor, dir, opts) != 4)
		return -EINVAL;
	if (sscanf(sep + 3, "%31s %255s %255s", type, source, sopts) != 3)
		return -EINVAL;
	pc_mount_unescape(dir);
	snprintf(m->dir, sizeof(m->dir), "%s", dir);
	snprintf(m->type, sizeof(m->type), "%s", type);
	snprintf(m->source, sizeof(m->source), "%s", source);
	snprintf(m->opts, sizeof(m->opts), "%.127s %.127s", opts, sopts);
	return 0;
}

const struct doctor_mount *doctor_mount_of(const struct doctor_mount *m,
					   size_t n, unsigned int major,
					   unsigned int minor)
{
	for (size_t i = n; i-- > 0;) {
		if (m[i].major == major && m[i].minor == minor)
			return &m[i];
	}
	return NULL;
}

/* Append @m to *@arr unless its device is there already (the first wins). */
static int add_mount(struct doctor_mount **arr, size_t *n,
		     const struct doctor_mount *m)
{
	struct doctor_mount *na;

	if (doctor_mount_of(*arr, *n, m->major, m->minor))
		return 0;
	na = realloc(*arr, (*n + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	na[(*n)++] = *m;
	*arr = na;
	return 0;
}

int doctor_read_mounts(const char *root, struct doctor_mount **ret,
		       size_t *ret_count)
{
	struct doctor_mount *arr = NULL;
	char *text, *line, *save = NULL;
	size_t n = 0;
	int err;

	err = sample_slurp(root, "/proc/self/mountinfo", &text);
	if (err)
		return err;
	for (line = strtok_r(text, "\n", &save); line && !err;
	     line = strtok_r(NULL, "\n", &save)) {
		struct doctor_mount m;

		if (!parse_mountinfo(line, &m) && is_data_fs(m.type))
			err = add_mount(&arr, &n, &m);
	}
	free(text);
	if (err) {
		free(arr);
		return err;
	}
	*ret = arr;
	*ret_count = n;
	return 0;
}

/* The queue and device facts of one block device. */
struct blockdev {
	char name[64];
	char dir[PATH_MAX];		/* /sys/... of the whole disk, under root */
	char model[128];
	char sched[64];
	char backing[256];		/* loop devices */
	uint64_t rotational, read_ahead_kb, max_sectors_kb, nr_requests, lbs;
	uint64_t max_segments;
	long long numa_node;
};

/* The scheduler in use: the word in brackets of queue/scheduler. */
static void pick_bracketed(const char *list, char *buf, size_t size)
{
	const char *a = strchr(list, '['), *b = a ? strchr(a, ']') : NULL;

	if (a && b && (size_t)(b - a - 1) < size)
		snprintf(buf, size, "%.*s", (int)(b - a - 1), a + 1);
	else
		snprintf(buf, size, "%.60s", list[0] ? list : "unknown");
}

static uint64_t q_u64(const struct blockdev *b, const char *file)
{
	char rel[PATH_MAX + 64];
	uint64_t v;

	snprintf(rel, sizeof(rel), "/queue/%s", file);
	return sample_read_u64(b->dir, rel, &v) ? SAMPLE_UNKNOWN : v;
}

/* Resolve /sys/dev/block/MAJ:MIN under @root to the whole disk's directory. */
static int blockdev_find(const char *root, unsigned int major, unsigned int minor,
			 struct blockdev *b)
{
	char rel[64], link[PATH_MAX], real[PATH_MAX], part[PATH_MAX + 16];
	struct stat st;
	char *slash;

	snprintf(rel, sizeof(rel), "/sys/dev/block/%u:%u", major, minor);
	if (sample_path(root, rel, link, sizeof(link)) || !realpath(link, real))
		return -ENOENT;
	snprintf(part, sizeof(part), "%s/partition", real);
	if (!stat(part, &st)) {
		slash = strrchr(real, '/');
		if (slash)
			*slash = '\0';
	}
	slash = strrchr(real, '/');
	snprintf(b->name, sizeof(b->name), "%.63s", slash ? slash + 1 : real);
	snprintf(b->dir, sizeof(b->dir), "%s", real);
	return 0;
}

static void blockdev_read(struct blockdev *b)
{
	char buf[256];

	if (sample_read_text(b->dir, "/device/model", b->model, sizeof(b->model)) ||
	    !b->model[0])
		snprintf(b->model, sizeof(b->model), "unknown");
	if (!sample_read_text(b->dir, "/queue/scheduler", buf, sizeof(buf)))
		pick_bracketed(buf, b->sched, sizeof(b->sched));
	else
		snprintf(b->sched, sizeof(b->sched), "unknown");
	if (sample_read_text(b->dir, "/loop/backing_file", b->backing, sizeof(b->backing)))
		b->backing[0] = '\0';
	b->rotational = q_u64(b, "rotational");
	b->read_ahead_kb = q_u64(b, "read_ahead_kb");
	b->max_sectors_kb = q_u64(b, "max_sectors_kb");
	b->nr_requests = q_u64(b, "nr_requests");
	b->max_segments = q_u64(b, "max_segments");
	b->lbs = q_u64(b, "logical_block_size");
	b->numa_node = -1;
	if (!sample_read_text(b->dir, "/device/numa_node", buf, sizeof(buf)))
		b->numa_node = strtoll(buf, NULL, 10);
}

/*
 * The largest O_DIRECT request from a buffer in 4 KiB pages, in KiB: one
 * segment a page, max_segments of them (the VM's virtio disk: 254, 1016 KiB
 * against max_sectors_kb 4096).  Unknown when either is.
 */
static uint64_t small_page_request_kb(const struct blockdev *b)
{
	uint64_t kb;

	if (!sample_known(b->max_segments) || !sample_known(b->max_sectors_kb))
		return SAMPLE_UNKNOWN;
	kb = b->max_segments * 4;
	return kb < b->max_sectors_kb ? kb : b->max_sectors_kb;
}

/* The smallest of a known @v and *@min. */
static void keep_min(uint64_t *min, uint64_t v)
{
	if (sample_known(v) && (!sample_known(*min) || v < *min))
		*min = v;
}

/* A data disk, for the answer: count, names, the smallest request sizes. */
static void note_disk(struct doctor_facts *f, const struct blockdev *b, uint64_t small_kb)
{
	if (!f->ndisks++)
		snprintf(f->disk_first, sizeof(f->disk_first), "%.31s", b->name);
	snprintf(f->disk_last, sizeof(f->disk_last), "%.31s", b->name);
	keep_min(&f->max_sectors_kb, b->max_sectors_kb);
	keep_min(&f->small_kb, small_kb);
	keep_min(&f->read_ahead_kb, b->read_ahead_kb);
}

static void report_blockdev(struct doctor *d, const struct doctor_mount *m,
			    const struct blockdev *b)
{
	char ra[24], ms[24], nr[24], lbs[24], node[24], seg[24], split[256], id[96];
	uint64_t small_kb = small_page_request_kb(b);
	struct finding *f;

	note_disk(&d->facts, b, small_kb);
	snprintf(id, sizeof(id), "block.%s", b->name);
	f = doctor_add(d, DOCTOR_INFO, "block", id, "%s (%s) holds %s %s%s%s", b->name,
		       b->rotational == 1 ? "rotational" : b->rotational == 0 ?
		       "not rotational" : "rotational unknown", m->type, m->dir,
		       b->backing[0] ? ", a loop device over " : "", b->backing);
	finding_evidence(f, "model %s, scheduler %s, read_ahead_kb %s, max_sectors_kb %s, "
			 "max_segments %s, nr_requests %s, logical block %s, NUMA node %s; "
			 "%s options %s", b->model, b->sched,
			 count_str(b->read_ahead_kb, ra, sizeof(ra)),
			 count_str(b->max_sectors_kb, ms, sizeof(ms)),
			 count_str(b->max_segments, seg, sizeof(seg)),
			 count_str(b->nr_requests, nr, sizeof(nr)), count_str(b->lbs, lbs, sizeof(lbs)),
			 count_str(b->numa_node < 0 ? SAMPLE_UNKNOWN : (uint64_t)b->numa_node,
			     node, sizeof(node)), m->source, m->opts);
	split[0] = '\0';
	if (sample_known(small_kb))
		snprintf(split, sizeof(split), "; from a buffer in 4 KiB pages a request "
			 "reaches it in pieces of at most %llu KiB (max_segments x 4 KiB), from "
			 "huge pages whole (pagecliff's direct reads of files from 256 MiB "
			 "ask for them)",
			 (unsigned long long)small_kb);
	finding_action(f, "O_DIRECT reads here must be aligned to the logical block "
		       "(%s bytes, or STATX_DIOALIGN); requests of max_sectors_kb (%s KiB) "
		       "or more and several in flight reach device speed%s", lbs, ms, split);
	if (!sample_known(b->read_ahead_kb) || b->read_ahead_kb >= 128)
		return;
	snprintf(id, sizeof(id), "block.%s.read_ahead", b->name);
	f = doctor_add(d, DOCTOR_WARN, "block", id,
		       "read-ahead of %s is only %s KiB", b->name, ra);
	finding_evidence(f, "%s/queue/read_ahead_kb = %s", b->dir, ra);
	finding_action(f, "buffered streams depend on read-ahead (turning it off made the "
		       "report's reads about 90%% slower): echo 1024 > "
		       "/sys/block/%s/queue/read_ahead_kb (root)", b->name);
}

/*
 * What the kernel brought to a file system type, by version (6 * 1000 + 16).
 * RWF_DONTCACHE: XFS 6.16 (switched on in the 6.15 merge window and off again
 * before 6.15 shipped), ext4 6.17, the NFS client 6.18, btrfs never
 * (docs/MACHINES.md).
 */
static const struct fs_known {
	const char *type, *since;
	int lf_since;			/* large folios; 0: not by version */
	int level;
	int dontcache_since;		/* RWF_DONTCACHE opted in; 0 never */
} fs_known[] = {
	{ "xfs", "Linux 5.18", 5018, DOCTOR_OK, 6016 },
	{ "ext4", "Linux 6.16", 6016, DOCTOR_OK, 6017 },
	{ "bcachefs", "its first release", 0, DOCTOR_OK, 0 },
	{ "btrfs", "Linux 6.17, experimental builds only", 0, DOCTOR_INFO, 0 },
	{ "tmpfs", "the huge= mount option", 0, DOCTOR_INFO, 0 },
	{ "nfs", "", 0, -1, 6018 },
	{ "nfs4", "", 0, -1, 6018 },
};

/* The file system type @type for the answer. */
static void note_fs(struct doctor_facts *f, const char *type, const struct fs_known *k, int lf)
{
	if (f->nfs >= DOCTOR_MAX_FS)
		return;
	snprintf(f->fs[f->nfs].type, sizeof(f->fs[0].type), "%.15s", type);
	f->fs[f->nfs].large_folios = lf;
	f->fs[f->nfs].lf_since = k ? k->lf_since : 0;
	f->fs[f->nfs].dontcache_since = k ? k->dontcache_since : 0;
	f->nfs++;
}

/* Large folios in the page cache, per file system type, on this kernel. */
static void report_large_folios(struct doctor *d, const char *type)
{
	const struct fs_known *k = NULL;
	int kver = d->facts.kver;
	char id[96];
	struct finding *f;

	snprintf(id, sizeof(id), "fs.large_folios.%s", type);
	for (size_t i = 0; i < sizeof(fs_known) / sizeof(fs_known[0]); i++)
		if (!strcmp(fs_known[i].type, type))
			k = &fs_known[i];
	if (k && k->level >= 0 && k->lf_since && kver && kver < k->lf_since) {
		note_fs(&d->facts, type, k, 0);
		f = doctor_add(d, DOCTOR_WARN, "fs", id, "%s caches files in 4 KiB pages on "
			       "Linux %s: large folios came in %s", type, d->facts.release,
			       k->since);
		finding_evidence(f, "file system type %s is mounted here; kernel %s", type,
				 d->facts.release);
		finding_action(f, "every page is reclaimed and taken off the page-cache lock one "
			       "by one: the cost the report's readers contended on; a kernel from "
			       "%s on cuts it", k->since);
		return;
	}
	if (k && k->level >= 0) {
		note_fs(&d->facts, type, k, k->lf_since ? 1 : -1);
		f = doctor_add(d, (enum doctor_level)k->level, "fs", id,
			       "%s caches files in large folios since %s", type, k->since);
		finding_evidence(f, "file system type %s is mounted here", type);
		finding_action(f, "large folios cut the per-page cost of reclaim and of the "
			       "page-cache lock that the report's readers contended on");
		return;
	}
	note_fs(&d->facts, type, k, -1);
	f = doctor_add(d, DOCTOR_INFO, "fs", id,
		       "%s: large-folio support unknown to pagecliff", type);
	finding_evidence(f, "file system type %s is mounted here", type);
	finding_action(f, "without large folios every 4 KiB page is reclaimed one by one; "
		       "prefer DONTCACHE or O_DIRECT for big streams on it");
}

/* Each file system type once. */
static void report_types(struct doctor *d, const struct doctor_mount *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < i && strcmp(m[j].type, m[i].type); j++)
			;
		if (j == i)
			report_large_folios(d, m[i].type);
	}
}

/* Keep only the mounts of @paths (stat'ed live), in @paths' order. */
static size_t select_paths(const struct doctor_mount *all, size_t n,
			   const char *const *paths, size_t npaths,
			   struct doctor_mount *out)
{
	size_t k = 0;

	for (size_t i = 0; i < npaths; i++) {
		const struct doctor_mount *m;
		struct stat st;

		if (stat(paths[i], &st))
			continue;
		m = doctor_mount_of(all, n, major(st.st_dev), minor(st.st_dev));
		if (m && !doctor_mount_of(out, k, m->major, m->minor))
			out[k++] = *m;
	}
	return k;
}

void doctor_check_block(struct doctor *d, const char *const *paths, size_t npaths)
{
	struct doctor_mount *all, *sel;
	size_t n, k;
	struct finding *f;
	int err;

	err = doctor_read_mounts(d->root, &all, &n);
	if (err) {
		f = doctor_add(d, DOCTOR_INFO, "block", "block.mounts",
			       "cannot read the mount table");
		finding_evidence(f, "/proc/self/mountinfo: %s", strerror(-err));
		return;
	}
	sel = all;
	k = n;
	if (npaths) {
		sel = calloc(npaths, sizeof(*sel));
		k = sel ? select_paths(all, n, paths, npaths, sel) : 0;
	}
	for (size_t i = 0; i < k; i++) {
		struct blockdev b;

		memset(&b, 0, sizeof(b));
		if (!sel[i].major || blockdev_find(d->root, sel[i].major, sel[i].minor, &b))
			continue;
		blockdev_read(&b);
		report_blockdev(d, &sel[i], &b);
	}
	report_types(d, sel, k);
	if (sel != all)
		free(sel);
	free(all);
}
