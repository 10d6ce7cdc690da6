// SPDX-License-Identifier: MIT
/*
 * doctor's live probes: RWF_DONTCACHE, O_DIRECT, io_uring and cachestat
 * tried for real (pc_probe_fd()) on a temp file in each file system, and
 * the copy self-test that times cached reads into a page-aligned buffer and
 * into one at page offset 16.  Temp files are O_TMPFILE or unlinked at
 * once; user files are only ever opened read-only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "pagecliff.h"
#include "doctor.h"
#include "sample.h"
#include "clock.h"

#define PROBE_FILE_SIZE (64 * 1024)
#define COPY_FILE_SIZE (64u << 20)
#define COPY_CHUNK (1u << 20)
/* The misaligned reads land this far into a page. */
#define COPY_OFFSET 16
#define COPY_REPS 5

static const char *yesno(int v)
{
	return v ? "yes" : "no";
}

/* The evidence line of one probe. */
static void probe_evidence(struct finding *f, const char *what, const struct pc_probe *p)
{
	char align[96];

	if (p->dioalign_known)
		snprintf(align, sizeof(align), "STATX_DIOALIGN memory %u, offset %u",
			 p->dio_mem_align, p->dio_offset_align);
	else
		snprintf(align, sizeof(align), "STATX_DIOALIGN not reported");
	finding_evidence(f, "%s: preadv2(RWF_DONTCACHE) %s; O_DIRECT %s (%s); io_uring %s%s%s; "
			 "cachestat %s", what, p->dontcache ? "accepted" :
			 strerror(-p->dontcache_err), p->direct ? "yes" :
			 strerror(-p->direct_err), align, yesno(p->uring),
			 p->uring ? "" : ": ", p->uring ? "" : strerror(-p->uring_err),
			 yesno(p->cachestat));
}

/* @advice: what to do there when a probe of the strategies found it; or "". */
static void report_probe(struct doctor *d, const char *where, const char *type,
			 const char *what, const struct pc_probe *p, const char *advice)
{
	char id[96];
	struct finding *f;

	snprintf(id, sizeof(id), "dontcache.%.80s", where);
	if (p->dontcache)
		d->facts.dontcache = 1;
	else if (d->facts.dontcache < 0 && strcmp(type, "tmpfs"))
		d->facts.dontcache = 0;
	if (p->dontcache) {
		f = doctor_add(d, DOCTOR_OK, "fs", id, "RWF_DONTCACHE works on %s at %s",
			       type, where);
		if (advice[0])	/* accepted is not acting: what was seen to act */
			finding_action(f, "%s", advice);
		else
			finding_action(f, "stream big files here with `pagecliff cat` or the "
				       "library's auto mode, or fio 3.40+ --uncached=1 (fio 3.33's "
				       "`uncached` sets 0x40, now RWF_ATOMIC: not this)");
	} else if (!strcmp(type, "tmpfs")) {
		f = doctor_add(d, DOCTOR_INFO, "fs", id, "tmpfs at %s keeps files in memory: "
			       "nothing to drop", where);
		finding_action(f, "streams from here never leave the page cache; no action");
	} else {
		f = doctor_add(d, DOCTOR_WARN, "fs", id, "RWF_DONTCACHE refused on %s at %s",
			       type, where);
		if (advice[0])
			finding_action(f, "%s", advice);
		else
			finding_action(f, "stream with drop-behind (`pagecliff cat --mode "
				       "dropbehind`; the library's auto falls back by itself)%s",
				       p->direct ? " or O_DIRECT, which works here" : "");
	}
	probe_evidence(f, what, p);
}

/* What to do when no temp file could be made in @where (-errno @err). */
static void unprobed_action(struct finding *f, const char *where, int err)
{
	if (err == -EROFS)
		finding_action(f, "%s is on a read-only file system: nothing can be created "
			       "there; give --path FILE for a file on it (opened read-only) "
			       "to probe it", where);
	else if ((err == -EACCES || err == -EPERM) && geteuid())
		finding_action(f, "run as root, or give --path DIR for a directory you can "
			       "write on this file system (doctor creates and removes a temp "
			       "file), or --path FILE for a file on it (opened read-only)");
	else
		finding_action(f, "give --path DIR for a writable directory on this file "
			       "system (doctor creates and removes a temp file), or --path "
			       "FILE for a file on it (opened read-only)");
}

static void report_unprobed(struct doctor *d, const char *where, int err)
{
	char id[96];
	struct finding *f;

	snprintf(id, sizeof(id), "dontcache.%.80s", where);
	f = doctor_add(d, DOCTOR_INFO, "fs", id, "cannot probe %s", where);
	finding_evidence(f, "cannot create a temp file in %s: %s", where, strerror(-err));
	unprobed_action(f, where, err);
}

/* Probe @path: a regular file read-only, a directory through a temp file. */
static int probe_path(const char *path, struct pc_probe *p, char *what, size_t size)
{
	struct stat st;
	int fd, err;

	if (stat(path, &st))
		return -errno;
	if (S_ISREG(st.st_mode)) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
		snprintf(what, size, "%s, opened read-only", path);
	} else {
		fd = doctor_temp_file(path, PROBE_FILE_SIZE);
		snprintf(what, size, "a %d KiB temp file in %s", PROBE_FILE_SIZE / 1024, path);
	}
	if (fd < 0)
		return fd;
	err = pc_probe_fd(fd, p);
	close(fd);
	return err;
}

/* Kernel-wide features, once, from the first successful probe. */
static void report_kernel_probe(struct doctor *d, const struct pc_probe *p,
				const char *what)
{
	struct finding *f;

	f = doctor_add(d, p->cachestat ? DOCTOR_OK : DOCTOR_INFO, "kernel", "kernel.cachestat",
		       "cachestat(2) %s", p->cachestat ? "works" : "missing");
	finding_evidence(f, "probed on %s", what);
	finding_action(f, "%s", p->cachestat ? "page-cache counts of a file are cheap" :
		       "mincore(2) on a mapping counts cached pages instead (needs 6.5+)");
	f = doctor_add(d, p->dioalign_known ? DOCTOR_OK : DOCTOR_INFO, "kernel",
		       "kernel.dioalign", "STATX_DIOALIGN %s",
		       p->dioalign_known ? "reported" : "not reported by the file systems probed");
	if (p->dioalign_known)
		finding_evidence(f, "memory alignment %u, offset alignment %u on %s",
				 p->dio_mem_align, p->dio_offset_align, what);
	else
		finding_evidence(f, "probed on %s", what);
	finding_action(f, "%s", p->dioalign_known ? "O_DIRECT alignment is asked, not guessed" :
		       "it needs Linux 6.1+ and a disk file system (tmpfs has none): give "
		       "--path DIR on one; meanwhile align O_DIRECT to the logical block size");
}

/* The mount of @path among @m, for its type; "?" when unknown. */
static const char *type_of(const char *path, const struct doctor_mount *m, size_t n)
{
	const struct doctor_mount *hit;
	struct stat st;

	if (stat(path, &st))
		return "?";
	hit = doctor_mount_of(m, n, major(st.st_dev), minor(st.st_dev));
	return hit ? hit->type : "?";
}

static int is_readonly(const struct doctor_mount *m)
{
	return !strncmp(m->opts, "ro,", 3) || !strncmp(m->opts, "ro ", 3);
}

/*
 * Whether to probe mount @i of @m when no path was given: writable, not a
 * tmpfs of the system's own (/sys, /proc, /run, /dev but /dev/shm), and the
 * first mount on its directory.
 */
static int wanted(const struct doctor_mount *m, size_t i)
{
	static const char *const sys[] = { "/sys", "/proc", "/run", "/dev/", NULL };

	if (is_readonly(&m[i]))
		return 0;
	if (!strcmp(m[i].type, "tmpfs") && strcmp(m[i].dir, "/dev/shm")) {
		for (const char *const *p = sys; *p; p++) {
			if (!strncmp(m[i].dir, *p, strlen(*p)))
				return 0;
		}
	}
	for (size_t j = 0; j < i; j++) {
		if (!strcmp(m[j].dir, m[i].dir))
			return 0;
	}
	return 1;
}

void doctor_probe_fs(struct doctor *d, const char *const *paths, size_t npaths)
{
	struct doctor_mount *m = NULL;
	struct pc_probe first = { 0 };
	char first_what[4200] = "";
	size_t n = 0, count;

	if (doctor_read_mounts(NULL, &m, &n))
		n = 0;
	count = npaths ? npaths : n;
	for (size_t i = 0; i < count; i++) {
		const char *where = npaths ? paths[i] : m[i].dir;
		const char *type = npaths ? type_of(where, m, n) : m[i].type;
		struct pc_probe p;
		char what[4200], advice[256];
		int err;

		if (!npaths && !wanted(m, i))
			continue;
		err = probe_path(where, &p, what, sizeof(what));
		if (err) {
			report_unprobed(d, where, err);
			continue;
		}
		advice[0] = '\0';
		if (!strcmp(type, "overlay"))
			doctor_probe_overlay(d, where, advice, sizeof(advice));
		report_probe(d, where, type, what, &p, advice);
		/* kernel-wide facts from a disk file system, where DIOALIGN shows */
		if (!first_what[0] || (!first.dioalign_known && p.dioalign_known)) {
			first = p;
			snprintf(first_what, sizeof(first_what), "%s", what);
		}
	}
	if (first_what[0])
		report_kernel_probe(d, &first, first_what);
	free(m);
}

/* GB/s of reading all of @fd (cached) in COPY_CHUNK reads into @buf. */
static double read_speed(int fd, char *buf)
{
	double t0 = pcc_now_sec(), t;

	for (size_t off = 0; off < COPY_FILE_SIZE; off += COPY_CHUNK) {
		if (pread(fd, buf, COPY_CHUNK, (off_t)off) != COPY_CHUNK)
			return 0;
	}
	t = pcc_now_sec() - t0;
	return t > 0 ? COPY_FILE_SIZE / t / 1e9 : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A directory for the copy test's temp file. */
static int copy_temp(const char *const *dirs, const char **ret_dir)
{
	for (const char *const *dir = dirs; *dir; dir++) {
		int fd = doctor_temp_file(*dir, COPY_FILE_SIZE);

		if (fd >= 0) {
			*ret_dir = *dir;
			return fd;
		}
	}
	return -ENOENT;
}

/* Median GB/s of COPY_REPS interleaved reads, aligned and at page offset COPY_OFFSET. */
static int time_copies(int fd, double *ret_aligned, double *ret_offset)
{
	double al[COPY_REPS], of[COPY_REPS];
	char *buf = pc_buf_alloc(COPY_CHUNK + COPY_OFFSET);

	if (!buf)
		return -ENOMEM;
	read_speed(fd, buf);	/* warm up: the cache and the buffer's pages */
	read_speed(fd, buf + COPY_OFFSET);
	for (int i = 0; i < COPY_REPS; i++) {
		al[i] = read_speed(fd, buf);
		of[i] = read_speed(fd, buf + COPY_OFFSET);
	}
	pc_buf_free(buf, COPY_CHUNK + COPY_OFFSET);
	qsort(al, COPY_REPS, sizeof(double), cmp_double);
	qsort(of, COPY_REPS, sizeof(double), cmp_double);
	*ret_aligned = al[COPY_REPS / 2];
	*ret_offset = of[COPY_REPS / 2];
	return al[0] > 0 && of[0] > 0 ? 0 : -EIO;
}

void doctor_probe_copy(struct doctor *d)
{
	const char *tmpdir = getenv("TMPDIR");
	const char *dirs[] = { tmpdir && *tmpdir ? tmpdir : "/tmp", "/tmp", "/var/tmp",
			       "/dev/shm", NULL };
	double aligned, offset, ratio;
	const char *dir = NULL;
	struct finding *f;
	int fd, err;

	fd = copy_temp(dirs, &dir);
	if (fd < 0) {
		f = doctor_add(d, DOCTOR_INFO, "copy", "copy.alignment",
			       "copy self-test skipped");
		finding_evidence(f, "no writable temp directory (TMPDIR, /tmp, /var/tmp, /dev/shm)");
		return;
	}
	err = time_copies(fd, &aligned, &offset);
	close(fd);
	if (err) {
		f = doctor_add(d, DOCTOR_INFO, "copy", "copy.alignment", "copy self-test failed");
		finding_evidence(f, "reading a cached temp file in %s: %s", dir, strerror(-err));
		return;
	}
	ratio = aligned / offset;
	f = doctor_add(d, ratio >= 1.5 ? DOCTOR_WARN : DOCTOR_OK, "copy", "copy.alignment",
		       ratio >= 1.5 ? "copy into a buffer at page offset 16 is %.1fx slower" :
		       "buffer alignment does not change copy speed (%.2fx)", ratio);
	finding_evidence(f, "cached %u MiB file in %s, %u KiB reads, median of %d: page-aligned "
			 "%.2f GB/s, page offset 16 %.2f GB/s", COPY_FILE_SIZE >> 20, dir,
			 COPY_CHUNK >> 10, COPY_REPS, aligned, offset);
	finding_action(f, "%s", ratio >= 1.5 ? "read into page-aligned buffers (pc_buf_alloc(), "
		       "posix_memalign(4096), fio --iomem=mmap or --iomem_align=4k): glibc malloc "
		       "and fio's default buffers start at page offset 16, and this gap alone "
		       "can look like the cliff" : "no action; benchmarks should still state "
		       "their buffer alignment");
}
