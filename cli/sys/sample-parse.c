// SPDX-License-Identifier: MIT
/*
 * sample: read /proc and /sys into plain structs, for bench, doctor and
 * watch.  Parsers work on text so tests can run them on fixtures; readers
 * prefix every path with a root directory for the same reason.  What the
 * kernel does not export stays SAMPLE_UNKNOWN or NAN, never 0.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sample.h"
#include "mount-escape.h"

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
static const char *next_line(const char *line)
{
	const char *end = strchr(line, '\n');

	return end ? end + 1 : NULL;
}

/* Parse an unsigned decimal at *p, skipping blanks; 0 or -EINVAL. */
static int parse_num(const char **p, uint64_t *ret)
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

	for (const char *line = text; line && *line; line = next_line(line)) {
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
		    !parse_num(&p, &v)) {
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
		if (parse_num(&q, &v))
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

static void cgroup_unknown(struct sample_cgroup *ret)
{
	memset(ret, 0xff, sizeof(*ret));
	ret->version = 0;
}

int sample_parse_memcg_stat(const char *text, int version,
			    struct sample_cgroup *ret)
{
	int n;

	cgroup_unknown(ret);
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
	for (const char *line = text; line && *line; line = next_line(line)) {

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
		p = next_line(p);
	if (!p)
		return -ENODATA;
	p += 4;
	/* old kernels lack the later columns: those stay unknown */
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (parse_num(&p, f[i]))
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
	for (const char *line = text; line && *line; line = next_line(line)) {
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
	/* comm may hold spaces and parentheses: fields start after the last ')' */
	const char *p = strrchr(text, ')');
	unsigned long long utime, stime;
	char state;

	if (!p)
		return -EINVAL;
	if (sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
		   &state, &utime, &stime) != 3)
		return -EINVAL;
	ret->utime = utime;
	ret->stime = stime;
	if (ret_state)
		*ret_state = state;
	return 0;
}

int sample_path(const char *root, const char *path, char *buf, size_t size)
{
	int n;

	if (!root || !strcmp(root, "/"))
		root = "";
	while (root[0] && path[0] == '/' && root[strlen(root) - 1] == '/')
		path++;
	n = snprintf(buf, size, "%s%s", root, path);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Read all of @fd into a malloc'ed string. */
static int slurp_fd(int fd, char **ret_text)
{
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap), *nbuf;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			nbuf = realloc(buf, cap * 2);
			if (!nbuf) {
				ret = -ENOMEM;
				goto out_free;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto out_free;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret_text = buf;
	return 0;
out_free:
	free(buf);
	return ret;
}

int sample_slurp(const char *root, const char *path, char **ret_text)
{
	char full[4096];
	int fd, ret;

	ret = sample_path(root, path, full, sizeof(full));
	if (ret)
		return ret;
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = slurp_fd(fd, ret_text);
	close(fd);
	return ret;
}

int sample_read_text(const char *root, const char *path, char *buf, size_t size)
{
	char *text;
	size_t len;
	int ret;

	if (!size)
		return -EINVAL;
	ret = sample_slurp(root, path, &text);
	if (ret)
		return ret;
	len = strlen(text);
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	if (len >= size)
		len = size - 1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	free(text);
	return 0;
}

int sample_read_u64(const char *root, const char *path, uint64_t *ret)
{
	char buf[64];
	const char *p = buf;
	uint64_t v;
	int err;

	err = sample_read_text(root, path, buf, sizeof(buf));
	if (err)
		return err;
	if (!buf[0])
		return -ENODATA;
	err = parse_num(&p, &v);
	if (err)
		return err;
	*ret = v;
	return 0;
}

/* Slurp @path under @root and run @parse on it. */
#define READ_WITH(root, path, parse, ...)			\
	({							\
		char *text_;					\
		int ret_ = sample_slurp(root, path, &text_);	\
		if (!ret_) {					\
			ret_ = parse(text_, __VA_ARGS__);	\
			free(text_);				\
		}						\
		ret_;						\
	})

int sample_read_stat(const char *root, struct sample_cpu *ret)
{
	memset(ret, 0xff, sizeof(*ret));
	return READ_WITH(root, "/proc/stat", sample_parse_stat, ret);
}

int sample_read_meminfo(const char *root, struct sample_meminfo *ret)
{
	memset(ret, 0xff, sizeof(*ret));
	return READ_WITH(root, "/proc/meminfo", sample_parse_meminfo, ret);
}

int sample_read_vmstat(const char *root, struct sample_vmstat *ret)
{
	memset(ret, 0xff, sizeof(*ret));
	return READ_WITH(root, "/proc/vmstat", sample_parse_vmstat, ret);
}

int sample_read_psi(const char *root, struct sample_psi *ret)
{
	int err = READ_WITH(root, "/proc/pressure/memory", sample_parse_psi, ret);

	if (err) {
		/* a missing file leaves nothing set: make it unknown */
		sample_parse_psi("", ret);
	}
	return err;
}

int sample_read_diskstats(const char *root, struct sample_disks *ret)
{
	ret->count = 0;
	ret->truncated = 0;
	return READ_WITH(root, "/proc/diskstats", sample_parse_diskstats, ret);
}

/* A limit as read: v1 says "unlimited" with ~2^63, v2 with "max" (no number). */
static uint64_t limit_value(uint64_t v)
{
	return v < (UINT64_C(1) << 62) ? v : SAMPLE_UNKNOWN;
}

static uint64_t min_known(uint64_t a, uint64_t b)
{
	if (!sample_known(a))
		return b;
	if (!sample_known(b))
		return a;
	return a < b ? a : b;
}

/* The lowest memory.max of the v2 groups above @dir (SAMPLE_UNKNOWN: none). */
static uint64_t v2_parent_limit(const char *dir)
{
	char path[4096], *slash;
	uint64_t lowest = SAMPLE_UNKNOWN;

	snprintf(path, sizeof(path), "%s", dir);
	while ((slash = strrchr(path, '/')) && slash != path) {
		char file[4200];
		uint64_t v;

		*slash = '\0';
		/* the root group and anything above it have no memory.max */
		snprintf(file, sizeof(file), "%s/memory.max", path);
		if (access(file, F_OK))
			break;
		/* "max" does not parse: no limit there */
		if (!sample_read_u64(path, "/memory.max", &v))
			lowest = min_known(lowest, limit_value(v));
	}
	return lowest;
}

/* Limit and usage of a cgroup @dir of @version into @cg. */
static void read_cgroup_limit(const char *dir, int version,
			      struct sample_cgroup *cg)
{
	const char *lim = version == 1 ? "/memory.limit_in_bytes" : "/memory.max";
	const char *use = version == 1 ? "/memory.usage_in_bytes" : "/memory.current";
	uint64_t v;

	if (!sample_read_u64(dir, lim, &v))
		cg->limit = limit_value(v);
	if (!sample_read_u64(dir, use, &v))
		cg->usage = v;
	if (version == 1)
		cg->limit_eff = min_known(limit_value(cg->limit_eff), cg->limit);
	else
		cg->limit_eff = min_known(cg->limit, v2_parent_limit(dir));
}

int sample_read_cgroup(const char *dir, struct sample_cgroup *ret)
{
	char path[4096];
	int version, err;

	cgroup_unknown(ret);
	err = sample_path(dir, "/memory.limit_in_bytes", path, sizeof(path));
	if (err)
		return err;
	version = access(path, F_OK) ? 2 : 1;
	err = READ_WITH(dir, "/memory.stat", sample_parse_memcg_stat, version, ret);
	if (err) {
		cgroup_unknown(ret);
		return err;
	}
	read_cgroup_limit(dir, version, ret);
	return 0;
}

static int is_pid_name(const char *name)
{
	if (!*name)
		return 0;
	for (; *name; name++) {
		if (!isdigit((unsigned char)*name))
			return 0;
	}
	return 1;
}

/* The "/proc/PID" (or "/proc/self") part of a path for @pid. */
static void proc_dir(pid_t pid, char *buf, size_t size)
{
	if (pid > 0)
		snprintf(buf, size, "/proc/%d", (int)pid);
	else
		snprintf(buf, size, "/proc/self");
}

/*
 * Call @fn with "@rel/NAME" for every entry of the directory @rel (under
 * @root) named by a number: the processes of /proc, the threads of a task/.
 */
static int for_each_pid(const char *root, const char *rel,
			void (*fn)(const char *root, const char *sub, void *arg),
			void *arg)
{
	char path[4096], sub[600];
	struct dirent *de;
	DIR *dir;
	int err;

	err = sample_path(root, rel, path, sizeof(path));
	if (err)
		return err;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (is_pid_name(de->d_name) &&
		    snprintf(sub, sizeof(sub), "%s/%s", rel, de->d_name) < (int)sizeof(sub))
			fn(root, sub, arg);
	}
	closedir(dir);
	return 0;
}

/* Read the stat file of the task directory @sub (under @root). */
static int read_task_stat(const char *root, const char *sub, struct sample_task *ret,
			  char *ret_state)
{
	char rel[700];

	snprintf(rel, sizeof(rel), "%s/stat", sub);
	return READ_WITH(root, rel, sample_parse_task_stat, ret, ret_state);
}

struct thread_count {
	unsigned int dstate, all;
};

/* Count thread @sub, and whether it is in D state. */
static void count_thread(const char *root, const char *sub, void *arg)
{
	struct thread_count *c = arg;
	struct sample_task t;
	char state;

	if (read_task_stat(root, sub, &t, &state))
		return;		/* the thread exited meanwhile */
	c->all++;
	c->dstate += state == 'D';
}

int sample_read_proc(const char *root, pid_t pid, struct sample_task *ret,
		     unsigned int *ret_dstate, unsigned int *ret_threads)
{
	char pdir[64], rel[128];
	struct thread_count c = { 0, 0 };
	struct sample_task t;
	int err;

	proc_dir(pid, pdir, sizeof(pdir));
	err = read_task_stat(root, pdir, &t, NULL);
	if (err)
		return err;
	if (ret_dstate || ret_threads) {
		snprintf(rel, sizeof(rel), "%s/task", pdir);
		err = for_each_pid(root, rel, count_thread, &c);
		if (err)
			return err;
	}
	*ret = t;
	if (ret_dstate)
		*ret_dstate = c.dstate;
	if (ret_threads)
		*ret_threads = c.all;
	return 0;
}

struct kswapd_sum {
	struct sample_task cpu;
	unsigned int threads;
	struct sample_kswapd_pids found;	/* n past the maximum: too many */
};

/* The CPU of task @sub (under @root) into @sum when its comm starts with
 * "kswapd"; 0, or -ESRCH when it does not or is gone. */
static int add_kswapd(const char *root, const char *sub, struct kswapd_sum *sum)
{
	char rel[700], comm[64];
	struct sample_task t;

	snprintf(rel, sizeof(rel), "%s/comm", sub);
	if (sample_read_text(root, rel, comm, sizeof(comm)) ||
	    strncmp(comm, "kswapd", 6) || read_task_stat(root, sub, &t, NULL))
		return -ESRCH;
	sum->cpu.utime += t.utime;
	sum->cpu.stime += t.stime;
	sum->threads++;
	return 0;
}

/* for_each_pid()'s callback: add task "/proc/PID" when it is a kswapd. */
static void add_if_kswapd(const char *root, const char *sub, void *arg)
{
	struct kswapd_sum *sum = arg;

	if (add_kswapd(root, sub, sum))
		return;
	if (sum->found.n < SAMPLE_KSWAPD_MAX)
		sum->found.pid[sum->found.n] = (pid_t)atol(sub + strlen("/proc/"));
	sum->found.n++;
}

/* The threads of @known, all still kswapd threads; -ESRCH when one is not. */
static int read_known_kswapd(const char *root, const struct sample_kswapd_pids *known,
			     struct kswapd_sum *sum)
{
	char sub[32];

	for (unsigned int i = 0; i < known->n; i++) {
		snprintf(sub, sizeof(sub), "/proc/%ld", (long)known->pid[i]);
		if (add_kswapd(root, sub, sum))
			return -ESRCH;
	}
	return 0;
}

int sample_read_kswapd(const char *root, struct sample_kswapd_pids *known,
		       struct sample_task *ret, unsigned int *ret_threads)
{
	struct kswapd_sum sum = { { 0, 0 }, 0, { { 0 }, 0 } };
	int err = -ESRCH;

	if (known && known->n)
		err = read_known_kswapd(root, known, &sum);
	if (err) {
		memset(&sum, 0, sizeof(sum));
		err = for_each_pid(root, "/proc", add_if_kswapd, &sum);
		if (known)
			*known = sum.found.n <= SAMPLE_KSWAPD_MAX ? sum.found :
				(struct sample_kswapd_pids){ .n = 0 };
	}
	if (err)
		return err;
	if (!sum.threads)
		return -ENOENT;
	*ret = sum.cpu;
	if (ret_threads)
		*ret_threads = sum.threads;
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

/* Copy the @len bytes at @s into @buf as a string; -ENAMETOOLONG when too long. */
static int copy_out(const char *s, size_t len, char *buf, size_t size)
{
	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return 0;
}

/*
 * Run @match on each line of @text (without its newline) until it finds
 * what it looks for in hierarchy @version: 0 with it in @buf, -ENAMETOOLONG,
 * or -ENOENT to go on.
 */
static int scan_lines(const char *text, int version, char *buf, size_t size,
		      int (*match)(const char *line, size_t len, int version,
				   char *buf, size_t size))
{
	if (version != 1 && version != 2)
		return -EINVAL;
	for (const char *line = text; line && *line; line = next_line(line)) {
		const char *end = strchr(line, '\n');
		int ret = match(line, end ? (size_t)(end - line) : strlen(line), version,
				buf, size);

		if (ret != -ENOENT)
			return ret;
	}
	return -ENOENT;
}

/*
 * An "ID:CONTROLLERS:PATH" line of /proc/PID/cgroup: v2's is "0::PATH",
 * v1's memory one names "memory" among its controllers.
 */
static int proc_cgroup_line(const char *line, size_t len, int version,
			    char *buf, size_t size)
{
	const char *c1 = memchr(line, ':', len);
	const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
	char ctl[256];
	int match;

	if (!c2 || c2[1] != '/')
		return -ENOENT;
	if (version == 2)
		match = c1 - line == 1 && line[0] == '0' && c2 == c1 + 1;
	else
		match = !copy_out(c1 + 1, (size_t)(c2 - c1 - 1), ctl, sizeof(ctl)) &&
			sample_has_word(ctl, "memory");
	return match ? copy_out(c2 + 1, len - (size_t)(c2 + 1 - line), buf, size) : -ENOENT;
}

int sample_parse_proc_cgroup(const char *text, int version, char *ret_path,
			     size_t size)
{
	return scan_lines(text, version, ret_path, size, proc_cgroup_line);
}

/* A /proc/mounts line of a cgroup2 mount (v2) or a v1 one with the memory controller. */
static int mount_line(const char *line, size_t len, int version, char *buf, size_t size)
{
	char text[8192], dev[256], dir[PATH_MAX], type[64], opts[1024];

	if (copy_out(line, len, text, sizeof(text)) ||
	    sscanf(text, "%255s %4095s %63s %1023s", dev, dir, type, opts) != 4)
		return -ENOENT;
	pc_mount_unescape(dir);
	if (version == 2 ? strcmp(type, "cgroup2") :
	    strcmp(type, "cgroup") || !sample_has_word(opts, "memory"))
		return -ENOENT;
	return copy_out(dir, strlen(dir), buf, size);
}

int sample_parse_cgroup_mount(const char *text, int version, char *ret_dir,
			      size_t size)
{
	return scan_lines(text, version, ret_dir, size, mount_line);
}

/* Whether the cgroup2 hierarchy mounted at @mnt (under @root) has the memory controller. */
static int v2_has_memory(const char *root, const char *mnt)
{
	char rel[PATH_MAX + 32], list[512];

	if (snprintf(rel, sizeof(rel), "%s/cgroup.controllers", mnt) >= (int)sizeof(rel))
		return 0;
	return !sample_read_text(root, rel, list, sizeof(list)) &&
	       sample_has_word(list, "memory");
}

/*
 * The first cgroup2 mount whose hierarchy has the memory controller: there
 * may be several (a hybrid host's empty "unified" one, a container's bind
 * mounts), and the first listed need not be it.
 */
static int v2_memory_mount(const char *root, const char *text, char *mnt, size_t size)
{
	for (const char *line = text; line && *line; line = next_line(line)) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		int err = mount_line(line, len, 2, mnt, size);

		if (err == -ENOENT)
			continue;
		if (err)
			return err;
		if (v2_has_memory(root, mnt))
			return 0;
	}
	return -ENOENT;
}

int sample_memcg_hierarchy(const char *root, int *ret_version, char *ret_mnt,
			   size_t size)
{
	char mnt[PATH_MAX];
	char *text;
	int version, err;

	err = sample_slurp(root, "/proc/mounts", &text);
	if (err)
		return err;
	version = 2;
	err = v2_memory_mount(root, text, mnt, sizeof(mnt));
	if (err) {
		version = 1;
		err = sample_parse_cgroup_mount(text, 1, mnt, sizeof(mnt));
	}
	free(text);
	if (!err)
		err = sample_path(root, mnt, ret_mnt, size);
	if (!err)
		*ret_version = version;
	return err;
}

/*
 * A mountinfo line's root and mount point (fields 4 and 5, decoded) when
 * its file system type is cgroup2; -ENOENT for other lines.
 */
static int mountinfo_v2(const char *line, size_t len, char *mroot, char *mpoint)
{
	char text[8192], type[64];
	const char *sep;

	if (copy_out(line, len, text, sizeof(text)) ||
	    sscanf(text, "%*s %*s %*s %4095s %4095s", mroot, mpoint) != 2 ||
	    !(sep = strstr(text, " - ")) || sscanf(sep + 3, "%63s", type) != 1 ||
	    strcmp(type, "cgroup2"))
		return -ENOENT;
	pc_mount_unescape(mroot);
	pc_mount_unescape(mpoint);
	return 0;
}

/*
 * Where the v2 cgroup @sub is seen in @pdir's mount namespace: the first
 * cgroup2 mount with the memory controller whose root (a bind mount's or a
 * cgroup namespace's may be below the hierarchy's) is @sub or above it.
 * Its mount point into @ret_mnt, @sub below that root rewritten in place.
 * -ENOENT without a mountinfo (the caller takes /proc/mounts) or a mount.
 */
static int v2_locate(const char *root, const char *pdir, char *sub, char *ret_mnt, size_t size)
{
	char rel[128], mroot[PATH_MAX], mpoint[PATH_MAX];
	int err = -ENOENT;
	char *text;

	snprintf(rel, sizeof(rel), "%s/mountinfo", pdir);
	if (sample_slurp(root, rel, &text))
		return -ENOENT;
	for (const char *line = text; line && *line && err; line = next_line(line)) {
		const char *end = strchr(line, '\n');
		size_t n;

		if (mountinfo_v2(line, end ? (size_t)(end - line) : strlen(line), mroot, mpoint))
			continue;
		n = strcmp(mroot, "/") ? strlen(mroot) : 0;
		if (strncmp(sub, mroot, n) || (sub[n] && sub[n] != '/') ||
		    !v2_has_memory(root, mpoint))
			continue;
		memmove(sub, sub + n, strlen(sub + n) + 1);
		if (!sub[0])
			snprintf(sub, 2, "/");
		err = sample_path(root, mpoint, ret_mnt, size);
	}
	free(text);
	return err;
}

int sample_memcg_path(const char *root, pid_t pid, int *ret_version,
		      char *ret_dir, size_t size)
{
	char pdir[64], rel[128], mnt[PATH_MAX], sub[PATH_MAX], full[2 * PATH_MAX];
	char *text;
	int version, err;

	err = sample_memcg_hierarchy(root, &version, mnt, sizeof(mnt));
	if (err)
		return err;
	proc_dir(pid, pdir, sizeof(pdir));
	snprintf(rel, sizeof(rel), "%s/cgroup", pdir);
	err = sample_slurp(root, rel, &text);
	if (err)
		return err;
	err = sample_parse_proc_cgroup(text, version, sub, sizeof(sub));
	free(text);
	if (err)
		return err;
	if (version == 2 && v2_locate(root, pdir, sub, mnt, sizeof(mnt)) == -ENAMETOOLONG)
		return -ENAMETOOLONG;
	/* the mount's root is the mount point itself */
	snprintf(full, sizeof(full), "%s%s", mnt, strcmp(sub, "/") ? sub : "");
	err = copy_out(full, strlen(full), ret_dir, size);
	if (!err)
		*ret_version = version;
	return err;
}

/* Whether @dir is a usable memory cgroup of @version. */
static int is_memcg(const char *dir, int version)
{
	char path[PATH_MAX];

	if (sample_path(dir, version == 1 ? "/memory.limit_in_bytes" :
			"/memory.stat", path, sizeof(path)))
		return 0;
	return access(path, F_OK) == 0;
}

int sample_find_cgroup(const char *root, pid_t pid, char *ret_dir, size_t size)
{
	char dir[PATH_MAX];
	int version, err;

	err = sample_memcg_path(root, pid, &version, dir, sizeof(dir));
	if (err)
		return err;
	if (!is_memcg(dir, version))
		return -ENOENT;
	return copy_out(dir, strlen(dir), ret_dir, size);
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Mark every section unknown before reading. */
static void sample_clear(struct sample *s)
{
	memset(s, 0, sizeof(*s));
	memset(&s->cpu, 0xff, sizeof(s->cpu));
	memset(&s->mem, 0xff, sizeof(s->mem));
	memset(&s->vm, 0xff, sizeof(s->vm));
	memset(&s->proc, 0xff, sizeof(s->proc));
	memset(&s->kswapd, 0xff, sizeof(s->kswapd));
	sample_parse_psi("", &s->psi);
	cgroup_unknown(&s->cg);
}

/*
 * Take one sample.  Missing sections (no PSI, no cgroup) are not errors:
 * their _ok flag stays 0.  Fails only when /proc/stat cannot be read.
 */
int sample_take(struct sample *ret, const struct sample_opts *opts)
{
	static const struct sample_opts defaults = { .disks = 1, .kswapd = 1 };
	const struct sample_opts *o = opts ? opts : &defaults;
	const char *root = o->root;
	int err;

	sample_clear(ret);
	ret->time = mono_now();
	err = sample_read_stat(root, &ret->cpu);
	if (err)
		return err;
	ret->cpu_ok = 1;
	ret->mem_ok = !sample_read_meminfo(root, &ret->mem);
	ret->vm_ok = !sample_read_vmstat(root, &ret->vm);
	ret->psi_ok = !sample_read_psi(root, &ret->psi);
	if (o->cgroup_dir)
		ret->cg_ok = !sample_read_cgroup(o->cgroup_dir, &ret->cg);
	ret->proc_ok = !sample_read_proc(root, o->pid, &ret->proc,
					 &ret->dstate, &ret->threads);
	if (o->kswapd)
		ret->kswapd_ok = !sample_read_kswapd(root, o->kswapd_pids, &ret->kswapd,
						     &ret->kswapd_threads);
	if (o->disks)
		ret->disks_ok = !sample_read_diskstats(root, &ret->disks);
	return 0;
}

uint64_t sample_diff(uint64_t a, uint64_t b)
{
	if (!sample_known(a) || !sample_known(b) || b < a)
		return SAMPLE_UNKNOWN;
	return b - a;
}

double sample_rate(uint64_t a, uint64_t b, double secs)
{
	uint64_t d = sample_diff(a, b);

	if (!sample_known(d) || secs <= 0)
		return NAN;
	return (double)d / secs;
}

const struct sample_disk *sample_disk_find(const struct sample_disks *disks,
					   const char *name)
{
	for (size_t i = 0; i < disks->count; i++) {
		if (!strcmp(disks->disk[i].name, name))
			return &disks->disk[i];
	}
	return NULL;
}

/* Shares of each CPU state over the interval, percent. */
static void cpu_delta(const struct sample_cpu *a, const struct sample_cpu *b,
		      struct sample_delta *d)
{
	uint64_t v[8];
	const uint64_t *pa = &a->user, *pb = &b->user;
	double total = 0;

	/* struct sample_cpu is eight uint64_t in order: walk it as an array */
	for (int i = 0; i < 8; i++) {
		v[i] = sample_diff(pa[i], pb[i]);
		if (sample_known(v[i]))
			total += (double)v[i];
	}
#define PCT(x) (sample_known(x) && total > 0 ? 100.0 * (double)(x) / total : NAN)
	d->usr_pct = sample_known(v[0]) && sample_known(v[1]) ?
		     PCT(v[0] + v[1]) : PCT(v[0]);
	d->sys_pct = PCT(v[2]);
	d->idle_pct = PCT(v[3]);
	d->iowait_pct = PCT(v[4]);
	d->irq_pct = PCT(v[5]);
	d->softirq_pct = PCT(v[6]);
	d->steal_pct = PCT(v[7]);
#undef PCT
}

/* CPU seconds between two task figures, NAN when unknown. */
static double task_secs(const struct sample_task *a, const struct sample_task *b)
{
	uint64_t u = sample_diff(a->utime, b->utime);
	uint64_t s = sample_diff(a->stime, b->stime);
	long hz = sysconf(_SC_CLK_TCK);

	if (!sample_known(u) || !sample_known(s) || hz <= 0)
		return NAN;
	return (double)(u + s) / (double)hz;
}

/* The counters sample_delta() turns into rates: where each goes and comes from. */
#define RATE(to, from) { offsetof(struct sample_delta, to), offsetof(struct sample, from) }
#define VM_RATE(field) RATE(field, vm.field)
#define CG_RATE(field) RATE(cg_##field, cg.field)

static const struct {
	size_t to, from;
} delta_rates[] = {
	VM_RATE(pgscan_direct), VM_RATE(pgsteal_direct), VM_RATE(pgscan_kswapd),
	VM_RATE(pgsteal_kswapd), VM_RATE(pgscan_file), VM_RATE(pgsteal_file),
	VM_RATE(allocstall),
	RATE(psi_some_us, psi.some_total), RATE(psi_full_us, psi.full_total),
	CG_RATE(pgscan), CG_RATE(pgsteal), CG_RATE(pgscan_direct), CG_RATE(pgscan_kswapd),
};

static uint64_t counter_at(const struct sample *s, size_t offset)
{
	return *(const uint64_t *)((const char *)s + offset);
}

void sample_delta(const struct sample *a, const struct sample *b,
		  struct sample_delta *ret)
{
	double t = b->time - a->time;

	ret->secs = t;
	cpu_delta(&a->cpu, &b->cpu, ret);
	ret->proc_cpu_s = task_secs(&a->proc, &b->proc);
	ret->kswapd_cpu_s = task_secs(&a->kswapd, &b->kswapd);
	for (size_t i = 0; i < sizeof(delta_rates) / sizeof(delta_rates[0]); i++) {
		size_t from = delta_rates[i].from;

		*(double *)((char *)ret + delta_rates[i].to) =
			sample_rate(counter_at(a, from), counter_at(b, from), t);
	}
}
