/* SPDX-License-Identifier: MIT */
/*
 * doctor: findings about a host (ok, warn, info; evidence; what to do),
 * the checks that produce them and their text and JSON output.  Checks that
 * only read /proc and /sys go through sample.c with a root prefix, so tests
 * run them on fixture trees; live probes create temp files and time reads.
 */
#ifndef PC_CLI_DOCTOR_H
#define PC_CLI_DOCTOR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum doctor_level {
	DOCTOR_OK,
	DOCTOR_INFO,
	DOCTOR_WARN,
};

struct finding {
	enum doctor_level level;
	char id[96];			/* stable key, e.g. "vm.zone_reclaim_mode" */
	char area[16];			/* kernel, memory, block, now, vm, fs, copy */
	char title[192];
	char evidence[512];
	char action[640];
};

#define DOCTOR_MAX_FS 8

/*
 * What the checks found, as figures, for the answer (doctor-answer.c):
 * SAMPLE_UNKNOWN (or -1, "") where a check could not tell.
 */
struct doctor_facts {
	int kver;			/* 6 * 1000 + 18; 0 unknown */
	char release[64];		/* "6.18.4-...", cut at 63 */
	int uring;			/* 1 enabled, 0 disabled or restricted, -1 unknown */
	uint64_t mem_total;		/* bytes */
	int numa_nodes;			/* 0 unknown */
	uint64_t wsf;			/* vm.watermark_scale_factor */
	uint64_t zone_reclaim;		/* vm.zone_reclaim_mode */
	uint64_t cg_limit;		/* bytes; 0 no limit; SAMPLE_UNKNOWN no cgroup */
	struct {
		char type[16];
		int large_folios;	/* 1 on this kernel, 0 not yet, -1 unknown */
		int lf_since;		/* kernel version that brought them, 0 unknown */
		int dontcache_since;	/* version that opted in to RWF_DONTCACHE, 0 never */
	} fs[DOCTOR_MAX_FS];
	unsigned int nfs;
	unsigned int ndisks;		/* block devices under the data file systems */
	char disk_first[32], disk_last[32];
	uint64_t max_sectors_kb;	/* the smallest of them */
	uint64_t small_kb;		/* largest request from 4 KiB pages, smallest */
	uint64_t read_ahead_kb;		/* the smallest */
	int dontcache;			/* probed: 1 works somewhere, 0 refused, -1 not probed */
	int balloon_reporting;		/* 1 free page reporting, 0 not, -1 no balloon */
};

/* One step of the answer: what to do, and the finding and figure behind it. */
struct doctor_step {
	char id[32];			/* "strategy", "vm.watermark_scale_factor", ... */
	char what[384];
	char because[512];
};

#define DOCTOR_MAX_STEPS 12

struct doctor {
	const char *root;		/* NULL for the live system */
	struct doctor_facts facts;	/* doctor_facts_init(), then the checks */
	int live;			/* may probe and time: not on fixtures */
	unsigned int now_ms;		/* how long to watch reclaim and PSI */
	struct finding *findings;
	size_t count, cap;
	int oom;			/* a finding could not be stored */
};

/*
 * Add a finding and return it so its evidence and action can be set; NULL
 * when out of memory (the setters accept NULL).
 */
struct finding *doctor_add(struct doctor *d, enum doctor_level level,
			   const char *area, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void finding_evidence(struct finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void finding_action(struct finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void doctor_release(struct doctor *d);

/* A line of /proc/self/mountinfo. */
struct doctor_mount {
	unsigned int major, minor;
	char dir[512];
	char type[32];
	char source[256];
	char opts[256];			/* mount options, then the super block's */
};

/*
 * The mounts of /proc/self/mountinfo under @root that hold files worth
 * streaming (disk, network and memory file systems, not proc, sysfs,
 * cgroup...), one per device, into a malloc'ed array.  0 or -errno.
 */
int doctor_read_mounts(const char *root, struct doctor_mount **ret,
		       size_t *ret_count);
/* The mount holding device @major:@minor in @m, or NULL. */
const struct doctor_mount *doctor_mount_of(const struct doctor_mount *m,
					   size_t n, unsigned int major,
					   unsigned int minor);

/* Checks that read /proc and /sys under d->root (doctor-checks.c). */
void doctor_check_kernel(struct doctor *d);
void doctor_check_memory(struct doctor *d);
void doctor_check_cgroup(struct doctor *d);
void doctor_check_block(struct doctor *d, const char *const *paths, size_t npaths);
void doctor_check_now(struct doctor *d);
void doctor_check_virt(struct doctor *d);
/* A counter as text into @buf: the number, or "unknown". */
const char *count_str(uint64_t v, char *buf, size_t size);

/*
 * Proactive reclaim (doctor-reclaim.c): DAMON schemes in sysfs with their
 * thresholds, the DAMON_RECLAIM module, memory.reclaim's vmstat counter.
 */
void doctor_check_reclaim(struct doctor *d);

/*
 * A temp file of @size bytes in @dir that nobody else sees: O_TMPFILE, or
 * a mkstemp() name unlinked at once (doctor-tempfile.c).  Returns the fd or
 * -errno.
 */
int doctor_temp_file(const char *dir, size_t size);
/*
 * An overlay at @where (doctor-overlay.c): its layers, and each strategy
 * tried for real on a temp file in it; what to do there into @advice ("" if
 * nothing was learnt).
 */
void doctor_probe_overlay(struct doctor *d, const char *where, char *advice, size_t size);

/* Live probes (doctor-probe.c): RWF_DONTCACHE per file system, copy speed. */
void doctor_probe_fs(struct doctor *d, const char *const *paths, size_t npaths);
void doctor_probe_copy(struct doctor *d);

/* Start @f with everything unknown. */
void doctor_facts_init(struct doctor_facts *f);
/*
 * The answer to "is there any tuning?" for the host @f describes: what to
 * do, in order, each with its finding and figure, into @ret (at most
 * DOCTOR_MAX_STEPS); returns the count.  Pure: tests feed it fixture trees'
 * facts (doctor-answer.c).
 */
size_t doctor_answer(const struct doctor_facts *f, struct doctor_step *ret);

/* Output (doctor-out.c): the answer first, then the findings. */
const char *doctor_level_name(enum doctor_level level);
void doctor_print_text(const struct doctor *d, const struct doctor_step *steps,
			size_t nsteps, FILE *out);
void doctor_print_json(const struct doctor *d, const struct doctor_step *steps,
		       size_t nsteps, FILE *out);
#endif
