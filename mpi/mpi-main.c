// SPDX-License-Identifier: MIT
/*
 * pagecliff-mpi: `pagecliff bench` on every rank of an MPI job (mpirun,
 * srun), each rank on its host with its own directories, the phases started
 * and ended together, one report from rank 0.  A bad command line is
 * refused by every rank with one line, printed once.
 */
#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pcmpi.h"
#include "util.h"

#define MSG_MAX 1024
#define DIRS_MAX 16384		/* a rank's directories, ':' between */

static const char mpi_usage[] =
	"usage: mpirun [mpirun options] pagecliff-mpi [bench] [--stonewall] [--status]\n"
	"                                             [bench options]\n"
	"\n"
	"Run `pagecliff bench` on every rank, each on its host: phases start together\n"
	"and end together (when every rank is done or --runtime ends), and rank 0\n"
	"writes one report: the total per interval, each host's figures and verdict,\n"
	"and which hosts fell.  The options are those of pagecliff bench (see\n"
	"'pagecliff bench --help'); in them {rank} and {host} stand for the rank's\n"
	"number and host name, e.g. --directory /scratch/{host}/{rank}.\n"
	"\n"
	"      --stonewall       end each phase when the first rank finishes (IOR's -D,\n"
	"                        fio's exitall)\n"
	"      --status          rank 0 shows the live status line, the total of all\n"
	"                        ranks, on standard error (under mpirun it is a pipe,\n"
	"                        so it is off unless asked)\n"
	"  -h, --help            this text\n"
	"\n"
	"A rank that fails, or is killed, stops every rank; all clean up and exit\n"
	"non-zero.  Exit status: that of pagecliff bench, the worst over the ranks.\n";

/* @arg with {rank} and {host} replaced. */
static char *expand(const char *arg, int rank, const char *host)
{
	size_t cap = strlen(arg) + 1, len = 0;
	char *out = malloc(cap);

	if (!out)
		die("out of memory");
	while (*arg) {
		char rk[16];
		const char *put = NULL;
		size_t skip = 1;

		snprintf(rk, sizeof(rk), "%d", rank);
		if (!strncmp(arg, "{rank}", 6))
			put = rk, skip = 6;
		else if (!strncmp(arg, "{host}", 6))
			put = host, skip = 6;
		if (put) {
			size_t n = strlen(put);

			cap += n;
			out = realloc(out, cap);
			if (!out)
				die("out of memory");
			memcpy(out + len, put, n);
			len += n;
		} else {
			out[len++] = *arg;
		}
		arg += skip;
	}
	out[len] = '\0';
	return out;
}

/* The bench arguments, pagecliff-mpi's own (--stonewall, --status) taken
 * out, and a first word "bench" (as `pagecliff bench` is called). */
static char **bench_args(int argc, char **argv, int *ret_argc, int *ret_stonewall,
			 int *ret_live, int *ret_help)
{
	char **out = calloc(argc + 1, sizeof(*out));
	int n = 0;

	if (!out)
		die("out of memory");
	out[n++] = "pagecliff-mpi";
	for (int i = argc > 1 && !strcmp(argv[1], "bench") ? 2 : 1; i < argc; i++) {
		if (!strcmp(argv[i], "--stonewall")) {
			*ret_stonewall = 1;
			continue;
		}
		if (!strcmp(argv[i], "--status")) {
			*ret_live = 1;
			continue;
		}
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			*ret_help = 1;
		out[n++] = argv[i];
	}
	*ret_argc = n;
	return out;
}

static void expand_all(int argc, char **args)
{
	for (int i = 1; i < argc; i++)
		args[i] = expand(args[i], mpi_sync_rank(), mpi_sync_host(mpi_sync_rank()));
}

/* Read @fd to its end into @buf (at most @len - 1 bytes, then a NUL). */
static void read_to_end(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(fd);
}

/*
 * Check the job in a child, as bench would, with what it says caught: 0
 * (its directories in @dirs, ':' between), or its exit status with its
 * first line in @msg.  Rank 0 checks the outputs too: only it writes them.
 */
static int check_in_child(int argc, char **args, char *msg, char *dirs)
{
	int fds[2], dfds[2], status = 0;
	pid_t pid;

	fflush(NULL);
	if (pipe(fds) || pipe(dfds))
		return snprintf(msg, MSG_MAX, "cannot check the job: %s", strerror(errno)), 1;
	pid = fork();
	if (pid < 0)
		return snprintf(msg, MSG_MAX, "cannot check the job: %s", strerror(errno)), 1;
	if (!pid) {
		close(fds[0]);
		close(dfds[0]);
		dup2(fds[1], STDERR_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		bench_check_args(argc, args, !mpi_sync_rank(), dirs, DIRS_MAX);
		fflush(NULL);
		_exit(write_all(dfds[1], dirs, strlen(dirs)) ? 1 : 0);
	}
	close(fds[1]);
	close(dfds[1]);
	read_to_end(fds[0], msg, MSG_MAX);
	msg[strcspn(msg, "\n")] = '\0';
	read_to_end(dfds[0], dirs, DIRS_MAX);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* A rank's directories, as the others compare them. */
struct dir_ids {
	unsigned int n;
	uint64_t dev[BENCH_MAX_DIRS], ino[BENCH_MAX_DIRS];
};

/*
 * Whether a directory of this rank's job (@dirs) is also one of a rank
 * before it on the same host: then two ranks would claim one folder, and
 * the second would fail after the first had laid out its data.  EXIT_USAGE
 * with the line in @msg, or 0.
 */
static int shared_dir(const char *dirs, char *msg)
{
	int size = mpi_sync_size(), me = mpi_sync_rank();
	struct dir_ids own = { 0 }, *all = calloc(size, sizeof(*all));
	char list[DIRS_MAX], *name[BENCH_MAX_DIRS], *save = NULL;
	int ret = 0;
	unsigned int i;

	if (!all)
		die("out of memory");
	snprintf(list, sizeof(list), "%s", dirs);
	for (char *p = strtok_r(list, ":", &save); p && own.n < BENCH_MAX_DIRS;
	     p = strtok_r(NULL, ":", &save)) {
		struct stat st;

		if (stat(p, &st))
			continue;
		name[own.n] = p;
		own.dev[own.n] = st.st_dev;
		own.ino[own.n++] = st.st_ino;
	}
	MPI_Allgather(&own, sizeof(own), MPI_BYTE, all, sizeof(own), MPI_BYTE, MPI_COMM_WORLD);
	for (int r = 0; r < me && !ret; r++) {
		if (strcmp(mpi_sync_host(r), mpi_sync_host(me)))
			continue;
		for (i = 0; i < own.n && !ret; i++)
			for (unsigned int j = 0; j < all[r].n && !ret; j++)
				ret = all[r].dev[j] == own.dev[i] && all[r].ino[j] == own.ino[i];
		if (ret)
			snprintf(msg, MSG_MAX, "%s: directory '%s' is rank %d's too: each rank "
				 "needs a directory of its own", progname, name[i - 1], r);
	}
	free(all);
	return ret ? EXIT_USAGE : 0;
}

/*
 * Rank 0: say the first bad rank's line @line once.  The rank and its host
 * are named unless every rank said the same (the command line's fault).
 */
static void say_refusal(int r, const char *line, int same)
{
	static const char err[] = "error: ";
	const char *text = line, *kind = "";
	size_t plen = strlen(progname);

	if (!strncmp(text, progname, plen) && !strncmp(text + plen, ": ", 2))
		text += plen + 2;
	if (!strncmp(text, err, strlen(err))) {
		kind = err;
		text += strlen(err);
	}
	if (same && text != line)
		fprintf(stderr, "%s\n", line);
	else
		fprintf(stderr, "%s: %srank %d (%s): %s\n", progname, kind, r, mpi_sync_host(r),
			text);
}

/*
 * Every rank checks its own job (its directories are its own), and that no
 * directory is another rank's on its host, before any rank makes anything;
 * when one is bad, rank 0 prints the first bad rank's line once and all exit
 * with its status.  Returns 0 when all are good.
 */
static int check_everywhere(int argc, char **args)
{
	char msg[MSG_MAX] = "", dirs[DIRS_MAX] = "", *all = NULL;
	int code = check_in_child(argc, args, msg, dirs), size = mpi_sync_size(), *codes;
	int first = -1, same = 1, shared;

	shared = shared_dir(code ? "" : dirs, msg);
	code = code ? code : shared;
	codes = calloc(size, sizeof(*codes));
	if (!mpi_sync_rank())
		all = calloc(size, MSG_MAX);
	if (!codes || (!mpi_sync_rank() && !all))
		die("out of memory");
	MPI_Allgather(&code, 1, MPI_INT, codes, 1, MPI_INT, MPI_COMM_WORLD);
	MPI_Gather(msg, MSG_MAX, MPI_CHAR, all, MSG_MAX, MPI_CHAR, 0, MPI_COMM_WORLD);
	for (int r = 0; r < size; r++) {
		if (codes[r] && first < 0)
			first = r;
		if (all && (codes[r] != codes[0] || strcmp(all + (size_t)r * MSG_MAX, all)))
			same = 0;
	}
	if (first >= 0 && all)
		say_refusal(first, all + (size_t)first * MSG_MAX, same);
	code = first >= 0 ? codes[first] : 0;
	free(all);
	free(codes);
	return code;
}

int main(int argc, char **argv)
{
	int nargs, stonewall = 0, live = 0, help = 0, provided, code;
	char **args = bench_args(argc, argv, &nargs, &stonewall, &live, &help);

	progname = "pagecliff";
	/* under a cgroup v1 cap the phases (and their MPI calls) run on a
	 * thread of their own while main waits: one thread at a time */
	MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
	if (provided < MPI_THREAD_SERIALIZED) {
		fprintf(stderr, "%s: this MPI library gives no MPI_THREAD_SERIALIZED "
			"(level %d): bench's sampler may run on a thread of its own\n",
			progname, provided);
		MPI_Abort(MPI_COMM_WORLD, 1);
		return 1;
	}
	if (mpi_sync_init(stonewall, live)) {
		MPI_Abort(MPI_COMM_WORLD, 1);
		return 1;
	}
	if (help) {
		if (!mpi_sync_rank())
			fputs(mpi_usage, stdout);
		MPI_Finalize();
		return 0;
	}
	expand_all(nargs, args);
	code = check_everywhere(nargs, args);
	if (code) {
		MPI_Finalize();
		return code;
	}
	code = bench_run_hooked(nargs, args, mpi_sync_hooks());
	return mpi_sync_leave(code);
}
