// SPDX-License-Identifier: MIT
/*
 * The promise in a memory cgroup: streaming a file four times larger
 * than the cgroup's cap through auto keeps the cgroup's page cache under
 * 128 MiB, while buffered reads fill it to the cap (which shows the
 * measurement can see a flood).  Needs root for the cgroup.
 */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "helpers.h"
#include "pagecliff.h"

#define CAP (256ull << 20)
#define FILE_SIZE (4 * CAP)

static struct cgroup cg;
static int have_cg;

static void cleanup(void)
{
	if (have_cg)
		cgroup_remove(&cg);
	have_cg = 0;
}

static int stream(const char *path, enum pc_strategy strategy)
{
	char *buf = pc_buf_alloc(1 << 20);
	struct pc_opts o;
	struct pc_stream *s;
	ssize_t n;

	pc_opts_init(&o);
	o.strategy = strategy;
	if (!buf || pc_stream_open(&s, path, &o))
		return 1;
	while ((n = pc_stream_read(s, buf, 1 << 20)) > 0)
		;
	pc_stream_close(s);
	return n != 0;
}

/* Stream @path in the cgroup from a child; return the peak page cache. */
static uint64_t peak_cache(const char *path, enum pc_strategy strategy)
{
	struct cgroup_usage u;
	uint64_t peak = 0;
	pid_t pid;
	int st;

	t_evict(path);
	pid = fork();
	T_CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		if (cgroup_attach(&cg, getpid()))
			_exit(2);
		_exit(stream(path, strategy));
	}
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (!cgroup_read(&cg, &u) && u.cache > peak)
			peak = u.cache;
		usleep(10000);
	}
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s reader exit %d",
		pc_strategy_name(strategy), st);
	return peak;
}

int main(void)
{
	char dir[4096], path[4200];
	uint64_t auto_peak, buffered_peak;
	int ret;

	if (geteuid())
		t_skip("needs root to create a memory cgroup");
	ret = cgroup_create(&cg, CAP, 0);
	if (ret == -ENOENT)
		t_skip("no memory cgroup controller");
	T_CHECK(!ret, "cannot create a memory cgroup: %s", strerror(-ret));
	have_cg = 1;
	atexit(cleanup);
	t_tmpdir(dir, sizeof(dir), t_workdir());
	snprintf(path, sizeof(path), "%s/big", dir);
	t_make_file(path, FILE_SIZE, 5);
	auto_peak = peak_cache(path, PC_AUTO);
	buffered_peak = peak_cache(path, PC_BUFFERED);
	t_rmtree(dir);
	printf("cap %llu MiB, file %llu MiB: peak page cache auto %llu MiB, buffered %llu MiB\n",
	       (unsigned long long)(CAP >> 20), (unsigned long long)(FILE_SIZE >> 20),
	       (unsigned long long)(auto_peak >> 20),
	       (unsigned long long)(buffered_peak >> 20));
	T_CHECK(auto_peak < (128ull << 20), "auto peaked at %llu MiB",
		(unsigned long long)(auto_peak >> 20));
	T_CHECK(buffered_peak > CAP / 2, "buffered peaked at only %llu MiB",
		(unsigned long long)(buffered_peak >> 20));
	return T_EXIT_PASS;
}
