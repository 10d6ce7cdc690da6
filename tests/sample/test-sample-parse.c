// SPDX-License-Identifier: MIT
/*
 * The /proc and /sys parsers of engine/sys/sample-parse.c on fixture trees: copies of a
 * build machine's files (host), cgroup v2 (cgv2), v1 memory mounted beside a
 * v2 hierarchy that has the memory controller (hybrid), two cgroup2 mounts of
 * which the second has memory and a blank in its path (cgspace), mountinfo
 * roots: a bind of another cgroup first, one above the process second (cgbind),
 * edited files with missing and unknown fields (edited), empty files (empty)
 * and no files (none).  Known values must come out exact; what is absent must stay
 * unknown.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "helpers.h"
#include "sample.h"

static char fx[4096];

static const char *root(const char *name)
{
	static char buf[4200];

	snprintf(buf, sizeof(buf), "%s/%s", fx, name);
	return buf;
}

static void test_host(void)
{
	struct sample_cpu cpu;
	struct sample_meminfo m;
	struct sample_vmstat v;
	struct sample_psi p;
	struct sample_disks d;
	const struct sample_disk *vda;

	T_CHECK(!sample_read_stat(root("host"), &cpu), "stat");
	T_CHECK(cpu.user == 1777 && cpu.nice == 0 && cpu.system == 1725 &&
		cpu.idle == 100443 && cpu.iowait == 323 && cpu.softirq == 37 &&
		cpu.steal == 8, "cpu line %llu %llu", (unsigned long long)cpu.user,
		(unsigned long long)cpu.system);
	T_CHECK(!sample_read_meminfo(root("host"), &m), "meminfo");
	T_CHECK(m.total == 24683652ULL * 1024 && m.cached == 135236ULL * 1024 &&
		m.active_file == 84096ULL * 1024 && m.dirty == 228ULL * 1024,
		"meminfo values");
	T_CHECK(!sample_read_vmstat(root("host"), &v), "vmstat");
	T_CHECK(v.pgpgin == 2594409 && v.pgscan_direct == 0 &&
		v.pgscan_kswapd == 0 && v.allocstall == 0, "vmstat values");
	T_CHECK(!sample_read_psi(root("host"), &p), "psi");
	T_CHECK(p.some_avg10 == 0.0 && p.full_total == 0, "psi values");
	T_CHECK(!sample_read_diskstats(root("host"), &d), "diskstats");
	vda = sample_disk_find(&d, "vda");
	T_CHECK(vda && vda->reads == 32864 && vda->sectors_read == 5188818 &&
		vda->sectors_written == 747624, "vda line");
	T_CHECK(sample_disk_find(&d, "zram0") && !sample_disk_find(&d, "sdz"),
		"disk lookup");
}

static void test_host_tasks(void)
{
	struct sample_task t, k;
	unsigned int dstate, threads, nk;

	/* comm "my (odd) reader" has spaces and parentheses */
	T_CHECK(!sample_read_proc(root("host"), 0, &t, &dstate, &threads), "proc");
	T_CHECK(t.utime == 250 && t.stime == 75, "utime %llu stime %llu",
		(unsigned long long)t.utime, (unsigned long long)t.stime);
	T_CHECK(threads == 2 && dstate == 1, "threads %u dstate %u", threads, dstate);
	T_CHECK(!sample_read_kswapd(root("host"), NULL, &k, &nk), "kswapd");
	T_CHECK(nk == 1 && k.utime == 12 && k.stime == 34, "kswapd %u", nk);
}

/* What kind of task a stat describes: kswapd0 is a kernel thread, bash is
 * not; a zombie whose threads all ended, and a leader that exited first. */
static void test_task_kind(void)
{
	struct sample_task_kind k;

	T_CHECK(!sample_read_task_kind(root("host"), 45, &k), "kind of 45");
	T_CHECK(k.state == 'S' && (k.flags & SAMPLE_PF_KTHREAD) && k.threads == 1,
		"kswapd0: %c %#x %u", k.state, k.flags, k.threads);
	T_CHECK(!sample_read_task_kind(root("host"), 46, &k), "kind of 46");
	T_CHECK(k.state == 'S' && !(k.flags & SAMPLE_PF_KTHREAD) && k.threads == 1,
		"bash: %c %#x %u", k.state, k.flags, k.threads);
	T_CHECK(!sample_read_task_kind(root("host"), 0, &k), "kind of self");
	T_CHECK(k.state == 'R' && k.flags == 4194304 && k.threads == 2,
		"my (odd) reader: %c %#x %u", k.state, k.flags, k.threads);
	T_CHECK(!sample_parse_task_kind("7 (a) b) Z 1 7 7 0 -1 4227084 0 0 0 0 0 0 0 0 20 0 1 0 9",
					&k) && k.state == 'Z' && k.threads == 1,
		"zombie: %c %u", k.state, k.threads);
	T_CHECK(!sample_parse_task_kind("8 (t) Z 1 8 8 0 -1 4227084 0 0 0 0 0 0 0 0 20 0 3 0 9",
					&k) && k.state == 'Z' && k.threads == 3,
		"exited leader: %c %u", k.state, k.threads);
	T_CHECK(sample_parse_task_kind("9 (short) S 1 9", &k) == -EINVAL, "short stat");
	T_CHECK(sample_read_task_kind(root("host"), 999999, &k) == -ENOENT, "no such task");
}

/* Remembered kswapd threads: found by the first scan, read alone after it;
 * one that is no kswapd now, or gone, brings a new scan. */
static void test_kswapd_known(void)
{
	struct sample_kswapd_pids known = { .n = 0 };
	const pid_t wrong[] = { 46, 999999 };	/* bash; no such task */
	struct sample_task k;
	unsigned int nk;

	T_CHECK(!sample_read_kswapd(root("host"), &known, &k, &nk), "kswapd scan");
	T_CHECK(known.n == 1 && known.pid[0] == 45, "remembered %u, first %ld", known.n,
		(long)known.pid[0]);
	T_CHECK(!sample_read_kswapd(root("host"), &known, &k, &nk) && nk == 1 &&
		k.utime == 12 && k.stime == 34, "kswapd from the remembered thread");
	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		known.pid[0] = wrong[i];
		T_CHECK(!sample_read_kswapd(root("host"), &known, &k, &nk) && nk == 1 &&
			k.utime == 12 && k.stime == 34, "kswapd after pid %ld", (long)wrong[i]);
		T_CHECK(known.n == 1 && known.pid[0] == 45, "scanned again after pid %ld: %ld",
			(long)wrong[i], (long)known.pid[0]);
	}
}

static void test_cgroup_v1(void)
{
	struct sample_cgroup cg;
	char dir[8192], want[8192];

	T_CHECK(!sample_find_cgroup(root("host"), 0, dir, sizeof(dir)), "find v1");
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/memory/pagecliff", root("host"));
	T_CHECK(!strcmp(dir, want), "v1 dir '%s'", dir);
	T_CHECK(!sample_read_cgroup(dir, &cg), "read v1");
	/* total_cache (hierarchical) wins over cache */
	T_CHECK(cg.version == 1 && cg.file == 1925696 && cg.active_file == 581632,
		"v1 file %llu", (unsigned long long)cg.file);
	T_CHECK(cg.limit == 268435456 && sample_known(cg.usage), "v1 limit");
	T_CHECK(cg.limit_eff == 268435456, "v1 hierarchical_memory_limit");
	T_CHECK(!sample_known(cg.pgscan) && !sample_known(cg.pgscan_direct),
		"v1 has no pgscan: unknown, not 0");
}

static void test_cgroup_v2(void)
{
	struct sample_cgroup cg;
	char dir[8192];

	T_CHECK(!sample_find_cgroup(root("cgv2"), 0, dir, sizeof(dir)), "find v2");
	T_CHECK(strstr(dir, "/sys/fs/cgroup/bench"), "v2 dir '%s'", dir);
	T_CHECK(!sample_read_cgroup(dir, &cg), "read v2");
	T_CHECK(cg.version == 2 && cg.file == 190000000 && cg.dirty == 8192 &&
		cg.writeback == 4096 && cg.pgscan == 500000 &&
		cg.pgscan_direct == 499900 && cg.pgsteal_kswapd == 90, "v2 stat");
	T_CHECK(cg.limit == 268435456 && cg.usage == 201326592, "v2 limit");
	T_CHECK(cg.limit_eff == 268435456, "v2 effective limit is its own");
	snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup/unlimited", root("cgv2"));
	T_CHECK(!sample_read_cgroup(dir, &cg), "read unlimited");
	T_CHECK(cg.version == 2 && !sample_known(cg.limit) && cg.usage == 4096 &&
		!sample_known(cg.pgscan) && !sample_known(cg.limit_eff),
		"v2 \"max\" is unknown");
	/* "max" in the group, 128 MiB on its parent: the parent's cap holds */
	snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup/outer/inner", root("cgv2"));
	T_CHECK(!sample_read_cgroup(dir, &cg), "read nested");
	T_CHECK(!sample_known(cg.limit) && cg.limit_eff == 134217728,
		"nested: limit_eff %llu", (unsigned long long)cg.limit_eff);
}

/*
 * v1 memory mounted and a v2 hierarchy whose root lists "memory": the kernel
 * binds a controller to one hierarchy, and cgroup.controllers at the v2 root
 * is its word that memory is there.  The process is in /job on v2 and in
 * /v1job on v1; the reader must take v2, as cgroup.c does (it once took v1).
 */
static void test_cgroup_hybrid(void)
{
	struct sample_cgroup cg;
	char dir[8192], want[8192];

	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/unified/job", root("hybrid"));
	T_CHECK(!sample_find_cgroup(root("hybrid"), 0, dir, sizeof(dir)), "find hybrid");
	T_CHECK(!strcmp(dir, want), "hybrid dir '%s', want '%s'", dir, want);
	T_CHECK(!sample_read_cgroup(dir, &cg), "read hybrid");
	T_CHECK(cg.version == 2 && cg.limit == 134217728 && cg.usage == 100663296 &&
		cg.file == 190000000, "hybrid: v%d limit %llu", cg.version,
		(unsigned long long)cg.limit);
}

/* Where each tree's process is: the same for cgroup.c (sample_memcg_path) and doctor. */
static void test_cgroup_locate(void)
{
	static const struct {
		const char *tree, *dir;
		int version;
	} want[] = {
		{ "host", "/sys/fs/cgroup/memory/pagecliff", 1 },
		{ "cgv2", "/sys/fs/cgroup/bench", 2 },
		{ "old", "/sys/fs/cgroup/job", 2 },
		{ "hybrid", "/sys/fs/cgroup/unified/job", 2 },
		/* the first cgroup2 mount lacks memory; the second's path has a blank */
		{ "cgspace", "/sys/fs/cgroup/my cg/job", 2 },
		/* mountinfo: the first cgroup2 mount binds another cgroup (root
		 * /other), the second, at a path with a blank, binds /ns, above
		 * the process's /ns/job */
		{ "cgbind", "/sys/fs/cgroup/b c/job", 2 },
	};
	char dir[8192], found[8192], path[8192];
	int version;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *r = root(want[i].tree);

		snprintf(path, sizeof(path), "%s%s", r, want[i].dir);
		T_CHECK(!sample_memcg_path(r, 0, &version, dir, sizeof(dir)) &&
			!strcmp(dir, path) && version == want[i].version,
			"%s: v%d '%s'", want[i].tree, version, dir);
		T_CHECK(!sample_find_cgroup(r, 0, found, sizeof(found)) &&
			!strcmp(found, dir), "%s: find '%s'", want[i].tree, found);
	}
	/* no cgroup mounted at all: no hierarchy */
	T_CHECK(sample_memcg_hierarchy(root("empty"), &version, dir, sizeof(dir)) == -ENOENT,
		"empty: no hierarchy");
	T_CHECK(sample_memcg_path(root("host"), 0, &version, dir, 10) == -ENAMETOOLONG,
		"short buffer");
}

/* The words of /proc/PID/cgroup and /proc/mounts, on text. */
static void test_cgroup_text(void)
{
	char buf[256];

	T_CHECK(!sample_parse_proc_cgroup("5:cpu,memory:/a b:c\n0::/x\n", 1, buf, sizeof(buf)) &&
		!strcmp(buf, "/a b:c"), "path with a blank and a colon '%s'", buf);
	T_CHECK(!sample_parse_proc_cgroup("3:name=memoryish:/no\n2:cpu,memory:/yes\n0::/v2\n",
					  1, buf, sizeof(buf)) && !strcmp(buf, "/yes"),
		"v1 line '%s'", buf);
	T_CHECK(!sample_parse_proc_cgroup("2:memory:/yes\n0::/v2", 2, buf, sizeof(buf)) &&
		!strcmp(buf, "/v2"), "v2 line '%s'", buf);
	T_CHECK(sample_parse_proc_cgroup("1:name=systemd:/\n", 1, buf, sizeof(buf)) == -ENOENT &&
		sample_parse_proc_cgroup("0::/x", 3, buf, sizeof(buf)) == -EINVAL &&
		sample_parse_proc_cgroup("0::/long", 2, buf, 4) == -ENAMETOOLONG, "errors");
	T_CHECK(!sample_parse_cgroup_mount("cgroup /c/mem cgroup rw,memory_x 0 0\n"
					   "cgroup /c/m cgroup rw,memory,cpu 0 0\n", 1,
					   buf, sizeof(buf)) && !strcmp(buf, "/c/m"),
		"v1 mount '%s'", buf);
	T_CHECK(sample_parse_cgroup_mount("cgroup /c/cpu cgroup rw,cpu 0 0\n", 2, buf,
					  sizeof(buf)) == -ENOENT, "no v2 mount");
	T_CHECK(!sample_parse_cgroup_mount("cgroup2 /a\\040b\\011c\\134d\\09 cgroup2 rw 0 0\n", 2,
					   buf, sizeof(buf)) && !strcmp(buf, "/a b\tc\\d\\09"),
		"escaped mount '%s'", buf);
	T_CHECK(sample_has_word("cpu memory", "memory") && sample_has_word("rw,memory", "memory") &&
		!sample_has_word("name=memory", "memory") && !sample_has_word("memoryx", "memory"),
		"words");
}

/* On this machine: cgroup.c's cgroup is the one doctor and watch read. */
static void test_live_cgroup(void)
{
	char mine[PATH_MAX], found[PATH_MAX], file[PATH_MAX + 32];
	struct sample_cgroup cg;
	int version;

	if (cgroup_detect(&version, mine)) {
		T_CHECK(sample_find_cgroup(NULL, 0, found, sizeof(found)) < 0,
			"sample finds a memory cgroup cgroup.c does not");
		return;
	}
	if (sample_find_cgroup(NULL, 0, found, sizeof(found))) {
		/* only where the memory controller is not enabled in that cgroup */
		snprintf(file, sizeof(file), "%s/%s", mine,
			 version == 1 ? "memory.limit_in_bytes" : "memory.stat");
		T_CHECK(access(file, F_OK), "cgroup.c found v%d '%s', sample none",
			version, mine);
		return;
	}
	T_CHECK(!strcmp(found, mine), "cgroup.c '%s', sample '%s'", mine, found);
	T_CHECK(!sample_read_cgroup(found, &cg) && cg.version == version,
		"read '%s': v%d, cgroup.c v%d", found, cg.version, version);
}

static void test_edited(void)
{
	struct sample_cpu cpu;
	struct sample_meminfo m;
	struct sample_vmstat v;
	struct sample_psi p;
	struct sample_disks d;
	const struct sample_disk *sda, *nvme;

	T_CHECK(!sample_read_stat(root("edited"), &cpu), "old stat");
	T_CHECK(cpu.user == 100 && cpu.idle == 1000 && !sample_known(cpu.iowait) &&
		!sample_known(cpu.steal), "4-column cpu line");
	T_CHECK(!sample_read_meminfo(root("edited"), &m), "edited meminfo");
	T_CHECK(!sample_known(m.dirty) && !sample_known(m.active_file) &&
		m.cached == 135236ULL * 1024, "missing meminfo fields");
	T_CHECK(!sample_read_vmstat(root("edited"), &v), "old vmstat");
	T_CHECK(!sample_known(v.pgscan_direct) && v.pgscan_kswapd == 15 &&
		v.allocstall == 7 && !sample_known(v.pgsteal_file), "old vmstat");
	T_CHECK(!sample_read_psi(root("edited"), &p), "some-only psi");
	T_CHECK(p.some_avg10 == 1.5 && p.some_total == 123456 &&
		isnan(p.full_avg10) && !sample_known(p.full_total), "psi some only");
	T_CHECK(!sample_read_diskstats(root("edited"), &d), "diskstats");
	sda = sample_disk_find(&d, "sda");
	nvme = sample_disk_find(&d, "nvme0n1");
	T_CHECK(sda && sda->sectors_read == 2048 && sda->sectors_written == 4096,
		"11-column diskstats");
	T_CHECK(nvme && nvme->sectors_read == 3 && nvme->io_ms == 10, "17 columns");
}

static void test_empty_and_none(void)
{
	static const char *const trees[] = { "empty", "none" };

	for (size_t i = 0; i < 2; i++) {
		const char *r = root(trees[i]);
		struct sample_meminfo m;
		struct sample_vmstat v;
		struct sample_psi p;
		struct sample_cgroup cg;
		struct sample s;
		char dir[8192];
		int want = i ? -ENOENT : -ENODATA;

		T_CHECK(sample_read_meminfo(r, &m) == want && !sample_known(m.cached),
			"%s meminfo", r);
		T_CHECK(sample_read_vmstat(r, &v) == want &&
			!sample_known(v.allocstall), "%s vmstat", r);
		T_CHECK(sample_read_psi(r, &p) == want && isnan(p.some_avg10), "%s psi", r);
		T_CHECK(sample_find_cgroup(r, 0, dir, sizeof(dir)) < 0, "%s cgroup", r);
		snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup/memory/x", r);
		T_CHECK(sample_read_cgroup(dir, &cg) < 0 && cg.version == 0 &&
			!sample_known(cg.file), "%s cgroup stat", r);
		T_CHECK(sample_take(&s, &(struct sample_opts){ .root = r, .disks = 1,
			.kswapd = 1 }) == want, "%s take", r);
	}
}

/* Deltas: per interval, unknown stays NAN, counters that go back are NAN. */
static void test_delta(void)
{
	struct sample a, b;
	struct sample_delta d;

	T_CHECK(!sample_take(&a, &(struct sample_opts){ .root = root("host"),
				       .kswapd = 1 }), "take");
	b = a;
	b.time = a.time + 2.0;
	b.cpu.user += 50; b.cpu.system += 30; b.cpu.idle += 100; b.cpu.iowait += 20;
	b.vm.pgscan_direct += 2000;
	b.vm.pgscan_kswapd = 0;
	b.vm.allocstall += 10;
	b.proc.utime += 100;
	b.psi.some_total = SAMPLE_UNKNOWN;
	sample_delta(&a, &b, &d);
	T_CHECK(d.secs == 2.0, "secs");
	T_CHECK(fabs(d.usr_pct - 25.0) < 1e-9 && fabs(d.sys_pct - 15.0) < 1e-9 &&
		fabs(d.idle_pct - 50.0) < 1e-9 && fabs(d.iowait_pct - 10.0) < 1e-9,
		"cpu shares %f %f", d.usr_pct, d.sys_pct);
	T_CHECK(d.pgscan_direct == 1000.0 && d.allocstall == 5.0, "rates");
	T_CHECK(d.pgscan_kswapd == 0.0, "counter at 0 in both is 0, not unknown");
	T_CHECK(isnan(d.psi_some_us), "unknown psi stays NAN");
	T_CHECK(isnan(d.cg_pgscan), "no cgroup stays NAN");
	T_CHECK(d.kswapd_cpu_s == 0.0 && d.proc_cpu_s > 0.0, "task cpu");
	T_CHECK(isnan(sample_rate(10, 5, 1.0)) && sample_diff(5, 10) == 5 &&
		!sample_known(sample_diff(SAMPLE_UNKNOWN, 1)), "diff");
}

/* Each reclaim rate comes from its own counter: counter i grows by i + 1 per second. */
static void test_delta_rates(void)
{
	struct sample a, b;
	struct sample_delta d;
	uint64_t *from[] = { &b.vm.pgscan_direct, &b.vm.pgsteal_direct,
		&b.vm.pgscan_kswapd, &b.vm.pgsteal_kswapd, &b.vm.pgscan_file,
		&b.vm.pgsteal_file, &b.vm.allocstall, &b.psi.some_total,
		&b.psi.full_total, &b.cg.pgscan, &b.cg.pgsteal,
		&b.cg.pgscan_direct, &b.cg.pgscan_kswapd };
	const double *to[] = { &d.pgscan_direct, &d.pgsteal_direct,
		&d.pgscan_kswapd, &d.pgsteal_kswapd, &d.pgscan_file,
		&d.pgsteal_file, &d.allocstall, &d.psi_some_us, &d.psi_full_us,
		&d.cg_pgscan, &d.cg_pgsteal, &d.cg_pgscan_direct,
		&d.cg_pgscan_kswapd };
	const size_t n = sizeof(from) / sizeof(from[0]);

	_Static_assert(sizeof(from) / sizeof(from[0]) == sizeof(to) / sizeof(to[0]),
		       "one rate per counter");
	memset(&a, 0, sizeof(a));
	b = a;
	b.time = 4.0;
	for (size_t i = 0; i < n; i++)
		*from[i] = 4 * (i + 1);
	sample_delta(&a, &b, &d);
	for (size_t i = 0; i < n; i++)
		T_CHECK(d.secs == 4.0 && *to[i] == (double)(i + 1),
			"rate %zu is %f, want %zu", i, *to[i], i + 1);
}

/* The live system: this machine has /proc/stat, meminfo and vmstat. */
static void test_live(void)
{
	struct sample a, b;
	struct sample_delta d;

	T_CHECK(!sample_take(&a, NULL), "take live");
	T_CHECK(a.mem_ok && a.vm_ok && a.proc_ok && a.threads >= 1, "live sections");
	T_CHECK(sample_known(a.mem.total) && a.mem.total > 0, "MemTotal");
	T_CHECK(!sample_take(&b, NULL), "take live again");
	sample_delta(&a, &b, &d);
	T_CHECK(d.secs >= 0 && !isnan(d.pgscan_direct), "live delta");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		t_fail("usage: %s FIXTURES_DIR", argv[0]);
	snprintf(fx, sizeof(fx), "%s", argv[1]);
	test_host();
	test_host_tasks();
	test_task_kind();
	test_kswapd_known();
	test_cgroup_v1();
	test_cgroup_v2();
	test_cgroup_hybrid();
	test_cgroup_locate();
	test_cgroup_text();
	test_live_cgroup();
	test_edited();
	test_empty_and_none();
	test_delta();
	test_delta_rates();
	test_live();
	printf("sample parsers: ok\n");
	return T_EXIT_PASS;
}
