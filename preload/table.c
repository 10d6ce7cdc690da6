// SPDX-License-Identifier: MIT
/*
 * The shim's table of open fds: a small chained hash table that grows with
 * the number of fds the program actually reads, never with RLIMIT_NOFILE.
 * One mutex guards it and every struct pl_file; fork handlers take it around
 * fork() so that the child never inherits it locked.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

struct entry {
	int fd;
	struct pl_file *file;		/* NULL: the fd is known and ignored */
	struct entry *next;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry **buckets;
static unsigned int nbuckets;		/* a power of two, or 0 */
static unsigned int count;

__thread int pl_busy __attribute__((tls_model("initial-exec")));

/* The process the table belongs to; a fork handler updates it in children. */
static pid_t table_pid;

static pid_t real_pid(void)
{
	return (pid_t)syscall(SYS_getpid);	/* glibc caches nothing since 2.25 */
}

int pl_foreign(void)
{
	pid_t owner = __atomic_load_n(&table_pid, __ATOMIC_RELAXED);

	return owner && owner != real_pid();
}

static void atfork_prepare(void)
{
	pthread_mutex_lock(&table_lock);
}

/* Set at load: how an fd is met, what a fork() child and its parent do to it. */
static void (*meet_fn)(int fd, const char *path);
static void (*fork_child_fn)(int fd);
static void (*fork_parent_fn)(int fd);

void pl_table_hooks(void (*meet)(int fd, const char *path), void (*forked)(int fd),
		    void (*parent)(int fd))
{
	meet_fn = meet;
	fork_child_fn = forked;
	fork_parent_fn = parent;
}

static void atfork_parent(void)
{
	if (fork_parent_fn)
		pl_table_each(0, ~0u, fork_parent_fn);
	pthread_mutex_unlock(&table_lock);
}

static void atfork_child(void)
{
	__atomic_store_n(&table_pid, real_pid(), __ATOMIC_RELAXED);
	if (fork_child_fn)
		pl_table_each(0, ~0u, fork_child_fn);
	pthread_mutex_unlock(&table_lock);
}

/*
 * Before any hook can run: who owns the table (vfork() children differ), and
 * the fork handlers, so that every fork() child knows itself.
 */
__attribute__((constructor(101))) static void table_init(void)
{
	__atomic_store_n(&table_pid, real_pid(), __ATOMIC_RELAXED);
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

void pl_lock(void)
{
	pl_busy++;
	pthread_mutex_lock(&table_lock);
}

void pl_unlock(void)
{
	pthread_mutex_unlock(&table_lock);
	pl_busy--;
}

static unsigned int slot_of(int fd, unsigned int n)
{
	return ((unsigned int)fd * 2654435761u) & (n - 1);
}

/* Double the buckets; on allocation failure the table just gets fuller. */
static void grow(void)
{
	unsigned int n = nbuckets ? nbuckets * 2 : 64;
	struct entry **nb = calloc(n, sizeof(*nb));

	if (!nb)
		return;
	for (unsigned int i = 0; i < nbuckets; i++) {
		struct entry *e = buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			e->next = nb[slot_of(e->fd, n)];
			nb[slot_of(e->fd, n)] = e;
		}
	}
	free(buckets);
	buckets = nb;
	nbuckets = n;
}

static struct entry **find(int fd)
{
	struct entry **p;

	if (!nbuckets)
		return NULL;
	for (p = &buckets[slot_of(fd, nbuckets)]; *p; p = &(*p)->next)
		if ((*p)->fd == fd)
			return p;
	return NULL;
}

int pl_table_get(int fd, struct pl_file **ret_file)
{
	struct entry **p = find(fd);

	if (!p)
		return 0;
	*ret_file = (*p)->file;
	return 1;
}

void pl_table_meet(int fd, struct pl_file **ret_file)
{
	if (pl_table_get(fd, ret_file))
		return;
	if (meet_fn)
		meet_fn(fd, NULL);
	pl_table_get(fd, ret_file);
}

void pl_file_put(struct pl_file *file, int fd)
{
	if (file && --file->refs == 0)
		file->release(file, fd);
}

int pl_same_file(const struct pl_file *f, int fd)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_dev == f->dev && st.st_ino == f->ino;
}

void pl_table_set(int fd, struct pl_file *file)
{
	struct entry **p = find(fd), *e;

	if (file)
		file->refs++;
	if (p) {
		struct pl_file *old = (*p)->file;

		(*p)->file = file;
		pl_file_put(old, fd);
		return;
	}
	if (count >= nbuckets)
		grow();
	e = malloc(sizeof(*e));
	if (!e || !nbuckets) {
		free(e);
		pl_file_put(file, fd);
		return;
	}
	e->fd = fd;
	e->file = file;
	e->next = buckets[slot_of(fd, nbuckets)];
	buckets[slot_of(fd, nbuckets)] = e;
	count++;
}

void pl_table_del(int fd)
{
	struct entry **p = find(fd), *e;

	if (!p)
		return;
	e = *p;
	*p = e->next;
	count--;
	pl_file_put(e->file, fd);
	free(e);
}

void pl_table_each(unsigned int lo, unsigned int hi, void (*fn)(int fd))
{
	for (unsigned int i = 0; i < nbuckets; i++) {
		struct entry *e = buckets[i], *next;

		for (; e; e = next) {
			next = e->next;	/* fn may delete e */
			if ((unsigned int)e->fd >= lo && (unsigned int)e->fd <= hi)
				fn(e->fd);
		}
	}
}
