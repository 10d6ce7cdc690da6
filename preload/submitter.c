// SPDX-License-Identifier: MIT
/*
 * The direct readers' submitter: one thread of the shim's own, started with
 * the first reader, every signal blocked, that makes every io_uring
 * submission for the readers (direct.c).  io_uring sends its task work, the
 * completions and the creation of its io-wq workers, to the task that
 * submitted, and that work interrupts whatever system call the task is
 * blocked in: a blocking write(2) of the program's to a pipe returned short
 * when its own thread had submitted (measured: python3 copying to a pipe
 * lost the rest of such writes).  Here the work interrupts only this
 * thread's wait for the next request, and the program's threads reap the
 * completions from the ring as before.
 *
 * One request at a time: the caller waits for its io_uring_submit() to
 * return.  A fork() child has no such thread; it starts its own when it
 * begins a reader of its own.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include <liburing.h>

#include "preload.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;	/* a request is waiting */
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;	/* a request was made */
static struct io_uring *pending;
static int result;
static uint64_t asked, made;		/* requests taken in, and submitted */
static int started;			/* 1 running, -errno could not start */

static void *submitter(void *arg)
{
	pl_busy = 1;	/* its own libc calls go straight to libc */
	pthread_mutex_lock(&lock);
	for (;;) {
		struct io_uring *ring;
		int ret;

		while (made == asked)
			pthread_cond_wait(&wake, &lock);
		ring = pending;
		pthread_mutex_unlock(&lock);
		ret = io_uring_submit(ring);
		pthread_mutex_lock(&lock);
		result = ret;
		made++;
		pthread_cond_broadcast(&done);
	}
	return arg;
}

int pl_submitter_start(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;
	int ret;

	pthread_mutex_lock(&lock);
	if (started) {
		ret = started > 0 ? 0 : started;
		goto out;
	}
	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_sigmask(SIG_SETMASK, &all, &old);	/* the thread starts with all blocked */
	ret = -pthread_create(&t, &attr, submitter, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (!ret)
		pthread_setname_np(t, "pagecliff-io");
	started = ret ? ret : 1;
out:
	pthread_mutex_unlock(&lock);
	return ret;
}

int pl_submit(struct io_uring *ring)
{
	uint64_t mine;
	int ret;

	pthread_mutex_lock(&lock);
	while (asked != made)		/* another reader's request first */
		pthread_cond_wait(&done, &lock);
	pending = ring;
	mine = ++asked;
	pthread_cond_signal(&wake);
	while (made < mine)
		pthread_cond_wait(&done, &lock);
	ret = result;
	pthread_mutex_unlock(&lock);
	return ret;
}

/* A fork() child has no submitter (and the lock may have been held). */
static void forked(void)
{
	pthread_mutex_init(&lock, NULL);
	pthread_cond_init(&wake, NULL);
	pthread_cond_init(&done, NULL);
	pending = NULL;
	asked = made = 0;
	started = 0;
}

__attribute__((constructor)) static void submitter_init(void)
{
	pthread_atfork(NULL, NULL, forked);
}
