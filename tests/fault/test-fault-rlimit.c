// SPDX-License-Identifier: MIT
/*
 * Resource limits, each in a child process:
 * - RLIMIT_NOFILE with 0, 1 and 2 descriptors left: opening fails cleanly
 *   with -EMFILE; with one, direct cannot reopen with O_DIRECT and falls back
 *   naming the errno; with two, it has no ring and reads synchronously; all
 *   exact, and no descriptor is kept after close.
 * - RLIMIT_MEMLOCK without CAP_IPC_LOCK: at 256 KiB the ring fits but the
 *   kernel refuses to register direct's 8 MiB of buffers (UserBufs 0 in the
 *   ring's fdinfo); at 0 even the ring is refused and direct says so and
 *   reads synchronously; reads exact either way.
 * - RLIMIT_AS a little above what the process uses: a buffer that does not
 *   fit fails with -ENOMEM, nothing crashes, no descriptor or mapping is
 *   left, and the process reads normally afterwards.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers.h"
#include "rig.h"

#define FILE_SIZE ((12ull << 20) + 7)

/*
 * AddressSanitizer and ThreadSanitizer reserve terabytes of shadow:
 * RLIMIT_AS cannot work under them.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define T_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define T_ASAN 1
#endif
#endif
#ifndef T_ASAN
#define T_ASAN 0
#endif

static const char *path;

static struct pc_stream *open_with(enum pc_strategy strat, size_t chunk, int *ret)
{
	struct pc_stream *s = NULL;
	struct pc_opts o;

	pc_opts_init(&o);
	o.strategy = strat;
	o.chunk_size = chunk;
	*ret = pc_stream_open(&s, path, &o);
	return s;
}

static void drain_exact(struct pc_stream *s, const char *what)
{
	struct fr_result r;

	fr_drain(s, 1 << 20, FR_SEED, &r);
	T_CHECK(!r.err && r.bad < 0 && r.bytes == FILE_SIZE,
		"%s: %llu bytes, error %d, bad byte %lld", what,
		(unsigned long long)r.bytes, r.err, (long long)r.bad);
}

/* Leave exactly @free descriptors under a limit of 64; returns the limit. */
static void leave_fds(unsigned int free)
{
	struct rlimit rl = { 64, 64 };
	int fds[64], n = 0;

	T_CHECK(!setrlimit(RLIMIT_NOFILE, &rl), "setrlimit: %s", strerror(errno));
	while (n < 64 && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
		n++;
	T_CHECK(errno == EMFILE && n >= (int)free, "cannot fill the fd table");
	while (free--)
		close(fds[--n]);
}

/* @free descriptors are free again: the library kept none. */
static void check_fds_free(unsigned int free)
{
	int fds[8];

	for (unsigned int i = 0; i < free; i++)
		T_CHECK((fds[i] = open("/dev/null", O_RDONLY)) >= 0,
			"a descriptor was left behind");
	T_CHECK(open("/dev/null", O_RDONLY) < 0 && errno == EMFILE,
		"more descriptors free than before");
	for (unsigned int i = 0; i < free; i++)
		close(fds[i]);
}

static int nofile_case(void *arg)
{
	unsigned int free = *(unsigned int *)arg;
	struct pc_stream *s;
	struct pc_stats st;
	int ret;

	leave_fds(free);
	s = open_with(PC_DIRECT, 1 << 20, &ret);
	if (free == 0) {
		T_CHECK(ret == -EMFILE, "open with no fd left: %d, not -EMFILE", ret);
		check_fds_free(0);
		printf("ok   RLIMIT_NOFILE, 0 left: -EMFILE\n");
		fflush(stdout);
		return 0;
	}
	T_CHECK(!ret, "open with %u fds left: %s", free, strerror(-ret));
	pc_stream_stats(s, &st);
	printf("     RLIMIT_NOFILE, %u left: %s (%s)\n", free,
	       pc_strategy_name(st.strategy), st.reason);
	fflush(stdout);
	T_CHECK(strstr(st.reason, "Too many open files"),
		"the reason does not name EMFILE: %s", st.reason);
	drain_exact(s, "few fds");
	pc_stream_close(s);
	check_fds_free(free);
	return 0;
}

/* Registered buffers of the io_uring instance open in this process, or -1. */
static int ring_user_bufs(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	int bufs = -1;

	while (dir && (e = readdir(dir))) {
		char link[300], target[64], info[300], line[256];
		ssize_t n;
		FILE *f;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = 0;
		if (strcmp(target, "anon_inode:[io_uring]"))
			continue;
		snprintf(info, sizeof(info), "/proc/self/fdinfo/%s", e->d_name);
		f = fopen(info, "r");
		while (f && fgets(line, sizeof(line), f))
			sscanf(line, "UserBufs: %d", &bufs);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return bufs;
}

static void drop_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	T_CHECK(!syscall(SYS_capget, &hdr, data), "capget: %s", strerror(errno));
	data[0].effective &= ~(1u << CAP_IPC_LOCK);
	data[0].permitted &= ~(1u << CAP_IPC_LOCK);
	T_CHECK(!syscall(SYS_capset, &hdr, data), "capset: %s", strerror(errno));
}

/* @arg: the RLIMIT_MEMLOCK to set without CAP_IPC_LOCK, or -1 for none. */
static int memlock_case(void *arg)
{
	long limit = *(long *)arg;
	int limited = limit >= 0, ret, bufs, ok;
	struct pc_stream *s;
	struct pc_stats st;
	char byte;

	if (limited) {
		struct rlimit rl = { limit, limit };

		drop_ipc_lock();
		T_CHECK(!setrlimit(RLIMIT_MEMLOCK, &rl), "setrlimit: %s", strerror(errno));
	}
	s = open_with(PC_DIRECT, 1 << 20, &ret);
	T_CHECK(!ret, "open: %s", strerror(-ret));
	pc_stream_stats(s, &st);
	if (st.strategy != PC_DIRECT) {
		printf("SKIP: direct not available: %s\n", st.reason);
		return T_EXIT_SKIP;
	}
	T_CHECK(pc_stream_pread(s, &byte, 1, 0) == 1, "pread");
	/* -1: no ring at all, which must be said in the reason. */
	bufs = ring_user_bufs();
	ok = !limited ? bufs > 0 :
	     limit ? bufs == 0 : bufs < 0 && strstr(st.reason, "io_uring unavailable");
	printf("%s RLIMIT_MEMLOCK %ld: %d registered buffers (%s)\n",
	       ok ? "ok  " : "FAIL", limit, bufs, st.reason);
	fflush(stdout);
	T_CHECK(ok, "registered buffers: %d", bufs);
	drain_exact(s, "memlock");
	pc_stream_close(s);
	return 0;
}

static long count_lines(const char *file)
{
	FILE *f = fopen(file, "r");
	long n = 0;
	int c;

	while (f && (c = getc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

static long count_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	long n = 0;

	while (dir && readdir(dir))
		n++;
	if (dir)
		closedir(dir);
	return n;
}

static int as_case(void *arg)
{
	const uint64_t big = 256u << 20;
	long fds, maps;
	struct rlimit rl;
	struct pc_stream *s;
	const void *p;
	int ret;

	/* Everything the checks below use is mapped before the limit. */
	s = open_with(PC_BUFFERED, 1 << 20, &ret);
	drain_exact(s, "before the limit");
	pc_stream_close(s);
	fds = count_fds();
	maps = count_lines("/proc/self/maps");
	rl.rlim_cur = rl.rlim_max = 512ull << 20;
	T_CHECK(!setrlimit(RLIMIT_AS, &rl), "setrlimit: %s", strerror(errno));

	/* direct bounds its buffers (PC_DIRECT_INFLIGHT_MAX, the file): it works. */
	s = open_with(PC_DIRECT, big, &ret);
	T_CHECK(!ret, "direct with 8 x 256 MiB asked, under 512 MiB: %s", strerror(-ret));
	drain_exact(s, "direct, 256 MiB chunks asked");
	pc_stream_close(s);
	for (int strat = PC_BUFFERED; strat <= PC_DROPBEHIND; strat++) {
		s = open_with(strat, 2 * big, &ret);
		T_CHECK(!ret, "%s open: %s", pc_strategy_name(strat), strerror(-ret));
		ret = pc_stream_next(s, &p);
		T_CHECK(ret == -ENOMEM, "%s: lending a 512 MiB chunk gave %d, not -ENOMEM",
			pc_strategy_name(strat), ret);
		pc_stream_close(s);
	}
	T_CHECK(count_fds() == fds, "descriptors left behind");
	T_CHECK(count_lines("/proc/self/maps") == maps, "mappings left behind");
	s = open_with(PC_AUTO, 1 << 20, &ret);
	T_CHECK(!ret, "open after the failures: %s", strerror(-ret));
	drain_exact(s, "after the failures");
	pc_stream_close(s);
	printf("ok   RLIMIT_AS 512 MiB: direct bounded, -ENOMEM for 512 MiB buffers, nothing left\n");
	fflush(stdout);
	return 0;
}

int main(void)
{
	long unlimited = -1, ring_only = 256 << 10, nothing = 0;
	int failed = 0;

	path = fr_scratch_file(FILE_SIZE);
	for (unsigned int free = 0; free < 3; free++)
		failed += t_in_child(nofile_case, &free) != 0;
	failed += t_in_child(memlock_case, &unlimited) % T_EXIT_SKIP != 0;
	if (geteuid() == 0) {
		failed += t_in_child(memlock_case, &ring_only) % T_EXIT_SKIP != 0;
		failed += t_in_child(memlock_case, &nothing) % T_EXIT_SKIP != 0;
	} else
		printf("RLIMIT_MEMLOCK limits not tried: needs root to drop CAP_IPC_LOCK\n");
	if (T_ASAN)
		printf("RLIMIT_AS not tried: the sanitizer needs the address space\n");
	else
		failed += t_in_child(as_case, NULL) != 0;
	fr_scratch_remove();
	T_CHECK(!failed, "%d resource-limit cases failed", failed);
	printf("resource limits give clean errors or exact data\n");
	return T_EXIT_PASS;
}
