// SPDX-License-Identifier: MIT
/*
 * The supervisor of `pagecliff run` and `pagecliff attach` (supervise.h):
 * signals caught or forwarded to the child, the child forked, waited for and
 * its exit status passed on, and the file the watcher's stats go to.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervise.h"
#include "util.h"

static pid_t child;
static volatile sig_atomic_t child_pidfd = -1;
static volatile sig_atomic_t *stop_flag;

static void catch(const int *sigs, size_t n, struct sigaction *sa)
{
	sigemptyset(&sa->sa_mask);
	for (size_t i = 0; i < n; i++)
		sigaction(sigs[i], sa, NULL);
}

static void on_stop(int sig)
{
	*stop_flag = sig;
}

void sup_catch_stop(volatile sig_atomic_t *stop)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_stop };

	stop_flag = stop;
	catch(sigs, sizeof(sigs) / sizeof(sigs[0]), &sa);
}

/*
 * A signal sent to us by a process (kill) goes on to the child; one the
 * terminal sent (SI_KERNEL) reached the child's process group already.
 * Through the child's pidfd: once the watcher has reaped it, its pid can
 * name another process, its pidfd never does.
 */
static void forward(int sig, siginfo_t *info, void *uc)
{
	if (info->si_code == SI_KERNEL)
		return;
	if (child_pidfd >= 0)
		syscall(SYS_pidfd_send_signal, (int)child_pidfd, sig, NULL, 0);
	else if (child > 0)
		kill(child, sig);	/* no pidfd: cleared before it is reaped */
}

static void catch_forward(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
	struct sigaction sa = { .sa_sigaction = forward, .sa_flags = SA_SIGINFO | SA_RESTART };

	catch(sigs, sizeof(sigs) / sizeof(sigs[0]), &sa);
}

int sup_stats_fd(const char *file)
{
	int fd;

	if (!file)
		return -1;
	if (!*file)
		return 2;
	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return error("cannot open stats file '%s': %s", file, strerror(errno)) - 1;
	return fd;
}

noreturn void sup_exec(char **argv)
{
	int err;

	execvp(argv[0], argv);
	err = errno;
	error("cannot run '%s': %s", argv[0], strerror(err));
	_exit(err == ENOENT ? 127 : 126);
}

/*
 * The pipe's write end is close-on-exec: the exec makes it read as end of
 * file, and the parent goes on once the child is the program.
 */
static pid_t fork_exec(char **argv)
{
	int p[2], ok = !pipe2(p, O_CLOEXEC);
	pid_t pid;
	char c;

	pid = fork();
	if (pid == 0) {
		if (ok)
			close(p[0]);
		sup_exec(argv);
	}
	if (!ok)
		return pid;
	close(p[1]);
	while (pid > 0 && read(p[0], &c, 1) < 0 && errno == EINTR)
		;
	close(p[0]);
	return pid;
}

pid_t sup_spawn(char **argv)
{
	child = fork_exec(argv);
	if (child < 0)
		return -1;
	/* Not reaped before this: the pid is still the child's. */
	child_pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	catch_forward();
	return child;
}

int sup_pidfd(void)
{
	return child_pidfd;
}

/*
 * Without a pidfd, signals go by pid: wait for the child to exit without
 * reaping it, stop forwarding, then reap, so that a signal never reaches
 * another process given its pid.
 */
static void wait_by_pid(int *status)
{
	sigset_t all, old;
	siginfo_t si;
	pid_t pid = child;

	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	child = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

int sup_wait(void)
{
	int status = 0;

	if (child_pidfd < 0)
		wait_by_pid(&status);
	else
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	return sup_exit_as(status);
}

int sup_exit_as(int status)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t set;
	int sig;

	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	sig = WTERMSIG(status);
	setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig;
}

void sup_release(void)
{
	if (child_pidfd >= 0)
		close(child_pidfd);
}
