/* SPDX-License-Identifier: MIT */
/*
 * Memory cgroups for the CLI: create a pagecliff-<pid> cgroup with a memory
 * limit, put a process in it, read its usage and page cache, remove it, and
 * remove the ones a killed run left behind.  Works with the memory controller
 * on cgroup v2 (memory.max) or on v1 (memory.limit_in_bytes).
 *
 * On v1 the new cgroup is a child of the caller's own memory cgroup.  On v2
 * it is made inside the caller's own cgroup and nowhere else (a tool works in
 * the subtree delegated to it): <own>/pagecliff-<pid>/ with two leaves,
 * "leader", where the caller moves (v2 lets a cgroup with processes delegate
 * no controller), and "workers", which gets the limit.  Every function
 * returns 0 or -errno and never prints.
 */
#ifndef PC_CLI_CGROUP_H
#define PC_CLI_CGROUP_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

/* Prefix of every cgroup pagecliff creates; the creator's pid follows it. */
#define CGROUP_PREFIX "pagecliff-"

struct cgroup {
	int version;			/* 1 or 2 */
	char path[PATH_MAX];		/* the capped cgroup: v1 pagecliff-<pid>, v2 its "workers" */
	char top[PATH_MAX];		/* pagecliff-<pid>: what removal takes away */
	char leader[PATH_MAX];		/* v2: the leaf the caller moved to; "" on v1 */
	char home[PATH_MAX];		/* the caller's own cgroup, where tasks go back to */
	uint64_t limit;			/* bytes, as written */
	int lock_fd;			/* top's directory, flock held while it lives */
	int enabled_home;		/* v2: this run enabled the controller in home */
	int moved_tree;			/* v2: the caller's own tree moved to leader */
	char why[PATH_MAX + 256];			/* on failure, why in words (names the cgroup) */
};

/* What a memory cgroup holds now, as sample_read_cgroup() reads it. */
struct cgroup_usage {
	uint64_t usage;			/* v2 memory.current, v1 memory.usage_in_bytes */
	uint64_t cache;			/* v2 memory.stat file, v1 total_cache (cache
					 * with its children's: the same in a leaf) */
	uint64_t limit;			/* v2 memory.max, v1 memory.limit_in_bytes;
					 * UINT64_MAX when unlimited */
	uint64_t evicted;		/* v2 memory.stat pgsteal (pages); v1 pgpgout,
					 * which counts uncharged folios, not pages,
					 * and lags by the stats flush */
};

/*
 * Find a memory controller this process can use, by sample-memcg.c's rule
 * (the v2 hierarchy when its root lists "memory" in cgroup.controllers, else
 * v1's memory mount), so bench, doctor and watch see the same cgroup.  Sets
 * *ret_version (1 or 2) and, when @ret_dir is not NULL, the directory of the
 * caller's own cgroup in that hierarchy (PATH_MAX bytes).  -ENOENT when no
 * hierarchy has the memory controller.
 */
int cgroup_detect(int *ret_version, char *ret_dir);

/*
 * Create the memory cgroup pagecliff-<@tag> (the caller's pid when @tag is
 * 0; pagecliff-<tag>-N when another PID namespace's process has that name)
 * limited to @limit bytes, and fill *ret_cg.  On v2 this moves the caller
 * into its "leader" leaf (see above) and enables memory in its own cgroup's
 * subtree_control; that fails without touching anything when the own cgroup
 * cannot delegate memory: -EOPNOTSUPP when the controller is not available
 * there, -EBUSY when other processes live in it, -EACCES/-EPERM/-EROFS
 * when it is not writable.  The caller holds a flock on top's directory
 * until cgroup_remove() or death: that marks it alive.  -EINVAL for a limit
 * the kernel refuses.  On failure ret_cg->why says why and ret_cg->home
 * names the own cgroup; everything made is undone.
 */
int cgroup_create(struct cgroup *ret_cg, uint64_t limit, pid_t tag);

/*
 * cgroup_create() with @flags.  CGROUP_OWN_TREE: on v2, where the own cgroup
 * holds other processes, and all of them are the caller's own tree (the
 * topmost of its ancestors in that cgroup and that one's descendants: a
 * container's, a batch job's, the script that started it), move them all
 * into the leader too; cgroup_remove() moves them back.  Processes of
 * another tree are still -EBUSY, the first of them named in why.
 */
#define CGROUP_OWN_TREE 1u
int cgroup_create_flags(struct cgroup *ret_cg, uint64_t limit, pid_t tag, unsigned int flags);

/*
 * The v2 part of cgroup_create() for any domain controller @controller:
 * below the cgroup directory @own, make pagecliff-<@tag> (0: @pid) with the leaves
 * "leader" and "workers", move process @pid to the leader, and enable
 * @controller in own's and top's subtree_control.  Sets everything in *cg
 * but version (2), limit and the lock, which it takes too.  For tests, which
 * run it on a controller of their host's v2 hierarchy.
 */
int cgroup_v2_place(struct cgroup *cg, const char *own, const char *controller, pid_t tag,
		    pid_t pid);

/* How many processes other than @pid the v2 cgroup @dir holds, or -errno. */
int cgroup_v2_others(const char *dir, pid_t pid);

/*
 * Whether systemd delegated the cgroup @dir (a unit with Delegate=yes: it
 * marks the directory with the xattr trusted.delegate or user.delegate "1"),
 * so that what is below it is the caller's to make.
 */
int cgroup_delegated(const char *dir);

/* Undo cgroup_v2_place() for @controller: tasks back home, the tree removed. */
int cgroup_v2_unplace(struct cgroup *cg, const char *controller);

/* Move process @pid (all its threads) into @cg. */
int cgroup_attach(const struct cgroup *cg, pid_t pid);

/* Move process @pid (0: the caller) into the cgroup directory @dir. */
int cgroup_join_dir(const char *dir, pid_t pid);

/*
 * v1 only: move the one thread @tid, not its process, into the cgroup @dir
 * (its tasks file).  v1 charges a process's page cache and anonymous memory
 * to its leader's memory cgroup and a thread's kernel objects to the
 * thread's own, so a thread can live outside the limit its process's data
 * is held to.  v2 cgroups with the memory controller hold whole processes.
 */
int cgroup_move_thread(const char *dir, pid_t tid);

/* Read @cg's usage, page cache and limit into *ret_usage. */
int cgroup_read(const struct cgroup *cg, struct cgroup_usage *ret_usage);

/*
 * Read usage from a memory cgroup directory of hierarchy @version (0: as its
 * files say; another version than theirs is -EINVAL).  -ENODATA when
 * memory.stat or the usage holds no figure.
 */
int cgroup_read_dir(const char *dir, int version, struct cgroup_usage *ret_usage);

/*
 * Move every task of @cg back to its home cgroup and remove it (on v2 its
 * leaves too, and the controller this run enabled in home).  Retries a busy
 * rmdir for up to a second.  0 also when it is already gone.
 */
int cgroup_remove(struct cgroup *cg);

/*
 * Remove the cgroup directory @path of hierarchy @version and the cgroups
 * below it (their tasks moved to @path's parent first).  For state files
 * that recorded a path.
 */
int cgroup_remove_path(const char *path, int version);

/* Called by cgroup_remove_stale() for each stale cgroup: its path and the
 * result of removing it (0 or -errno). */
typedef void (*cgroup_stale_fn)(const char *path, int result, void *arg);

/*
 * Find pagecliff-<pid> cgroups whose pid does not exist here and whose
 * directory's flock nobody holds (see cgroup_create()), beside or below
 * the caller's own memory cgroup and at the hierarchy's root, and remove
 * them, calling @fn (may be NULL) for each.  Returns how many were found, or
 * -errno when no memory hierarchy is there.
 */
int cgroup_remove_stale(cgroup_stale_fn fn, void *arg);

#endif
