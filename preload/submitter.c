// SPDX-License-Identifier: MIT
/*
 * The direct readers' io_uring thread: one thread of the shim's own,
 * started with the first reader, every signal blocked, that makes every
 * io_uring ring and every submission for the readers (direct.c).  io_uring
 * sends its task work, the completions, the creation of its io-wq workers
 * and a closed ring's exit, to the tasks that made or submitted to a ring,
 * and that work interrupts whatever system call the task is blocked in: a
 * blocking write(2) of the program's to a pipe returned short when its own
 * thread had made the ring or submitted (measured: python3 copying to a
 * pipe lost the rest of such writes).  Here the work interrupts only this
 * thread's wait for the next request, and the program's threads reap the
 * completions from the ring as before (waiting makes no task work).
 *
 * One request at a time: the caller waits for it to be done.  A fork()
 * child has no such thread; it starts its own when it begins a reader of
 * its own.
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
static int (*pending)(void *);
static void *pending_arg;
static int result;
static pthread_t io_thread;
static uint64_t asked, made;		/* requests taken in, and submitted */
static int started;			/* 1 running, -errno could not start */

static void *submitter(void *arg)
{
	pl_busy = 1;	/* its own libc calls go straight to libc */
	pthread_mutex_lock(&lock);
	for (;;) {
		int (*fn)(void *);
		void *fn_arg;
		int ret;

		while (made == asked)
			pthread_cond_wait(&wake, &lock);
		fn = pending;
		fn_arg = pending_arg;
		pthread_mutex_unlock(&lock);
		ret = fn(fn_arg);
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
	int ret;

	pthread_mutex_lock(&lock);
	if (started) {
		ret = started > 0 ? 0 : started;
		goto out;
	}
	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_sigmask(SIG_SETMASK, &all, &old);	/* the thread starts with all blocked */
	ret = -pthread_create(&io_thread, &attr, submitter, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (!ret)
		pthread_setname_np(io_thread, "pagecliff-io");
	started = ret ? ret : 1;
out:
	pthread_mutex_unlock(&lock);
	return ret;
}

/*
 * The caller waits in pthread_cond_wait(), a cancellation point: a program's
 * pthread_cancel() must not end its thread there, holding the shim's locks.
 */
int pl_io_call(int (*fn)(void *), void *arg)
{
	uint64_t mine;
	int ret, cancel;

	pthread_mutex_lock(&lock);
	if (started <= 0 || pthread_equal(io_thread, pthread_self())) {
		pthread_mutex_unlock(&lock);
		return fn(arg);	/* not started (the caller checked why), or itself */
	}
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	while (asked != made)		/* another reader's request first */
		pthread_cond_wait(&done, &lock);
	pending = fn;
	pending_arg = arg;
	mine = ++asked;
	pthread_cond_signal(&wake);
	while (made < mine)
		pthread_cond_wait(&done, &lock);
	ret = result;
	pthread_mutex_unlock(&lock);
	pthread_setcancelstate(cancel, NULL);
	return ret;
}

static int submit(void *ring)
{
	return io_uring_submit(ring);
}

int pl_submit(struct io_uring *ring)
{
	return pl_io_call(submit, ring);
}

/* A fork() child has no submitter (and the lock may have been held). */
static void forked(void)
{
	pthread_mutex_init(&lock, NULL);
	pthread_cond_init(&wake, NULL);
	pthread_cond_init(&done, NULL);
	pending = NULL;
	pending_arg = NULL;
	asked = made = 0;
	started = 0;
}

__attribute__((constructor)) static void submitter_init(void)
{
	pthread_atfork(NULL, NULL, forked);
}
