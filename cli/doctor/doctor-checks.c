// SPDX-License-Identifier: MIT
/*
 * doctor's read-only checks: kernel features, memory and vm sysctls, the
 * memory cgroup, pressure and reclaim now, and virtual-machine effects.
 * Everything is read through sample.c under d->root, so the same rules run
 * on fixture trees with known answers.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "doctor.h"
#include "sample.h"
#include "trace.h"

/* Human size: "24.0 GiB", "228 KiB", or "unknown". */
static const char *hsize(uint64_t bytes, char *buf, size_t size)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	if (!sample_known(bytes)) {
		snprintf(buf, size, "unknown");
		return buf;
	}
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, u >= 3 ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

const char *count_str(uint64_t v, char *buf, size_t size)
{
	if (sample_known(v))
		snprintf(buf, size, "%llu", (unsigned long long)v);
	else
		snprintf(buf, size, "unknown");
	return buf;
}

/* A rate or share as text with @dec decimals, or "unknown". */
static const char *num_str(double v, int dec, char *buf, size_t size)
{
	if (isnan(v))
		snprintf(buf, size, "unknown");
	else
		snprintf(buf, size, "%.*f", dec, v);
	return buf;
}

/* Parse "6.18.44-..." into a comparable 6 * 1000 + 18; 0 when it does not parse. */
static int kernel_version(const char *release)
{
	int maj, min;

	if (sscanf(release, "%d.%d", &maj, &min) != 2)
		return 0;
	return maj * 1000 + min;
}

static int read_kernel_version(struct doctor *d, char *rel, size_t size)
{
	if (sample_read_text(d->root, "/proc/sys/kernel/osrelease", rel, size)) {
		snprintf(rel, size, "unknown");
		return 0;
	}
	return kernel_version(rel);
}

static void check_version(struct doctor *d, const char *rel, int v)
{
	struct finding *f;

	d->facts.kver = v;
	snprintf(d->facts.release, sizeof(d->facts.release), "%.63s", rel);
	if (!v) {
		f = doctor_add(d, DOCTOR_INFO, "kernel", "kernel.version",
			       "kernel version unknown");
		finding_evidence(f, "/proc/sys/kernel/osrelease is unreadable");
		return;
	}
	if (v >= 6014) {
		f = doctor_add(d, DOCTOR_OK, "kernel", "kernel.version",
			       "Linux %s has RWF_DONTCACHE (6.14+)", rel);
		finding_evidence(f, "osrelease %s; file systems opt in: XFS 6.16 (not 6.15: "
				 "switched off before it shipped), ext4 6.17, NFS client 6.18, "
				 "btrfs never", rel);
		finding_action(f, "stream big files with `pagecliff cat` or the library's auto "
			       "mode, or fio 3.40+ --uncached=1 (fio 3.33's `uncached` sets 0x40, "
			       "now RWF_ATOMIC: do not use it)");
		return;
	}
	f = doctor_add(d, DOCTOR_WARN, "kernel", "kernel.version",
		       "Linux %s has no RWF_DONTCACHE (needs 6.14+)", rel);
	finding_evidence(f, "osrelease %s", rel);
	finding_action(f, "stream with drop-behind (`pagecliff cat --mode dropbehind`, "
		       "dd iflag=nocache) or O_DIRECT; XFS gets DONTCACHE in 6.16, ext4 in 6.17");
}

/* Features known by kernel version alone, for fixtures; live runs probe them. */
static void check_version_features(struct doctor *d, int v)
{
	struct finding *f;

	if (!v || d->live)
		return;
	f = doctor_add(d, v >= 6005 ? DOCTOR_OK : DOCTOR_INFO, "kernel", "kernel.cachestat",
		       "cachestat(2) %s", v >= 6005 ? "available (6.5+)" : "missing (< 6.5)");
	finding_evidence(f, "by kernel version; not probed");
	finding_action(f, "%s", v >= 6005 ? "page-cache counts of a file are cheap" :
		       "mincore(2) on a mapping counts cached pages instead");
	f = doctor_add(d, v >= 6001 ? DOCTOR_OK : DOCTOR_INFO, "kernel", "kernel.dioalign",
		       "STATX_DIOALIGN %s", v >= 6001 ? "available (6.1+)" : "missing (< 6.1)");
	finding_evidence(f, "by kernel version; not probed");
	finding_action(f, "%s", v >= 6001 ? "O_DIRECT alignment is asked, not guessed" :
		       "align O_DIRECT buffers and offsets to the logical block size");
}

static void check_uring(struct doctor *d)
{
	uint64_t v;
	struct finding *f;

	if (sample_read_u64(d->root, "/proc/sys/kernel/io_uring_disabled", &v)) {
		/* the sysctl came in 6.6; io_uring itself in 5.1 */
		d->facts.uring = d->facts.kver >= 5001 ? 1 : d->facts.kver ? 0 : -1;
		f = doctor_add(d, DOCTOR_INFO, "kernel", "kernel.io_uring",
			       "no kernel.io_uring_disabled sysctl");
		finding_evidence(f, "/proc/sys/kernel/io_uring_disabled is missing "
				 "(kernel < 6.6, or io_uring not built)");
		finding_action(f, "O_DIRECT through io_uring needs it; `pagecliff doctor` "
			       "probes ring creation on each file system below");
		return;
	}
	d->facts.uring = v == 0;
	f = doctor_add(d, v ? DOCTOR_WARN : DOCTOR_OK, "kernel", "kernel.io_uring",
		       "io_uring %s", v == 0 ? "enabled" : v == 1 ?
		       "restricted to kernel.io_uring_group" : "disabled");
	finding_evidence(f, "kernel.io_uring_disabled = %llu", (unsigned long long)v);
	finding_action(f, "%s", v ? "sysctl kernel.io_uring_disabled=0 (or join the group): "
		       "without io_uring, O_DIRECT needs many threads to reach device speed" :
		       "O_DIRECT with several reads in flight (`pagecliff cat --mode direct`) "
		       "reaches device speed from one thread");
}

static void check_mglru(struct doctor *d)
{
	uint64_t ttl = SAMPLE_UNKNOWN;
	struct finding *f;
	char buf[64];

	if (sample_read_text(d->root, "/sys/kernel/mm/lru_gen/enabled", buf, sizeof(buf))) {
		f = doctor_add(d, DOCTOR_INFO, "kernel", "kernel.mglru",
			       "MGLRU not built in");
		finding_evidence(f, "/sys/kernel/mm/lru_gen/enabled is missing (CONFIG_LRU_GEN)");
		finding_action(f, "a kernel with MGLRU (6.1+) reported +47%% on buffered random "
			       "reads; for big streams DONTCACHE or drop-behind matter more");
		return;
	}
	if (strtoull(buf, NULL, 0) == 0) {
		f = doctor_add(d, DOCTOR_INFO, "kernel", "kernel.mglru", "MGLRU built in but off");
		finding_evidence(f, "/sys/kernel/mm/lru_gen/enabled = %s", buf);
		finding_action(f, "echo y > /sys/kernel/mm/lru_gen/enabled (root), then compare "
			       "with `pagecliff bench`");
		return;
	}
	f = doctor_add(d, DOCTOR_OK, "kernel", "kernel.mglru", "MGLRU on");
	if (sample_read_u64(d->root, "/sys/kernel/mm/lru_gen/min_ttl_ms", &ttl) || !ttl) {
		finding_evidence(f, "/sys/kernel/mm/lru_gen/enabled = %s, min_ttl_ms = %s", buf,
				 ttl ? "unknown" : "0");
		return;
	}
	finding_evidence(f, "/sys/kernel/mm/lru_gen/enabled = %s, min_ttl_ms = %llu: the "
			 "working set of the last %llu ms is kept; when it cannot be, the OOM "
			 "killer runs instead of reclaim", buf, (unsigned long long)ttl,
			 (unsigned long long)ttl);
}

/*
 * Transparent huge pages: pagecliff's direct buffers ask for them
 * (MADV_HUGEPAGE), so that a read reaches the device in one request, not
 * one per max_segments small pages.  "never" takes that away.
 */
static void check_thp(struct doctor *d)
{
	struct finding *f;
	char buf[128], mode[32] = "unknown";
	const char *a, *b;
	int never;

	if (sample_read_text(d->root, "/sys/kernel/mm/transparent_hugepage/enabled",
			     buf, sizeof(buf)))
		return;
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (a && b && b - a - 1 < (long)sizeof(mode))
		snprintf(mode, sizeof(mode), "%.*s", (int)(b - a - 1), a + 1);
	never = !strcmp(mode, "never");
	f = doctor_add(d, never ? DOCTOR_WARN : DOCTOR_INFO, "kernel", "kernel.thp",
		       "transparent huge pages: %s", mode);
	finding_evidence(f, "/sys/kernel/mm/transparent_hugepage/enabled = %s", buf);
	if (never)
		finding_action(f, "O_DIRECT reads from small pages split at the device's "
			       "max_segments (see block below; on a virtio disk 4 MiB reads "
			       "went as 512 KiB requests at half the speed): echo madvise > "
			       "/sys/kernel/mm/transparent_hugepage/enabled (root)");
	else
		finding_action(f, "pagecliff's direct reads of files from 256 MiB, and its "
			       "buffers from 1 MiB, ask for huge pages (MADV_HUGEPAGE), so those "
			       "reads reach the device unsplit; the page cache's large folios "
			       "depend on the file system (see fs below)");
}

/*
 * Whether bench and watch can measure reclaim and lock-wait time from the
 * tracepoints: built with BPF, kernel BTF, and (live) the privilege to load.
 * Live runs load the program once and unload it; fixtures look at files.
 */
static void check_trace(struct doctor *d)
{
	char why[160] = "", path[512];
	struct finding *f;
	struct trace *t;
	int btf = !sample_path(d->root, "/sys/kernel/btf/vmlinux", path, sizeof(path)) &&
		  !access(path, R_OK);

	if (!trace_built())
		snprintf(why, sizeof(why), "this pagecliff was built without BPF support");
	else if (!btf)
		snprintf(why, sizeof(why), "no kernel BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)");
	else if (d->live && !trace_open(&t, getpid(), why, sizeof(why)))
		trace_close(t);
	f = doctor_add(d, why[0] ? DOCTOR_INFO : DOCTOR_OK, "kernel", "kernel.trace",
		       "kernel-event tracing (reclaim and lock-wait time) %s",
		       why[0] ? "unavailable" : d->live ? "available" : "possible");
	finding_evidence(f, "%s", why[0] ? why : d->live ? "the BPF program loaded and attached "
			 "to vmscan, lock and writeback tracepoints, then was unloaded" :
			 "built with BPF and kernel BTF present; not loaded (fixture)");
	finding_action(f, "%s", why[0] ? "bench and watch use the /proc counters only; tracing "
		       "needs a build with libbpf, clang and bpftool (meson -Dbpf=enabled), kernel "
		       "BTF, tracepoints vmscan:*, lock:contention_*, writeback:balance_dirty_pages, "
		       "and root or CAP_BPF with CAP_PERFMON" :
		       "bench's timeline and verdict and watch show the time spent in reclaim and "
		       "lock waits, and which locks");
}

void doctor_check_kernel(struct doctor *d)
{
	char rel[128];
	int v = read_kernel_version(d, rel, sizeof(rel));

	check_version(d, rel, v);
	check_version_features(d, v);
	check_uring(d);
	check_mglru(d);
	check_thp(d);
	check_trace(d);
}

static void check_meminfo(struct doctor *d, struct sample_meminfo *m)
{
	char t[32], c[32], dd[32], w[32], a[32];
	struct finding *f;

	if (sample_read_meminfo(d->root, m)) {
		f = doctor_add(d, DOCTOR_INFO, "memory", "memory.total",
			       "cannot read /proc/meminfo");
		return;
	}
	d->facts.mem_total = m->total;
	f = doctor_add(d, DOCTOR_INFO, "memory", "memory.total",
		       "%s RAM, %s page cache, %s available", hsize(m->total, t, sizeof(t)),
		       hsize(m->cached, c, sizeof(c)), hsize(m->available, a, sizeof(a)));
	finding_evidence(f, "/proc/meminfo: MemTotal %s, Cached %s, Dirty %s, Writeback %s",
			 t, c, hsize(m->dirty, dd, sizeof(dd)), hsize(m->writeback, w, sizeof(w)));
	finding_action(f, "a buffered stream falls off the cliff after about %s (available "
		       "memory) of data; past that, read it with DONTCACHE or drop-behind", a);
}

/* Per-node MemTotal from /sys/devices/system/node/nodeN/meminfo. */
static int numa_nodes(struct doctor *d, char *list, size_t size)
{
	char dir[PATH_MAX], rel[300], buf[8192];
	struct dirent *de;
	DIR *dp;
	int n = 0;
	size_t used = 0;

	list[0] = '\0';
	if (sample_path(d->root, "/sys/devices/system/node", dir, sizeof(dir)) ||
	    !(dp = opendir(dir)))
		return -1;
	while ((de = readdir(dp))) {
		unsigned long long kb = 0;
		const char *p;
		char sz[32];

		if (strncmp(de->d_name, "node", 4) || !strchr("0123456789", de->d_name[4]) ||
		    !de->d_name[4])
			continue;
		n++;
		snprintf(rel, sizeof(rel), "/sys/devices/system/node/%s/meminfo", de->d_name);
		if (!sample_read_text(d->root, rel, buf, sizeof(buf)) &&
		    (p = strstr(buf, "MemTotal:")))
			sscanf(p, "MemTotal: %llu", &kb);
		if (used < size)
			used += (size_t)snprintf(list + used, size - used, "%s%s %s",
						 n > 1 ? ", " : "", de->d_name,
						 hsize(kb * 1024, sz, sizeof(sz)));
	}
	closedir(dp);
	return n;
}

static void check_numa(struct doctor *d)
{
	char list[512];
	int n = numa_nodes(d, list, sizeof(list));
	struct finding *f;

	if (n <= 0) {
		f = doctor_add(d, DOCTOR_INFO, "memory", "memory.numa",
			       "no NUMA information");
		finding_evidence(f, "/sys/devices/system/node has no nodes");
		return;
	}
	d->facts.numa_nodes = n;
	f = doctor_add(d, DOCTOR_INFO, "memory", "memory.numa", "%d NUMA node%s", n,
		       n > 1 ? "s" : "");
	finding_evidence(f, "%s", list);
	finding_action(f, "%s", n > 1 ? "one kswapd per node; in the report, binding readers "
		       "and memory to the disk's node did not help: cut page-cache churn instead "
		       "(DONTCACHE, drop-behind)" : "one kswapd reclaims for all readers");
}

/* Read vm.@name; SAMPLE_UNKNOWN when missing. */
static uint64_t vm_sysctl(struct doctor *d, const char *name)
{
	char rel[128];
	uint64_t v;

	snprintf(rel, sizeof(rel), "/proc/sys/vm/%s", name);
	return sample_read_u64(d->root, rel, &v) ? SAMPLE_UNKNOWN : v;
}

static void check_watermark(struct doctor *d, const struct sample_meminfo *m)
{
	uint64_t wsf = vm_sysctl(d, "watermark_scale_factor");
	uint64_t mfk = vm_sysctl(d, "min_free_kbytes");
	struct finding *f;
	char sz[32];

	d->facts.wsf = wsf;
	if (sample_known(wsf)) {
		f = doctor_add(d, wsf <= 10 ? DOCTOR_INFO : DOCTOR_OK, "memory",
			       "vm.watermark_scale_factor",
			       "vm.watermark_scale_factor is %llu%s", (unsigned long long)wsf,
			       wsf == 10 ? " (the default)" : "");
		finding_evidence(f, "kswapd wakes when free memory falls %.2f%% of RAM above "
				 "the min watermark", (double)wsf / 100.0);
		finding_action(f, "%s", wsf <= 10 ? "raising it (sysctl vm.watermark_scale_factor="
			       "200, max 1000) wakes kswapd before readers fall into direct reclaim; "
			       "check the effect with `pagecliff bench`" :
			       "kswapd starts early; `pagecliff watch` shows whether readers still "
			       "enter direct reclaim");
	}
	if (sample_known(mfk)) {
		f = doctor_add(d, DOCTOR_INFO, "memory", "vm.min_free_kbytes",
			       "vm.min_free_kbytes is %llu (%s)", (unsigned long long)mfk,
			       hsize(mfk * 1024, sz, sizeof(sz)));
		if (sample_known(m->total) && m->total)
			finding_evidence(f, "%.2f%% of RAM", 100.0 * (double)mfk * 1024 /
					 (double)m->total);
		finding_action(f, "leave it; watermark_scale_factor moves kswapd's wake-up "
			       "without reserving more memory");
	}
}

static void check_zone_reclaim(struct doctor *d)
{
	uint64_t v = vm_sysctl(d, "zone_reclaim_mode");
	struct finding *f;

	d->facts.zone_reclaim = v;
	if (!sample_known(v))
		return;
	f = doctor_add(d, v ? DOCTOR_WARN : DOCTOR_OK, "memory", "vm.zone_reclaim_mode",
		       "vm.zone_reclaim_mode is %llu", (unsigned long long)v);
	finding_evidence(f, "%s", v ? "allocations reclaim the local node's page cache before "
			 "using free memory on other nodes" : "allocations use other nodes "
			 "before reclaiming locally");
	if (v)
		finding_action(f, "sysctl vm.zone_reclaim_mode=0: with it on, streaming readers "
			       "reclaim long before memory is full");
}

static void check_other_vm(struct doctor *d)
{
	uint64_t vcp = vm_sysctl(d, "vfs_cache_pressure");
	uint64_t sw = vm_sysctl(d, "swappiness");
	uint64_t dr = vm_sysctl(d, "dirty_ratio"), dbr = vm_sysctl(d, "dirty_background_ratio");
	uint64_t db = vm_sysctl(d, "dirty_bytes"), dbb = vm_sysctl(d, "dirty_background_bytes");
	struct finding *f;

	if (sample_known(vcp)) {
		f = doctor_add(d, DOCTOR_INFO, "memory", "vm.vfs_cache_pressure",
			       "vm.vfs_cache_pressure is %llu", (unsigned long long)vcp);
		finding_evidence(f, "100 is the default; it weighs inode and dentry caches, "
				 "not file pages");
	}
	if (sample_known(sw)) {
		f = doctor_add(d, DOCTOR_INFO, "memory", "vm.swappiness",
			       "vm.swappiness is %llu", (unsigned long long)sw);
		finding_evidence(f, "balance of anonymous against file reclaim");
		finding_action(f, "a stream's clean file pages are reclaimed first either way; "
			       "this matters only when anonymous memory is under pressure too");
	}
	if (sample_known(dr) || sample_known(db)) {
		f = doctor_add(d, DOCTOR_INFO, "memory", "vm.dirty",
			       "dirty limits: %s", db && sample_known(db) ? "bytes" : "ratios");
		char a[24], b[24], c[24], e[24];

		finding_evidence(f, "dirty_ratio %s, dirty_background_ratio %s, dirty_bytes "
				 "%s, dirty_background_bytes %s", count_str(dr, a, sizeof(a)),
				 count_str(dbr, b, sizeof(b)), count_str(db, c, sizeof(c)),
				 count_str(dbb, e, sizeof(e)));
		finding_action(f, "reads are clean pages; these matter when a writer shares the "
			       "machine: dirty pages cannot be reclaimed until written back");
	}
}

void doctor_check_memory(struct doctor *d)
{
	struct sample_meminfo m;

	check_meminfo(d, &m);
	check_numa(d);
	check_watermark(d, &m);
	check_zone_reclaim(d);
	check_other_vm(d);
}

void doctor_check_cgroup(struct doctor *d)
{
	char dir[PATH_MAX], lim[32], use[32], fil[32];
	struct sample_cgroup cg;
	struct finding *f;

	if (sample_find_cgroup(d->root, 0, dir, sizeof(dir)) || sample_read_cgroup(dir, &cg)) {
		f = doctor_add(d, DOCTOR_INFO, "memory", "memory.cgroup",
			       "no memory cgroup found for this process");
		finding_evidence(f, "/proc/self/cgroup names no readable memory controller");
		return;
	}
	d->facts.cg_limit = sample_known(cg.limit_eff) ? cg.limit_eff : 0;
	if (!sample_known(cg.limit_eff)) {
		f = doctor_add(d, DOCTOR_OK, "memory", "memory.cgroup",
			       "memory cgroup v%d without a limit", cg.version);
		finding_evidence(f, "%s and the groups above it: no limit, page cache %s",
				 dir, hsize(cg.file, fil, sizeof(fil)));
		finding_action(f, "the cliff comes at RAM size");
		return;
	}
	f = doctor_add(d, DOCTOR_INFO, "memory", "memory.cgroup",
		       "memory cgroup v%d caps this process at %s%s", cg.version,
		       hsize(cg.limit_eff, lim, sizeof(lim)),
		       cg.limit == cg.limit_eff ? "" : " (set above its own group)");
	finding_evidence(f, "%s: limit %s, usage %s, page cache %s", dir,
			 sample_known(cg.limit) ? lim : "none of its own",
			 hsize(cg.usage, use, sizeof(use)), hsize(cg.file, fil, sizeof(fil)));
	finding_action(f, "the cliff comes after about %s of buffered reads, not RAM size; "
		       "reclaim in a cgroup shows as pgscan_file, not pgscan_direct "
		       "(`pagecliff watch`)", lim);
}

/* Sleep @ms milliseconds. */
static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void check_psi(struct doctor *d, const struct sample *s)
{
	char v[4][24];
	struct finding *f;

	if (!s->psi_ok) {
		f = doctor_add(d, DOCTOR_INFO, "now", "now.psi", "no pressure stall information");
		finding_evidence(f, "/proc/pressure/memory is missing");
		finding_action(f, "boot with psi=1 (CONFIG_PSI) to see how long tasks stall "
			       "on memory");
		return;
	}
	if (s->psi.some_avg10 >= 1.0 || (!isnan(s->psi.full_avg10) && s->psi.full_avg10 >= 1.0)) {
		f = doctor_add(d, DOCTOR_WARN, "now", "now.psi",
			       "tasks stall on memory now: some %s%%, full %s%% (avg10)",
			       num_str(s->psi.some_avg10, 2, v[0], sizeof(v[0])),
			       num_str(s->psi.full_avg10, 2, v[1], sizeof(v[1])));
		finding_action(f, "if a buffered stream runs, switch it to DONTCACHE or "
			       "drop-behind; `pagecliff watch` shows direct against kswapd reclaim");
	} else {
		f = doctor_add(d, DOCTOR_OK, "now", "now.psi", "no memory pressure now");
	}
	finding_evidence(f, "/proc/pressure/memory: some avg10 %s avg60 %s, full avg10 "
			 "%s avg60 %s", num_str(s->psi.some_avg10, 2, v[0], sizeof(v[0])),
			 num_str(s->psi.some_avg60, 2, v[1], sizeof(v[1])),
			 num_str(s->psi.full_avg10, 2, v[2], sizeof(v[2])),
			 num_str(s->psi.full_avg60, 2, v[3], sizeof(v[3])));
}

static void check_reclaim(struct doctor *d, const struct sample *a,
			  const struct sample *b)
{
	char scan[24], stall[24], r[4][24];
	struct sample_delta dl;
	struct finding *f;

	if (!b->vm_ok) {
		f = doctor_add(d, DOCTOR_INFO, "now", "now.reclaim", "cannot read /proc/vmstat");
		return;
	}
	sample_delta(a, b, &dl);
	if (dl.pgscan_direct > 0 || dl.allocstall > 0) {
		f = doctor_add(d, DOCTOR_WARN, "now", "now.reclaim",
			       "direct reclaim now: %.0f pages/s scanned by allocating tasks",
			       dl.pgscan_direct);
		finding_action(f, "readers pay for reclaim themselves (the report's cliff): "
			       "stream with DONTCACHE or drop-behind, raise "
			       "vm.watermark_scale_factor");
	} else if (dl.pgscan_kswapd > 0 || dl.pgscan_file > 0) {
		f = doctor_add(d, DOCTOR_INFO, "now", "now.reclaim",
			       "reclaim now without direct reclaim: kswapd %.0f, file %.0f pages/s",
			       dl.pgscan_kswapd, dl.pgscan_file);
		finding_action(f, "kswapd or a cgroup limit keeps up; `pagecliff watch` shows "
			       "whether it stays that way");
	} else if (sample_known(b->vm.pgscan_direct) && b->vm.pgscan_direct > 0) {
		f = doctor_add(d, DOCTOR_INFO, "now", "now.reclaim",
			       "no reclaim now, but direct reclaim happened since boot");
		finding_action(f, "run `pagecliff watch` during the workload to see when");
	} else {
		f = doctor_add(d, DOCTOR_OK, "now", "now.reclaim", "no reclaim now");
	}
	finding_evidence(f, "over %.1f s: pgscan_direct %s/s, pgscan_kswapd %s/s, "
			 "pgscan_file %s/s, allocstall %s/s; since boot pgscan_direct %s, "
			 "allocstall %s", dl.secs, num_str(dl.pgscan_direct, 0, r[0], sizeof(r[0])),
			 num_str(dl.pgscan_kswapd, 0, r[1], sizeof(r[1])),
			 num_str(dl.pgscan_file, 0, r[2], sizeof(r[2])),
			 num_str(dl.allocstall, 1, r[3], sizeof(r[3])),
			 count_str(b->vm.pgscan_direct, scan, sizeof(scan)),
			 count_str(b->vm.allocstall, stall, sizeof(stall)));
}

void doctor_check_now(struct doctor *d)
{
	struct sample_opts o = { .root = d->root };
	struct sample a, b;

	if (sample_take(&a, &o)) {
		doctor_add(d, DOCTOR_INFO, "now", "now.reclaim", "cannot read /proc/stat");
		return;
	}
	if (d->now_ms)
		sleep_ms(d->now_ms);
	if (sample_take(&b, &o))
		b = a;
	check_psi(d, &b);
	check_reclaim(d, &a, &b);
}

/* Bit @bit of a virtio "features" string ("0110...", bit 0 first). */
static int feature_bit(const char *features, size_t bit)
{
	return strlen(features) > bit && features[bit] == '1';
}

/* Find a virtio balloon and its features; 1 found, 0 none. */
static int find_balloon(struct doctor *d, char *features, size_t size)
{
	static const char drv[] = "/sys/bus/virtio/drivers/virtio_balloon";
	char dir[PATH_MAX], rel[512];
	struct dirent *de;
	DIR *dp;
	int found = 0;

	if (sample_path(d->root, drv, dir, sizeof(dir)) || !(dp = opendir(dir)))
		return 0;
	while (!found && (de = readdir(dp))) {
		if (strncmp(de->d_name, "virtio", 6))
			continue;
		snprintf(rel, sizeof(rel), "%s/%s/features", drv, de->d_name);
		found = !sample_read_text(d->root, rel, features, size);
	}
	closedir(dp);
	return found;
}

static void check_balloon(struct doctor *d)
{
	enum { F_REPORTING = 5, F_FREE_PAGE_HINT = 3 };
	char features[256];
	struct finding *f;

	if (!find_balloon(d, features, sizeof(features)))
		return;
	d->facts.balloon_reporting = feature_bit(features, F_REPORTING);
	if (!feature_bit(features, F_REPORTING)) {
		f = doctor_add(d, DOCTOR_INFO, "vm", "vm.balloon",
			       "virtio balloon without free page reporting");
		finding_evidence(f, "virtio_balloon features %.16s...", features);
		finding_action(f, "memory stays backed by the host unless the balloon inflates");
		return;
	}
	f = doctor_add(d, DOCTOR_WARN, "vm", "vm.balloon",
		       "virtio balloon with free page reporting: first touch of memory is slow");
	finding_evidence(f, "virtio_balloon features %.16s... (bit 5, REPORTING, set)", features);
	finding_action(f, "memory freed a while ago goes back to the host; a buffered read that "
		       "grows the cache into it fell from ~6 to ~0.25 GB/s here until the cache "
		       "reached its cap. Do not read that drop as the cliff: keep memory caps "
		       "<= 1 GiB or touch the memory first, and rerun");
}

static void check_steal(struct doctor *d)
{
	struct sample_cpu c;
	struct finding *f;
	double total, pct;

	if (sample_read_stat(d->root, &c) || !sample_known(c.steal))
		return;
	total = (double)(c.user + c.system + c.idle) +
		(sample_known(c.nice) ? (double)c.nice : 0) +
		(sample_known(c.iowait) ? (double)c.iowait : 0) +
		(sample_known(c.irq) ? (double)c.irq : 0) +
		(sample_known(c.softirq) ? (double)c.softirq : 0) + (double)c.steal;
	pct = total > 0 ? 100.0 * (double)c.steal / total : 0;
	f = doctor_add(d, pct >= 5 ? DOCTOR_WARN : pct >= 1 ? DOCTOR_INFO : DOCTOR_OK,
		       "vm", "cpu.steal", "CPU steal %.2f%% since boot", pct);
	finding_evidence(f, "/proc/stat: steal %llu of %.0f ticks",
			 (unsigned long long)c.steal, total);
	finding_action(f, "%s", pct >= 1 ? "the hypervisor takes CPU from the copy and from "
		       "reclaim: compare modes interleaved in one run and quote medians" :
		       "steal does not distort CPU per byte here");
}

void doctor_check_virt(struct doctor *d)
{
	check_balloon(d);
	check_steal(d);
}
