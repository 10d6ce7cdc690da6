// SPDX-License-Identifier: MIT
/*
 * The parsers of /proc and of memory.stat: each takes a file's text, so tests
 * and the fuzzer run them on fixtures, and fills a struct of sample.h.  What
 * the text does not hold stays SAMPLE_UNKNOWN or NAN, never 0.  Also the small
 * scanners the other sample-*.c files share (sample-internal.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sample.h"
#include "sample-internal.h"
#include "procstat.h"

/* A key of a "key value" file and where its value goes in a struct. */
struct sample_key {
	const char *key;
	size_t offset;
};

#define KEY(type, name, field) { name, offsetof(type, field) }
/* Keys named as the field they fill */
#define MEM(name, field) KEY(struct sample_meminfo, name, field)
#define VM(field) KEY(struct sample_vmstat, #field, field)
#define CG(field) KEY(struct sample_cgroup, #field, field)

static const struct sample_key meminfo_keys[] = {
	MEM("MemTotal", total), MEM("MemFree", free), MEM("MemAvailable", available),
	MEM("Buffers", buffers), MEM("Cached", cached), MEM("Shmem", shmem),
	MEM("Active(file)", active_file), MEM("Inactive(file)", inactive_file),
	MEM("Active(anon)", active_anon), MEM("Inactive(anon)", inactive_anon),
	MEM("Dirty", dirty), MEM("Writeback", writeback),
	{ NULL, 0 },
};

static const struct sample_key vmstat_keys[] = {
	VM(pgscan_direct), VM(pgsteal_direct), VM(pgscan_kswapd), VM(pgsteal_kswapd),
	VM(pgscan_file), VM(pgsteal_file), VM(pgscan_anon), VM(pgsteal_anon),
	VM(pgpgin), VM(pgpgout), VM(workingset_refault_file), VM(nr_dirty),
	VM(nr_writeback),
	{ NULL, 0 },
};

static const struct sample_key memcg_v1_keys[] = {
	KEY(struct sample_cgroup, "cache", file), CG(active_file), CG(inactive_file),
	CG(dirty), CG(writeback), CG(pgscan), CG(pgsteal), CG(pgpgout),
	KEY(struct sample_cgroup, "hierarchical_memory_limit", limit_eff),
	{ NULL, 0 },
};

static const struct sample_key memcg_v2_keys[] = {
	CG(file), CG(active_file), CG(inactive_file),
	KEY(struct sample_cgroup, "file_dirty", dirty),
	KEY(struct sample_cgroup, "file_writeback", writeback),
	CG(pgscan), CG(pgsteal), CG(pgscan_direct), CG(pgscan_kswapd),
	CG(pgsteal_direct), CG(pgsteal_kswapd),
	{ NULL, 0 },
};

static uint64_t *key_slot(void *base, const struct sample_key *keys,
			  const char *key, size_t len)
{
	for (const struct sample_key *k = keys; k->key; k++) {
		if (strlen(k->key) == len && !memcmp(k->key, key, len))
			return (uint64_t *)((char *)base + k->offset);
	}
	return NULL;
}

/* The line after @line, NULL at the end of the text. */
const char *sample_next_line(const char *line)
{
	const char *end = strchr(line, '\n');

	return end ? end + 1 : NULL;
}

/* Parse an unsigned decimal at *p, skipping blanks; 0 or -EINVAL. */
int sample_scan_u64(const char **p, uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		unsigned int d = (unsigned int)(*s++ - '0');

		if (v > (UINT64_MAX - 1 - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*p = s;
	*ret = v;
	return 0;
}

/*
 * Feed every "KEY[:] VALUE [kB]" line of @text whose key starts with
 * @prefix (then stripped) to @keys.  Lines that do not parse, and keys not
 * in the table, are skipped: newer kernels add fields.  Returns how many
 * values were stored.
 */
static int parse_kv(const char *text, const struct sample_key *keys,
		    void *base, const char *prefix)
{
	size_t plen = strlen(prefix);
	int stored = 0;

	for (const char *line = text; line && *line; line = sample_next_line(line)) {
		const char *key = line, *p = line;
		uint64_t *slot, v;
		size_t klen;

		while (*p && *p != ' ' && *p != '\t' && *p != ':' && *p != '\n')
			p++;
		klen = (size_t)(p - key);
		if (*p == ':')
			p++;
		if (klen > plen && !strncmp(key, prefix, plen) &&
		    (slot = key_slot(base, keys, key + plen, klen - plen)) &&
		    !sample_scan_u64(&p, &v)) {
			while (*p == ' ')
				p++;
			if (!strncmp(p, "kB", 2))
				v = v > UINT64_MAX / 1024 ? SAMPLE_UNKNOWN : v * 1024;
			*slot = v;
			stored++;
		}
	}
	return stored;
}

int sample_parse_meminfo(const char *text, struct sample_meminfo *ret)
{
	memset(ret, 0xff, sizeof(*ret));
	return parse_kv(text, meminfo_keys, ret, "") ? 0 : -ENODATA;
}

/* Sum every allocstall_<zone> line into *ret (unknown when none). */
static void sum_allocstall(const char *text, uint64_t *ret)
{
	static const char key[] = "allocstall_";

	*ret = SAMPLE_UNKNOWN;
	for (const char *p = text; p && (p = strstr(p, key)); p++) {
		uint64_t v;
		const char *q;

		if (p != text && p[-1] != '\n')
			continue;
		q = p + strlen(key);
		while (*q && *q != ' ' && *q != '\n')
			q++;
		if (sample_scan_u64(&q, &v))
			continue;
		*ret = (sample_known(*ret) ? *ret : 0) + v;
	}
}

int sample_parse_vmstat(const char *text, struct sample_vmstat *ret)
{
	int n;

	memset(ret, 0xff, sizeof(*ret));
	n = parse_kv(text, vmstat_keys, ret, "");
	sum_allocstall(text, &ret->allocstall);
	return n || sample_known(ret->allocstall) ? 0 : -ENODATA;
}

void sample_cgroup_unknown(struct sample_cgroup *ret)
{
	memset(ret, 0xff, sizeof(*ret));
	ret->version = 0;
}

int sample_parse_memcg_stat(const char *text, int version,
			    struct sample_cgroup *ret)
{
	int n;

	sample_cgroup_unknown(ret);
	if (version == 1) {
		/* total_* are hierarchical: prefer them over this group's own */
		n = parse_kv(text, memcg_v1_keys, ret, "");
		n += parse_kv(text, memcg_v1_keys, ret, "total_");
	} else if (version == 2) {
		n = parse_kv(text, memcg_v2_keys, ret, "");
	} else {
		return -EINVAL;
	}
	if (!n)
		return -ENODATA;
	ret->version = version;
	return 0;
}

/* One "some|full avg10=.. avg60=.. avg300=.. total=.." line. */
static int parse_psi_line(const char *line, double *avg10, double *avg60,
			  uint64_t *total)
{
	double a10, a60, a300;
	unsigned long long t;

	if (sscanf(line, "%*s avg10=%lf avg60=%lf avg300=%lf total=%llu",
		   &a10, &a60, &a300, &t) != 4)
		return -EINVAL;
	*avg10 = a10;
	*avg60 = a60;
	*total = t;
	return 0;
}

int sample_parse_psi(const char *text, struct sample_psi *ret)
{
	int n = 0;

	ret->some_avg10 = ret->some_avg60 = NAN;
	ret->full_avg10 = ret->full_avg60 = NAN;
	ret->some_total = ret->full_total = SAMPLE_UNKNOWN;
	for (const char *line = text; line && *line; line = sample_next_line(line)) {

		if (!strncmp(line, "some ", 5))
			n += !parse_psi_line(line, &ret->some_avg10,
					     &ret->some_avg60, &ret->some_total);
		else if (!strncmp(line, "full ", 5))
			n += !parse_psi_line(line, &ret->full_avg10,
					     &ret->full_avg60, &ret->full_total);
	}
	return n ? 0 : -ENODATA;
}

int sample_parse_stat(const char *text, struct sample_cpu *ret)
{
	uint64_t *f[] = { &ret->user, &ret->nice, &ret->system, &ret->idle,
			  &ret->iowait, &ret->irq, &ret->softirq, &ret->steal };
	const char *p = text;
	size_t i;

	memset(ret, 0xff, sizeof(*ret));
	while (p && strncmp(p, "cpu ", 4))
		p = sample_next_line(p);
	if (!p)
		return -ENODATA;
	p += 4;
	/* old kernels lack the later columns: those stay unknown */
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (sample_scan_u64(&p, f[i]))
			break;
	}
	return i >= 4 ? 0 : -ENODATA;
}

/* Parse one diskstats line into @d; 0 or -EINVAL. */
static int parse_disk_line(const char *line, struct sample_disk *d)
{
	unsigned long long v[10];
	unsigned int maj, min;
	char name[sizeof(d->name)];

	if (sscanf(line, "%u %u %31s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &maj, &min, name, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		   &v[6], &v[7], &v[8], &v[9]) != 13)
		return -EINVAL;
	memcpy(d->name, name, sizeof(name));
	d->reads = v[0];
	d->sectors_read = v[2];
	d->writes = v[4];
	d->sectors_written = v[6];
	d->io_ms = v[9];
	return 0;
}

int sample_parse_diskstats(const char *text, struct sample_disks *ret)
{
	ret->count = 0;
	ret->truncated = 0;
	for (const char *line = text; line && *line; line = sample_next_line(line)) {
		struct sample_disk d;

		if (!parse_disk_line(line, &d)) {
			if (ret->count < SAMPLE_MAX_DISKS)
				ret->disk[ret->count++] = d;
			else
				ret->truncated = 1;
		}
	}
	return ret->count ? 0 : -ENODATA;
}

int sample_parse_task_stat(const char *text, struct sample_task *ret,
			   char *ret_state)
{
	struct pcc_procstat s;

	if (pcc_procstat_parse(text, PCC_STAT_STIME, &s))
		return -EINVAL;
	ret->utime = s.utime;
	ret->stime = s.stime;
	if (ret_state)
		*ret_state = s.state;
	return 0;
}

int sample_parse_task_kind(const char *text, struct sample_task_kind *ret)
{
	struct pcc_procstat s;

	if (pcc_procstat_parse(text, PCC_STAT_THREADS, &s))
		return -EINVAL;
	*ret = (struct sample_task_kind){ .state = s.state, .flags = s.flags,
					  .threads = s.threads };
	return 0;
}

int sample_has_word(const char *list, const char *word)
{
	size_t len = strlen(word);

	if (!len)
		return 0;
	for (const char *p = list; (p = strstr(p, word)); p += len) {
		int start = p == list || p[-1] == ' ' || p[-1] == ',' || p[-1] == '\t';
		int end = !p[len] || isspace((unsigned char)p[len]) || p[len] == ',';

		if (start && end)
			return 1;
	}
	return 0;
}
