// SPDX-License-Identifier: MIT
/*
 * doctor on overlayfs (every container): what the overlay is stacked on
 * (its upper and lower directories, from the super block options in
 * /proc/self/mountinfo, and their file systems), and which way of reading
 * leaves the page cache as it was there, tried for real: a temp file made
 * through the overlay is evicted, read with each strategy, and its pages
 * counted with mincore(2) on a mapping (which reaches the real file; the
 * overlay's own mapping stays empty).  A strategy is ok only when it acts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "pagecliff.h"
#include "doctor.h"
#include "sample.h"
#include "mount-escape.h"

#define OVL_PROBE_PAGES 256
/* A layer list in words, or a mount's options. */
#define OVL_TEXT 4096

struct ovl_layers {
	char upper[1024];
	char lower[2048];		/* ':'-separated, as mounted */
	char stack[OVL_TEXT];		/* "upper /u (ext4), lower /l1 (ext4), /l2 (xfs)" */
	char types[160];		/* "upper ext4, lower ext4, xfs" */
};

/* The value of option @key= in the comma-separated @opts, unescaped. */
static void opt_value(const char *opts, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);

	buf[0] = '\0';
	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			const char *v = p + klen + 1, *end = strchr(v, ',');
			size_t n = end ? (size_t)(end - v) : strlen(v);

			snprintf(buf, size, "%.*s", (int)n, v);
			pc_mount_unescape(buf);
			return;
		}
	}
}

/* The super block options of the mount of device @dev; 0 or -errno. */
static int ovl_sopts(dev_t dev, char *buf, size_t size)
{
	char *text, *line, *save = NULL;
	int ret = sample_slurp(NULL, "/proc/self/mountinfo", &text);

	if (ret)
		return ret;
	ret = -ENOENT;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned int ma, mi;
		const char *sep = strstr(line, " - ");
		char type[32];
		int off = 0;

		if (!sep || sscanf(line, "%*u %*u %u:%u", &ma, &mi) != 2 ||
		    ma != major(dev) || mi != minor(dev))
			continue;
		if (sscanf(sep + 3, "%31s %*s %n", type, &off) != 1 || !off)
			continue;
		snprintf(buf, size, "%s", sep + 3 + off);
		ret = 0;	/* the last mount of the device: the one on top */
	}
	free(text);
	return ret;
}

/* The type of the file system holding @dir, or "unknown". */
static const char *layer_type(const char *dir, const struct doctor_mount *m, size_t n)
{
	const struct doctor_mount *hit = NULL;
	struct stat st;

	if (!stat(dir, &st))
		hit = doctor_mount_of(m, n, major(st.st_dev), minor(st.st_dev));
	return hit ? hit->type : "unknown";
}

/* Append "@sep@what" to @buf (of @size) when it fits, cut when not. */
static void append(char *buf, size_t size, const char *sep, const char *what)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s%s", sep, what);
}

/* Each lower directory of @l into l->stack and l->types. */
static void lower_layers(struct ovl_layers *l, const struct doctor_mount *m, size_t n)
{
	char lower[sizeof(l->lower)];
	const char *sep = " ";

	snprintf(lower, sizeof(lower), "%s", l->lower);
	append(l->stack, sizeof(l->stack), "", "lower");
	append(l->types, sizeof(l->types), "", "lower");
	for (char *save = NULL, *dir = strtok_r(lower, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		const char *type = layer_type(dir, m, n);

		append(l->stack, sizeof(l->stack), sep, dir);
		append(l->stack, sizeof(l->stack), " (", type);
		append(l->stack, sizeof(l->stack), "", ")");
		append(l->types, sizeof(l->types), sep, type);
		sep = ", ";
	}
}

static int ovl_read_layers(dev_t dev, struct ovl_layers *l, char *sopts, size_t size)
{
	struct doctor_mount *m = NULL;
	size_t n = 0;
	int ret = ovl_sopts(dev, sopts, size);

	if (ret)
		return ret;
	opt_value(sopts, "upperdir", l->upper, sizeof(l->upper));
	opt_value(sopts, "lowerdir", l->lower, sizeof(l->lower));
	if (doctor_read_mounts(NULL, &m, &n))
		n = 0;
	if (l->upper[0]) {
		const char *type = layer_type(l->upper, m, n);

		snprintf(l->stack, sizeof(l->stack), "upper %s (%s), ", l->upper, type);
		snprintf(l->types, sizeof(l->types), "upper %s, ", type);
	} else {
		snprintf(l->stack, sizeof(l->stack), "no upper (read-only), ");
		snprintf(l->types, sizeof(l->types), "no upper, ");
	}
	lower_layers(l, m, n);
	free(m);
	return 0;
}

/* Pages of the first @pages of @fd resident, by mincore(2) on a mapping. */
static long resident(int fd, size_t pages)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char vec[OVL_PROBE_PAGES];
	long count = 0;
	void *map;

	map = mmap(NULL, pages * psz, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	if (mincore(map, pages * psz, vec)) {
		count = -errno;
		goto out_unmap;
	}
	for (size_t i = 0; i < pages; i++)
		count += vec[i] & 1;
out_unmap:
	munmap(map, pages * psz);
	return count;
}

/* One strategy tried on the temp file: pages cached after a cold read. */
struct ovl_try {
	enum pc_strategy want, used;
	long cold, after;		/* resident pages before and after; <0 -errno */
	uint64_t counted;		/* pc_cached_bytes() through the overlay after */
	int err;			/* the stream's error, 0 when read to the end */
	char reason[160];
};

/* Evict @fd's pages through the overlay; the pages left (or -errno). */
static long make_cold(int fd)
{
	int err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);

	return err ? -err : resident(fd, OVL_PROBE_PAGES);
}

static void try_strategy(int fd, char *buf, size_t bs, struct ovl_try *t)
{
	struct pc_opts o;
	struct pc_stream *s;
	struct pc_stats st;
	ssize_t n;

	t->cold = make_cold(fd);
	t->after = -EAGAIN;
	t->counted = SAMPLE_UNKNOWN;
	if (t->cold != 0)
		return;
	pc_opts_init(&o);
	o.strategy = t->want;
	if (lseek(fd, 0, SEEK_SET) < 0 || (t->err = pc_stream_fdopen(&s, fd, &o)))
		return;
	while ((n = pc_stream_read(s, buf, bs)) > 0)
		;
	t->err = n < 0 ? (int)n : 0;
	pc_stream_stats(s, &st);
	t->used = st.strategy;
	snprintf(t->reason, sizeof(t->reason), "%s", st.reason);
	pc_stream_close(s);
	t->after = resident(fd, OVL_PROBE_PAGES);
	if (pc_cached_bytes(fd, 0, 0, &t->counted))
		t->counted = SAMPLE_UNKNOWN;
}

static const char *pages_str(long v, char *buf, size_t size)
{
	if (v < 0)
		snprintf(buf, size, "unknown (%s)", strerror((int)-v));
	else
		snprintf(buf, size, "%ld", v);
	return buf;
}

/* The finding of one try; returns whether the strategy left no page. */
static int report_try(struct doctor *d, const char *where, const struct ovl_try *t,
		      const struct ovl_try *control, const char *stack)
{
	const char *name = pc_strategy_name(t->want);
	char id[128], cold[48], after[48], ctl[48];
	int acts = t->after == 0 && !t->err && control->after > 0;
	struct finding *f;

	snprintf(id, sizeof(id), "overlay.%.80s.%s", where, name);
	pages_str(t->cold, cold, sizeof(cold));
	pages_str(t->after, after, sizeof(after));
	pages_str(control->after, ctl, sizeof(ctl));
	if (t->cold != 0 || control->after <= 0)
		f = doctor_add(d, DOCTOR_INFO, "fs", id, "%s on overlay at %s: not measurable",
			       name, where);
	else if (acts)
		f = doctor_add(d, DOCTOR_OK, "fs", id, "%s works on overlay at %s: 0 of %d "
			       "pages left cached", name, where, OVL_PROBE_PAGES);
	else
		f = doctor_add(d, DOCTOR_WARN, "fs", id, "%s does not act on overlay at %s: "
			       "%s of %d pages left cached", name, where, after,
			       OVL_PROBE_PAGES);
	if (t->cold == 0 && control->after > 0)
		finding_action(f, "%s", acts ? "reading with it here leaves the page cache as it "
			       "was" : "its pages stay cached in the real file under the overlay: "
			       "use a strategy marked ok here");
	finding_evidence(f, "a %d-page temp file made through the overlay (%s), evicted with "
			 "fadvise DONTNEED through it (%s pages left), read to the end with "
			 "strategy %s (used: %s; %s)%s%s: %s pages cached after, by mincore on a "
			 "mapping; buffered leaves %s", OVL_PROBE_PAGES, stack, cold, name,
			 pc_strategy_name(t->used), t->reason, t->err ? ", read failed: " : "",
			 t->err ? strerror(-t->err) : "", after, ctl);
	return acts;
}

/* cachestat through the overlay against mincore on its mapping. */
static void report_counts(struct doctor *d, const char *where, const struct ovl_try *c)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t pages = sample_known(c->counted) ? c->counted / psz : SAMPLE_UNKNOWN;
	char id[128], n[32];
	struct finding *f;

	if (c->after <= 0)
		return;
	snprintf(id, sizeof(id), "overlay.%.80s.counts", where);
	count_str(pages, n, sizeof(n));
	if (sample_known(pages) && (long)pages == c->after)
		f = doctor_add(d, DOCTOR_OK, "fs", id, "page-cache counts through overlay at %s "
			       "are right", where);
	else
		f = doctor_add(d, DOCTOR_WARN, "fs", id, "page-cache counts through overlay at "
			       "%s see %s of %ld cached pages", where, n, c->after);
	finding_evidence(f, "after a buffered read of the temp file: pc_cached_bytes() through "
			 "the overlay %s pages, mincore on a mapping %ld pages", n, c->after);
	finding_action(f, "the overlay's own page cache is empty; its pages live in the "
		       "upper or lower file: count them there (or with mincore on a mapping)");
}

/* Try every strategy on @fd; what to advise into @advice. */
static void ovl_try_all(struct doctor *d, const char *where, int fd, const char *stack,
			char *advice, size_t size)
{
	static const enum pc_strategy order[] = { PC_DONTCACHE, PC_DROPBEHIND, PC_DIRECT };
	struct ovl_try control = { .want = PC_BUFFERED };
	size_t bs = 64 * 1024;
	char *buf = pc_buf_alloc(bs);
	const char *works = NULL;

	if (!buf) {
		snprintf(advice, size, "doctor ran out of memory probing the overlay");
		return;
	}
	try_strategy(fd, buf, bs, &control);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		struct ovl_try t = { .want = order[i] };

		try_strategy(fd, buf, bs, &t);
		if (report_try(d, where, &t, &control, stack) && !works)
			works = pc_strategy_name(order[i]);
	}
	report_counts(d, where, &control);
	pc_buf_free(buf, bs);
	if (works)
		snprintf(advice, size, "stream with `pagecliff cat --mode %s`: it was tried "
			 "through this overlay and left no page cached", works);
	else
		snprintf(advice, size, "no strategy was seen to evict through this overlay: read "
			 "big files at their real path in the upper or lower directory");
}

void doctor_probe_overlay(struct doctor *d, const char *where, char *advice, size_t size)
{
	char sopts[OVL_TEXT], id[96];
	struct ovl_layers l = { 0 };
	struct finding *f;
	struct stat st;
	int fd;

	advice[0] = '\0';
	snprintf(id, sizeof(id), "overlay.%.80s", where);
	if (stat(where, &st))
		return;
	if (ovl_read_layers(st.st_dev, &l, sopts, sizeof(sopts))) {
		f = doctor_add(d, DOCTOR_INFO, "fs", id, "overlay at %s: layers unknown", where);
		finding_evidence(f, "no line for its device in /proc/self/mountinfo");
	} else {
		f = doctor_add(d, DOCTOR_INFO, "fs", id, "overlay at %s is stacked on %s", where,
			       l.types);
		finding_evidence(f, "%s; from /proc/self/mountinfo: %s", l.stack, sopts);
		finding_action(f, "its files' pages live in the page cache of the real upper or "
			       "lower file, not of the overlay");
	}
	if (!S_ISDIR(st.st_mode))
		return;
	fd = doctor_temp_file(where, OVL_PROBE_PAGES * (size_t)sysconf(_SC_PAGESIZE));
	if (fd < 0) {
		snprintf(advice, size, "strategies not tried through this overlay (no temp file: "
			 "%s): give --path DIR for a directory you can write on it", strerror(-fd));
		return;
	}
	if (!fdatasync(fd))
		ovl_try_all(d, where, fd, l.types[0] ? l.types : "layers unknown", advice, size);
	close(fd);
}
