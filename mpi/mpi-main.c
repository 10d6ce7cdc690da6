// SPDX-License-Identifier: MIT
/*
 * pagecliff-mpi: `pagecliff bench` on every rank of an MPI job (mpirun,
 * srun), each rank on its host with its own directories, the phases started
 * and ended together, one report from rank 0.  A bad command line is
 * refused by every rank with one line, printed once.
 */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pcmpi.h"
#include "util.h"

#define MSG_MAX 1024

static const char mpi_usage[] =
	"usage: mpirun [mpirun options] pagecliff-mpi [--stonewall] [--status] [bench options]\n"
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

/* The bench arguments, pagecliff-mpi's own (--stonewall, --status) taken out. */
static char **bench_args(int argc, char **argv, int *ret_argc, int *ret_stonewall,
			 int *ret_live, int *ret_help)
{
	char **out = calloc(argc + 1, sizeof(*out));
	int n = 0;

	if (!out)
		die("out of memory");
	out[n++] = "pagecliff-mpi";
	for (int i = 1; i < argc; i++) {
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

/*
 * Check the job in a child, as bench would, with what it says caught:
 * 0, or its exit status with its first line in @msg.
 */
static int check_in_child(int argc, char **args, char *msg)
{
	int fds[2], status = 0;
	ssize_t n, len = 0;
	pid_t pid;

	fflush(NULL);
	if (pipe(fds))
		return snprintf(msg, MSG_MAX, "cannot check the job: %s", strerror(errno)), 1;
	pid = fork();
	if (pid < 0)
		return snprintf(msg, MSG_MAX, "cannot check the job: %s", strerror(errno)), 1;
	if (!pid) {
		close(fds[0]);
		dup2(fds[1], STDERR_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		bench_check_args(argc, args);
		fflush(NULL);
		_exit(0);
	}
	close(fds[1]);
	while (len < MSG_MAX - 1 && (n = read(fds[0], msg + len, MSG_MAX - 1 - len)) > 0)
		len += n;
	close(fds[0]);
	msg[len] = '\0';
	msg[strcspn(msg, "\n")] = '\0';
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/*
 * Every rank checks its own job (its directories are its own); when one is
 * bad, rank 0 prints the first bad rank's line once and all exit with its
 * status.  Returns 0 when all are good.
 */
static int check_everywhere(int argc, char **args)
{
	char msg[MSG_MAX] = "", *all = NULL;
	int code = check_in_child(argc, args, msg), size = mpi_sync_size(), *codes;

	codes = calloc(size, sizeof(*codes));
	if (!mpi_sync_rank())
		all = calloc(size, MSG_MAX);
	if (!codes || (!mpi_sync_rank() && !all))
		die("out of memory");
	MPI_Allgather(&code, 1, MPI_INT, codes, 1, MPI_INT, MPI_COMM_WORLD);
	MPI_Gather(msg, MSG_MAX, MPI_CHAR, all, MSG_MAX, MPI_CHAR, 0, MPI_COMM_WORLD);
	code = 0;
	for (int r = 0; r < size && !code; r++) {
		if (!codes[r])
			continue;
		code = codes[r];
		if (mpi_sync_rank())
			break;
		if (strncmp(all + (size_t)r * MSG_MAX, "pagecliff: ", 11))
			fprintf(stderr, "%s: rank %d (%s): %s\n", progname, r, mpi_sync_host(r),
				all + (size_t)r * MSG_MAX);
		else if (r)	/* this rank's own directory, not the command line */
			fprintf(stderr, "%s: rank %d (%s): %s\n", progname, r, mpi_sync_host(r),
				all + (size_t)r * MSG_MAX + 11);
		else
			fprintf(stderr, "%s: %s\n", progname, all + 11);
	}
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
