// SPDX-License-Identifier: MIT
/*
 * The shim's table of open fds: a small chained hash table that grows with
 * the number of fds the program actually reads, never with RLIMIT_NOFILE.
 * One mutex guards it and every struct pl_file; fork handlers take it around
 * fork() so that the child never inherits it locked.
 */
#include <pthread.h>
#include <stdlib.h>
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

static void atfork_parent(void)
{
	pthread_mutex_unlock(&table_lock);
}

static void atfork_child(void)
{
	__atomic_store_n(&table_pid, real_pid(), __ATOMIC_RELAXED);
	pl_table_each(0, ~0u, pl_track_forked);
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

static void put(struct pl_file *file, int fd)
{
	if (file && --file->refs == 0)
		pl_file_release(file, fd);
}

void pl_table_set(int fd, struct pl_file *file)
{
	struct entry **p = find(fd), *e;

	if (file)
		file->refs++;
	if (p) {
		struct pl_file *old = (*p)->file;

		(*p)->file = file;
		put(old, fd);
		return;
	}
	if (count >= nbuckets)
		grow();
	e = malloc(sizeof(*e));
	if (!e || !nbuckets) {
		free(e);
		put(file, fd);
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
	put(e->file, fd);
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
