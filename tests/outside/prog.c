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
 *   outside-prog sum FILE                   read FILE whole, print its sum
 *   outside-prog preadv-pool FILE THREADS   THREADS threads take 1 MiB chunks
 *                                           in turn and read each with one
 *                                           preadv(2), positions never moving
 *   outside-prog mmap FILE shared|private   map FILE whole, touch it in order
 *   outside-prog sendfile SRC DST           copy SRC whole with ONE sendfile(2)
 *   outside-prog cfr SRC DST                ... ONE copy_file_range(2)
 *   outside-prog write DST MIB [MIB_PER_S]  write MIB MiB of a fixed pattern
 *                                           (the same every time), 1 MiB a call
 *   outside-prog exit CODE                  exit with CODE
 *   outside-prog kill SIG                   die of SIG
 *
 * Prints "PATH: BYTES bytes fd N" per file read; sum, preadv-pool and mmap
 * print "PATH: BYTES bytes sum HEX" instead, the same sum for the same bytes
 * whatever the order they were read in (compare with `sum`); sendfile and
 * cfr print "SRC: BYTES bytes in N calls" (N is 1 unless the kernel
 * returned short).  Exits 0, or 1 on an error.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
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

/*
 * The sum of @len bytes at file offset @off (a multiple of 8): every 8-byte
 * word times an odd weight from its index in the file, added.  The sums of
 * the pieces of a file add up to the same whatever the order they were read
 * in; a byte changed or moved changes it.
 */
static uint64_t sum_of(const unsigned char *p, size_t len, uint64_t off)
{
	uint64_t s = 0, i = off / 8, w;
	size_t k;

	for (k = 0; k + 8 <= len; k += 8, i++) {
		memcpy(&w, p + k, 8);
		s += w * (2 * i + 1);
	}
	if (k < len) {
		w = 0;
		memcpy(&w, p + k, len - k);
		s += w * (2 * i + 1);
	}
	return s;
}

static void print_sum(const char *path, unsigned long long bytes, uint64_t sum)
{
	printf("%s: %llu bytes sum %016llx\n", path, bytes, (unsigned long long)sum);
}

/* The reference: @path read whole in order, 1 MiB at a time. */
static int sum_file(const char *path)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
	unsigned long long done = 0;
	uint64_t s = 0;
	long n = 0;

	if (fd < 0) {
		perror(path);
		return 1;
	}
	for (;;) {
		size_t got = 0;

		while (got < MIB && (n = syscall(SYS_pread64, fd, buf + got, MIB - got,
						 (long long)(done + got))) > 0)
			got += n;
		s += sum_of((unsigned char *)buf, got, done);
		done += got;
		if (n <= 0)
			break;
	}
	print_sum(path, done, s);
	return n < 0 || syscall(SYS_close, fd) ? 1 : 0;
}

/* A pool of readers of one descriptor: each takes the next 1 MiB chunk. */
struct pool {
	int fd;
	unsigned long long size;
	unsigned long long next;	/* the next chunk, taken by an atomic add */
	unsigned long long bytes;
	uint64_t sum;
	int err;
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	unsigned char *mem = malloc(MIB);
	unsigned long long bytes = 0;
	uint64_t s = 0;

	if (!mem) {
		__atomic_store_n(&p->err, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	for (;;) {
		unsigned long long c = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
		unsigned long long off = c * MIB;
		size_t want;
		struct iovec iov[2];
		long n;

		if (off >= p->size)
			break;
		want = p->size - off < MIB ? p->size - off : MIB;
		iov[0] = (struct iovec){ mem, want / 2 };
		iov[1] = (struct iovec){ mem + want / 2, want - want / 2 };
		n = syscall(SYS_preadv, p->fd, iov, 2, (long)off, (long)(off >> 32));
		if (n != (long)want) {
			__atomic_store_n(&p->err, 1, __ATOMIC_RELAXED);
			break;
		}
		s += sum_of(mem, want, off);
		bytes += want;
	}
	free(mem);
	__atomic_fetch_add(&p->sum, s, __ATOMIC_RELAXED);
	__atomic_fetch_add(&p->bytes, bytes, __ATOMIC_RELAXED);
	return NULL;
}

/* @threads threads read @path whole with preadv(2), as a backup tool's pool. */
static int preadv_pool(const char *path, int threads)
{
	struct pool p = { .fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY) };
	pthread_t t[64];
	long long size = p.fd < 0 ? -1 : lseek(p.fd, 0, SEEK_END);
	int i, started = 0;

	if (size < 0 || lseek(p.fd, 0, SEEK_SET) || threads < 1 || threads > 64) {
		perror(path);
		return 1;
	}
	p.size = (unsigned long long)size;
	for (i = 0; i < threads; i++)
		if (!pthread_create(&t[i], NULL, pool_worker, &p))
			started++;
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	print_sum(path, p.bytes, p.sum);
	if (lseek(p.fd, 0, SEEK_CUR) != 0)	/* it never moved */
		return 1;
	return p.err || started != threads || p.bytes != p.size ||
	       syscall(SYS_close, p.fd) ? 1 : 0;
}

/*
 * A reader through a mapping: @path mapped whole (shared read-only, or
 * private read-write as a copy-on-write data set), its descriptor closed
 * at once, the mapping touched in order and summed.
 */
static int mmap_file(const char *path, const char *how)
{
	int priv = !strcmp(how, "private");
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
	long long size = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	unsigned long long off;
	unsigned char *m;
	uint64_t s = 0;

	if (!priv && strcmp(how, "shared"))
		return 2;
	if (size <= 0) {
		perror(path);
		return 1;
	}
	m = (unsigned char *)syscall(SYS_mmap, NULL, (size_t)size,
				     priv ? PROT_READ | PROT_WRITE : PROT_READ,
				     priv ? MAP_PRIVATE : MAP_SHARED, fd, 0L);
	if (m == MAP_FAILED || syscall(SYS_close, fd))
		return 1;
	for (off = 0; off < (unsigned long long)size; off += MIB)
		s += sum_of(m + off, size - off < MIB ? size - off : MIB, off);
	print_sum(path, (unsigned long long)size, s);
	return syscall(SYS_munmap, m, (size_t)size) ? 1 : 0;
}

/*
 * A copy in one system call, as coreutils cat (copy_file_range) and
 * Python's shutil (sendfile): the positions move only when it returns.
 * Called again only for what a short return left.
 */
static int one_call(const char *src, const char *dst, int cfr)
{
	int in = (int)syscall(SYS_openat, AT_FDCWD, src, O_RDONLY);
	int out = (int)syscall(SYS_openat, AT_FDCWD, dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	long long size = in < 0 ? -1 : lseek(in, 0, SEEK_END), done = 0;
	int calls = 0;
	long n;

	if (size < 0 || out < 0 || lseek(in, 0, SEEK_SET)) {
		perror("open");
		return 1;
	}
	while (done < size) {
		if (cfr)
			n = syscall(SYS_copy_file_range, in, NULL, out, NULL, (size_t)(size - done), 0);
		else
			n = syscall(SYS_sendfile, out, in, NULL, (size_t)(size - done));
		calls++;
		if (n <= 0) {
			perror(cfr ? "copy_file_range" : "sendfile");
			return 1;
		}
		done += n;
	}
	printf("%s: %lld bytes in %d calls\n", src, done, calls);
	return syscall(SYS_close, in) || syscall(SYS_close, out) ? 1 : 0;
}

/* Block @i of the writer's pattern: xorshift64 from a seed of the block's own. */
static void pattern(uint64_t i)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (i + 1);

	for (size_t k = 0; k < MIB; k += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + k, &x, 8);
	}
}

/*
 * A writer: @mib MiB of the pattern to @dst, 1 MiB a write(2), paced at
 * @rate (0: as fast as it goes).  The same bytes every time, so that
 * `write /dev/stdout MIB | sha256sum` is what the file must hold.  Says
 * what it wrote on stderr (stdout may be the file).
 */
static int write_file(const char *dst, unsigned long long mib, double rate)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct timespec t0;
	unsigned long long i;

	if (fd < 0) {
		perror(dst);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < mib; i++) {
		size_t done = 0;
		long n;

		pattern(i);
		while (done < MIB) {
			n = syscall(SYS_write, fd, buf + done, MIB - done);
			if (n <= 0) {
				perror(dst);
				return 1;
			}
			done += n;
		}
		pace(&t0, (i + 1) * MIB, rate);
	}
	fprintf(stderr, "%s: %llu bytes written\n", dst, mib * MIB);
	return syscall(SYS_close, fd) ? 1 : 0;
}

int main(int argc, char **argv)
{
	double rate = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: outside-prog copy|read|pread|exec|scratch|db|hot|reuse|fork|sum|preadv-pool|mmap|sendfile|cfr|write|exit|kill ...\n");
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
	if (!strcmp(argv[1], "sum"))
		return sum_file(argv[2]);
	if (!strcmp(argv[1], "preadv-pool"))
		return argc > 3 ? preadv_pool(argv[2], atoi(argv[3])) : 2;
	if (!strcmp(argv[1], "mmap"))
		return argc > 3 ? mmap_file(argv[2], argv[3]) : 2;
	if (!strcmp(argv[1], "write"))
		return argc > 3 ? write_file(argv[2], strtoull(argv[3], NULL, 10),
					     argc > 4 ? atof(argv[4]) : 0) : 2;
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
	if (!strcmp(argv[1], "sendfile") || !strcmp(argv[1], "cfr"))
		return one_call(argv[2], argv[3], argv[1][0] == 'c');
	return 2;
}
