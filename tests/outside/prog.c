// SPDX-License-Identifier: MIT
/*
 * outside-prog: the programs the watcher's tests follow.  Every read and
 * write is a raw system call (syscall(2)), so that no LD_PRELOAD shim sees
 * it; built once dynamic and once static.
 *
 *   outside-prog copy SRC DST [MIB_PER_S]   copy 1 MiB at a time
 *   outside-prog read SRC [MIB_PER_S]       read, print the byte count
 *   outside-prog reuse A B MIB_PER_S        read half of A, close it, open B
 *                                           on the same number and read it
 *   outside-prog fork A B MIB_PER_S         a child reads B, the parent A
 *   outside-prog db FILE SECONDS            pread/pwrite FILE in place, grow
 *                                           it 4 KiB every 50 ms, verify it
 *   outside-prog hot FILE SECONDS           read a 4 MiB hot set once, then 4 KiB
 *                                           every 20 MiB after forward seeks
 *   outside-prog pread FILE MIB_PER_S       read FILE whole with pread, its
 *                                           position never moving
 *   outside-prog burst FILE MIB             read MIB paced (256 MiB/s), pause
 *                                           0.3 s, read the rest in one read(2)
 *   outside-prog exit CODE                  exit with CODE
 *   outside-prog kill SIG                   die of SIG
 *
 * Prints "PATH: BYTES bytes fd N" per file read; exits 0, or 1 on an error.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1u << 20)

static char buf[MIB];

/* Sleep so that @done bytes took at least @done / @rate seconds since @t0. */
static void pace(const struct timespec *t0, unsigned long long done, double rate)
{
	struct timespec now, d;
	double due, el;

	if (rate <= 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	el = (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
	due = done / (rate * MIB);
	if (due <= el)
		return;
	d.tv_sec = (time_t)(due - el);
	d.tv_nsec = (long)((due - el - d.tv_sec) * 1e9);
	nanosleep(&d, NULL);
}

/* Read @fd to @limit bytes (0: to the end), writing to @out when >= 0. */
static long long pump(int fd, int out, unsigned long long limit, double rate)
{
	unsigned long long done = 0;
	struct timespec t0;
	long n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		size_t want = limit && limit - done < MIB ? limit - done : MIB;

		if (limit && done >= limit)
			break;
		n = syscall(SYS_read, fd, buf, want);
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		if (out >= 0 && syscall(SYS_write, out, buf, n) != n)
			return -1;
		done += n;
		pace(&t0, done, rate);
	}
	return (long long)done;
}

static int read_file(const char *path, unsigned long long limit, double rate, int keep_open)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
	long long n;

	if (fd < 0) {
		perror(path);
		return -1;
	}
	n = pump(fd, -1, limit, rate);
	printf("%s: %lld bytes fd %d\n", path, n, fd);
	fflush(stdout);
	if (!keep_open)
		syscall(SYS_close, fd);
	return n < 0 ? -1 : fd;
}

static int copy(const char *src, const char *dst, double rate)
{
	int in = (int)syscall(SYS_openat, AT_FDCWD, src, O_RDONLY);
	int out = (int)syscall(SYS_openat, AT_FDCWD, dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	long long n;

	if (in < 0 || out < 0) {
		perror("open");
		return 1;
	}
	n = pump(in, out, 0, rate);
	printf("%s: %lld bytes fd %d\n", src, n, in);
	return n < 0 || syscall(SYS_close, out) ? 1 : 0;
}

static int reuse(const char *a, const char *b, double rate)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, a, O_RDONLY);
	long long half = lseek(fd, 0, SEEK_END) / 2;
	int fd2;

	if (fd < 0 || lseek(fd, 0, SEEK_SET) || pump(fd, -1, half, rate) != half)
		return 1;
	printf("%s: %lld bytes fd %d\n", a, half, fd);
	syscall(SYS_close, fd);
	fd2 = read_file(b, 0, rate, 0);
	return fd2 == fd ? 0 : 1;
}

static int forked(const char *a, const char *b, double rate)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(read_file(b, 0, rate, 0) < 0);
	if (read_file(a, 0, rate, 0) < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/*
 * Read the first half of @a on a descriptor that survives exec(2), then
 * execute this program again to read the rest of it ("rest FD RATE").
 */
static int exec_half(const char *a, double rate)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, a, O_RDONLY);
	long long half = lseek(fd, 0, SEEK_END) / 2;
	char num[16], r[32];

	if (fd < 0 || lseek(fd, 0, SEEK_SET) || pump(fd, -1, half, rate) != half)
		return 1;
	printf("%s: %lld bytes fd %d\n", a, half, fd);
	fflush(stdout);
	snprintf(num, sizeof(num), "%d", fd);
	snprintf(r, sizeof(r), "%g", rate);
	execl("/proc/self/exe", "outside-prog", "rest", num, r, (char *)NULL);
	perror("exec");
	return 1;
}

static int rest(int fd, double rate)
{
	long long n = pump(fd, -1, 0, rate);

	printf("rest: %lld bytes fd %d\n", n, fd);
	return n < 0;
}

/*
 * A scratch file, as restic's temporary packs: created, unlinked, @mib MiB
 * written (paced at @rate), then read back from the start and checked.
 */
static int scratch(const char *path, unsigned long long mib, double rate)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT | O_EXCL, 0600);
	unsigned long long i, bad = 0;
	struct timespec t0;
	long n;

	if (fd < 0 || unlink(path)) {
		perror(path);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < mib; i++) {
		memset(buf, (int)(i & 0xff), MIB);
		if (syscall(SYS_write, fd, buf, MIB) != MIB)
			return 1;
		pace(&t0, (i + 1) * MIB, rate);
	}
	if (lseek(fd, 0, SEEK_SET))
		return 1;
	for (i = 0; i < mib; i++) {
		n = syscall(SYS_read, fd, buf, MIB);
		if (n != MIB)
			return 1;
		bad += buf[0] != (char)(i & 0xff) || buf[MIB - 1] != (char)(i & 0xff);
	}
	printf("scratch: %llu MiB written and read back, %llu wrong\n", mib, bad);
	return bad != 0;
}

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

static const struct timespec tick = { 0, 50 * 1000 * 1000 };

/*
 * A database: reads and rewrites 4 KiB blocks where they are (with the
 * bytes they had), appends a block of its own every 50 ms, its position
 * never moving; at the end it reads back every block it appended.
 */
static int db(const char *path, double secs)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR);
	long long size = fd < 0 ? -1 : lseek(fd, 0, SEEK_END), end = size;
	unsigned int blk = 0, seed = 1;
	struct timespec t0;

	if (fd < 0 || size < 4096 || lseek(fd, 0, SEEK_SET))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (since(&t0) < secs) {
		long long off = (long long)(rand_r(&seed) % (size / 4096)) * 4096;

		if (syscall(SYS_pread64, fd, buf, 4096, off) != 4096 ||
		    syscall(SYS_pwrite64, fd, buf, 4096, off) != 4096)
			return 1;
		memset(buf, 'a' + blk % 26, 4096);
		if (syscall(SYS_pwrite64, fd, buf, 4096, end) != 4096)
			return 1;
		end += 4096;
		blk++;
		nanosleep(&tick, NULL);
	}
	for (unsigned int i = 0; i < blk; i++) {
		if (syscall(SYS_pread64, fd, buf, 4096, size + 4096ll * i) != 4096)
			return 1;
		for (int j = 0; j < 4096; j++)
			if (buf[j] != (char)('a' + i % 26))
				return 1;
	}
	printf("%s: %u blocks appended\n", path, blk);
	return syscall(SYS_close, fd) ? 1 : 0;
}

/* Random access: a 4 MiB hot set read once, then 4 KiB every 20 MiB. */
static int hot(const char *path, double secs)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
	long long size = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	struct timespec t0;

	if (fd < 0 || size < 24ll * MIB)
		return 1;
	if (lseek(fd, 0, SEEK_SET) || pump(fd, -1, 4ull * MIB, 0) != 4ll * MIB)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (since(&t0) < secs) {
		for (long long off = 24ll * MIB; off + 4096 <= size; off += 20ll * MIB) {
			if (lseek(fd, off, SEEK_SET) != off || syscall(SYS_read, fd, buf, 4096) != 4096)
				return 1;
			nanosleep(&tick, NULL);
		}
	}
	return syscall(SYS_close, fd) ? 1 : 0;
}

/* A reader whose position stands: pread, 1 MiB at a time, paced. */
static int pread_file(const char *path, double rate)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
	unsigned long long done = 0;
	struct timespec t0;
	long n;

	if (fd < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((n = syscall(SYS_pread64, fd, buf, MIB, (long long)done)) > 0) {
		done += n;
		pace(&t0, done, rate);
	}
	printf("%s: %llu bytes fd %d\n", path, done, fd);
	return n < 0 || syscall(SYS_close, fd) ? 1 : 0;
}

/*
 * A reader whose last stretch falls between two of the watcher's looks: the
 * first @mib MiB paced, a pause (the watcher sees it there), then the rest
 * in one read(2) (no look can fall inside it), and exit.
 */
static int burst(const char *path, unsigned long long mib)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
	long long size = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	const struct timespec pause = { 0, 300000000 };
	unsigned long long head = mib * MIB;
	long long rest;
	char *big;
	long n;

	if (fd < 0 || size < (long long)head || lseek(fd, 0, SEEK_SET))
		return 1;
	if (pump(fd, -1, head, 256) != (long long)head)
		return 1;
	nanosleep(&pause, NULL);
	rest = size - (long long)head;
	big = malloc(rest + 1);
	if (!big)
		return 1;
	n = syscall(SYS_read, fd, big, rest + 1);
	free(big);
	printf("%s: %llu bytes fd %d\n", path, head + (n > 0 ? n : 0), fd);
	return n != rest;
}

int main(int argc, char **argv)
{
	double rate = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: outside-prog copy|read|pread|exec|scratch|db|hot|reuse|fork|exit|kill ...\n");
		return 2;
	}
	if (!strcmp(argv[1], "exit"))
		return atoi(argv[2]);
	if (!strcmp(argv[1], "kill"))
		return raise(atoi(argv[2])) ? 1 : 0;
	if (!strcmp(argv[1], "scratch"))
		return argc > 3 ? scratch(argv[2], strtoull(argv[3], NULL, 10),
					  argc > 4 ? atof(argv[4]) : 0) : 2;
	if (!strcmp(argv[1], "rest"))
		return rest(atoi(argv[2]), argc > 3 ? atof(argv[3]) : 0);
	if (!strcmp(argv[1], "exec"))
		return exec_half(argv[2], argc > 3 ? atof(argv[3]) : 0);
	if (!strcmp(argv[1], "read"))
		return read_file(argv[2], 0, argc > 3 ? atof(argv[3]) : 0, 0) < 0;
	if (!strcmp(argv[1], "db"))
		return argc > 3 ? db(argv[2], atof(argv[3])) : 2;
	if (!strcmp(argv[1], "pread"))
		return argc > 3 ? pread_file(argv[2], atof(argv[3])) : 2;
	if (!strcmp(argv[1], "burst"))
		return argc > 3 ? burst(argv[2], strtoull(argv[3], NULL, 10)) : 2;
	if (!strcmp(argv[1], "hot"))
		return argc > 3 ? hot(argv[2], atof(argv[3])) : 2;
	if (argc < 4)
		return 2;
	if (argc > 4)
		rate = atof(argv[4]);
	if (!strcmp(argv[1], "copy"))
		return copy(argv[2], argv[3], rate);
	if (!strcmp(argv[1], "reuse"))
		return reuse(argv[2], argv[3], rate);
	if (!strcmp(argv[1], "fork"))
		return forked(argv[2], argv[3], rate);
	return 2;
}
