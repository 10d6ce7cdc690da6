/* SPDX-License-Identifier: MIT */
/*
 * sample: the one place that reads /proc and /sys, for bench, doctor and
 * watch.  Every reader takes a root prefix ("/" or NULL for the live system,
 * a fixture directory in tests) and every parser takes the file's text, so
 * tests can feed them copies and edited variants.  Counters the kernel does
 * not export stay SAMPLE_UNKNOWN (never 0), rates derived from them NAN.
 * Functions return 0 or -errno and never print.
 *
 * sample.c         the readers of each file, a memory cgroup's figures and
 *                  limits, sample_take() and the rates between two samples
 * sample-parse.c   the parsers: a file's text into a struct
 * sample-file.c    files under a root: paths, whole files, one number
 * sample-task.c    tasks of /proc: a process's CPU and D state, kswapd's CPU
 * sample-memcg.c   memory-cgroup discovery: the hierarchy, a process's cgroup
 * sample-internal.h  what those files share and nobody else needs
 *
 * They call in one direction only: sample.c -> task -> file -> parse, and
 * memcg -> file, parse; cgroup.c (memory cgroups bench makes) uses them all.
 */
#ifndef PC_CLI_SAMPLE_H
#define PC_CLI_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A counter or size the kernel did not report. */
#define SAMPLE_UNKNOWN UINT64_MAX

static inline int sample_known(uint64_t v)
{
	return v != SAMPLE_UNKNOWN;
}

/* Whole-system CPU from the "cpu" line of /proc/stat, in USER_HZ ticks. */
struct sample_cpu {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* /proc/meminfo, in bytes. */
struct sample_meminfo {
	uint64_t total, free, available, buffers, cached, shmem;
	uint64_t active_file, inactive_file, active_anon, inactive_anon;
	uint64_t dirty, writeback;
};

/*
 * Reclaim counters of /proc/vmstat, in pages.  allocstall is the sum of all
 * allocstall_* zones present.
 */
struct sample_vmstat {
	uint64_t pgscan_direct, pgsteal_direct, pgscan_kswapd, pgsteal_kswapd;
	uint64_t pgscan_file, pgsteal_file, pgscan_anon, pgsteal_anon;
	uint64_t allocstall, pgpgin, pgpgout, workingset_refault_file;
	uint64_t nr_dirty, nr_writeback;
};

/* PSI /proc/pressure/memory: averages in percent (NAN unknown), totals in us. */
struct sample_psi {
	double some_avg10, some_avg60, full_avg10, full_avg60;
	uint64_t some_total, full_total;
};

/*
 * A memory cgroup's memory.stat and limit.  v1 has "cache"/"total_cache"
 * (file is total_cache when present), v2 "file" and the pgscan family.
 * limit is SAMPLE_UNKNOWN when unlimited or unreadable; limit_eff is the
 * lowest limit of the group and its ancestors (v1 hierarchical_memory_limit,
 * v2 memory.max up the tree), the one that decides where the cliff is.
 */
struct sample_cgroup {
	int version;			/* 1, 2, or 0 when none was read */
	uint64_t file, active_file, inactive_file, dirty, writeback;
	uint64_t pgscan, pgsteal, pgscan_direct, pgscan_kswapd;
	uint64_t pgsteal_direct, pgsteal_kswapd;
	uint64_t pgpgout;		/* v1: uncharged folios, not pages */
	uint64_t usage, limit, limit_eff;
};

/* One line of /proc/diskstats. */
struct sample_disk {
	char name[32];
	uint64_t reads, sectors_read, writes, sectors_written, io_ms;
};

#define SAMPLE_MAX_DISKS 64

struct sample_disks {
	size_t count;
	int truncated;			/* more devices than SAMPLE_MAX_DISKS */
	struct sample_disk disk[SAMPLE_MAX_DISKS];
};

/* CPU of a task or a set of tasks, in USER_HZ ticks. */
struct sample_task {
	uint64_t utime, stime;
};

/* What sample_take() reads besides the system-wide files. */
/*
 * The kswapd threads a scan of /proc found, so that the samples after it
 * read their two files alone instead of every process's comm (thousands
 * of opens a sample on a busy host).  Kernel threads, one per node, that
 * live as long as it; one that is gone or renamed brings a new scan.
 */
#define SAMPLE_KSWAPD_MAX 64

struct sample_kswapd_pids {
	pid_t pid[SAMPLE_KSWAPD_MAX];
	unsigned int n;			/* 0: scan at the next sample */
};

struct sample_opts {
	const char *root;		/* NULL or "/" for the live system */
	const char *cgroup_dir;		/* memory cgroup to read, or NULL */
	pid_t pid;			/* process for CPU and D state, 0 = self */
	int disks;			/* read /proc/diskstats */
	int kswapd;			/* read the kswapd threads' CPU */
	struct sample_kswapd_pids *kswapd_pids;	/* kept between samples, or NULL:
						 * scan /proc every time */
};

/*
 * Everything one interval needs.  Sections that could not be read have
 * every field SAMPLE_UNKNOWN (or NAN); the *_ok flags say which were read.
 */
struct sample {
	double time;			/* monotonic seconds */
	struct sample_cpu cpu;
	struct sample_meminfo mem;
	struct sample_vmstat vm;
	struct sample_psi psi;
	struct sample_cgroup cg;
	struct sample_task proc;	/* the process (opts.pid) */
	struct sample_task kswapd;	/* all kswapd* threads together */
	unsigned int kswapd_threads;
	unsigned int dstate, threads;	/* of the process: in D state, all */
	struct sample_disks disks;
	int cpu_ok, mem_ok, vm_ok, psi_ok, cg_ok, proc_ok, kswapd_ok, disks_ok;
};

/* Per-interval figures between two samples; NAN where unknown. */
struct sample_delta {
	double secs;
	/* shares of all CPU ticks in the interval, percent */
	double usr_pct, sys_pct, iowait_pct, irq_pct, softirq_pct, idle_pct, steal_pct;
	double proc_cpu_s, kswapd_cpu_s;	/* CPU seconds used in the interval */
	/* per second, in pages */
	double pgscan_direct, pgsteal_direct, pgscan_kswapd, pgsteal_kswapd;
	double pgscan_file, pgsteal_file, allocstall;
	double psi_some_us, psi_full_us;	/* stall us per second */
	double cg_pgscan, cg_pgsteal, cg_pgscan_direct, cg_pgscan_kswapd;
};

/*
 * Parsers (sample-parse.c): fill *ret from a file's text (NUL-terminated).
 * 0 or -errno.
 */
int sample_parse_stat(const char *text, struct sample_cpu *ret);
int sample_parse_meminfo(const char *text, struct sample_meminfo *ret);
int sample_parse_vmstat(const char *text, struct sample_vmstat *ret);
int sample_parse_psi(const char *text, struct sample_psi *ret);
int sample_parse_memcg_stat(const char *text, int version, struct sample_cgroup *ret);
int sample_parse_diskstats(const char *text, struct sample_disks *ret);
/* /proc/PID/stat or /proc/PID/task/TID/stat: CPU and state letter. */
int sample_parse_task_stat(const char *text, struct sample_task *ret, char *ret_state);
/*
 * What kind of task /proc/PID/stat describes: its state letter (R, S, D, Z
 * for a zombie...), the kernel's PF_* flags (SAMPLE_PF_KTHREAD: a kernel
 * thread) and its process's number of threads (a leader that exited before
 * its other threads is a Z with more than one).
 */
#define SAMPLE_PF_KTHREAD 0x00200000u
struct sample_task_kind {
	char state;
	unsigned int flags;
	unsigned int threads;
};
int sample_parse_task_kind(const char *text, struct sample_task_kind *ret);

/*
 * Readers (sample.c, sample-task.c): @root is a directory prefix (NULL means
 * "/").  -ENOENT when the file is missing (no PSI, no NUMA...), -ENODATA
 * when it holds nothing.
 */
int sample_read_stat(const char *root, struct sample_cpu *ret);
int sample_read_meminfo(const char *root, struct sample_meminfo *ret);
int sample_read_vmstat(const char *root, struct sample_vmstat *ret);
int sample_read_psi(const char *root, struct sample_psi *ret);
int sample_read_diskstats(const char *root, struct sample_disks *ret);
/* A memory cgroup directory (absolute, not under @root); v1 or v2 by its files. */
int sample_read_cgroup(const char *dir, struct sample_cgroup *ret);
/* CPU of process @pid (0 = self) and how many of its threads are in D state. */
int sample_read_proc(const char *root, pid_t pid, struct sample_task *ret,
		     unsigned int *ret_dstate, unsigned int *ret_threads);
/* What kind of task process @pid is (sample_parse_task_kind). */
int sample_read_task_kind(const char *root, pid_t pid, struct sample_task_kind *ret);
/*
 * Sum of the CPU of all kswapd* kernel threads: those in @known when it
 * holds some and all of them still are, else found by a scan of /proc,
 * which fills @known (may be NULL).
 */
int sample_read_kswapd(const char *root, struct sample_kswapd_pids *known,
		       struct sample_task *ret, unsigned int *ret_threads);

/*
 * Memory cgroups (sample-memcg.c), found once for bench (cgroup.c), doctor and
 * watch.  The
 * kernel binds a controller to one hierarchy only, and one that no v1
 * hierarchy holds is bound to v2 and listed in the v2 root's
 * cgroup.controllers (Documentation/admin-guide/cgroup-v2.rst, "Mounting").
 * So the memory hierarchy is the cgroup2 mount when its cgroup.controllers
 * lists "memory", else the v1 cgroup mount with the "memory" option; a
 * hybrid host (v1 memory, v2 at /sys/fs/cgroup/unified without it) gets v1.
 */
/* From /proc/PID/cgroup's text, the path in hierarchy @version (1 or 2). */
int sample_parse_proc_cgroup(const char *text, int version, char *ret_path,
			     size_t size);
/* From /proc/mounts' text, the first mount point of hierarchy @version. */
int sample_parse_cgroup_mount(const char *text, int version, char *ret_dir,
			      size_t size);
/*
 * The hierarchy that has the memory controller: *ret_version (1 or 2) and
 * its mount point under @root.  -ENOENT when none has it.
 */
int sample_memcg_hierarchy(const char *root, int *ret_version, char *ret_mnt,
			   size_t size);
/*
 * Process @pid's (0 = self) cgroup directory in that hierarchy, under
 * @root, whether or not the memory controller is enabled in it.
 */
int sample_memcg_path(const char *root, pid_t pid, int *ret_version,
		      char *ret_dir, size_t size);
/*
 * The same directory when it is a memory cgroup one can read (v1
 * memory.limit_in_bytes, v2 memory.stat there), else -ENOENT.
 */
int sample_find_cgroup(const char *root, pid_t pid, char *ret_dir, size_t size);
/* Whether @word is one of the words of @list (separated by blanks or commas);
 * sample-parse.c. */
int sample_has_word(const char *list, const char *word);

/* Take one sample with @opts (NULL: system-wide files and self). */
int sample_take(struct sample *ret, const struct sample_opts *opts);

/* Per-interval figures from @a (earlier) to @b. */
void sample_delta(const struct sample *a, const struct sample *b,
		  struct sample_delta *ret);

/* @b - @a, SAMPLE_UNKNOWN when either is unknown or the counter went back. */
uint64_t sample_diff(uint64_t a, uint64_t b);
/* sample_diff() per second over @secs, NAN when unknown. */
double sample_rate(uint64_t a, uint64_t b, double secs);
/* Look a disk up by name in @disks, NULL when absent. */
const struct sample_disk *sample_disk_find(const struct sample_disks *disks,
					   const char *name);

/* Small helpers for doctor (sample-file.c): read @path under @root. */
/* The file's text into @buf (NUL-terminated, trailing newline removed). */
int sample_read_text(const char *root, const char *path, char *buf, size_t size);
/* A file holding one unsigned number. */
int sample_read_u64(const char *root, const char *path, uint64_t *ret);
/* The whole file into a malloc'ed NUL-terminated string (*ret_text). */
int sample_slurp(const char *root, const char *path, char **ret_text);
/* Join @root and @path into @buf; -ENAMETOOLONG when it does not fit. */
int sample_path(const char *root, const char *path, char *buf, size_t size);

#endif
