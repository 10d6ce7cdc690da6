// SPDX-License-Identifier: MIT
/*
 * The RAM testbed and the state file of what a run has set up (see
 * testbed.h).  Each step is written to the state file before it is taken,
 * so a run killed at any point leaves a record the next run can undo.  The
 * data folders a run claims are recorded too; what bench made in one is
 * recorded in the folder itself (bench.made), and bench-layout.c gives it
 * back.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "bench-made.h"
#include "cgroup.h"
#include "sample.h"
#include "testbed.h"
#include "util.h"

/*
 * Create STATE_DIR/bench-<id>.state holding its flock from before it has its
 * name: a state file is a live run's exactly while its lock is held, in any
 * PID namespace.  <id> is the pid, with -N added when another namespace's
 * run of the same pid has it.
 */
int state_open(struct state_journal *j)
{
	char tmp[PATH_MAX], path[PATH_MAX];

	if (mkdir(STATE_DIR, 0755) && errno != EEXIST)
		return -errno;
	for (int n = 0; n < 100; n++) {
		int fd;

		if (n)
			snprintf(j->id, sizeof(j->id), "%ld-%d", (long)getpid(), n);
		else
			snprintf(j->id, sizeof(j->id), "%ld", (long)getpid());
		snprintf(tmp, sizeof(tmp), STATE_DIR "/bench-%s.new", j->id);
		snprintf(path, sizeof(path), STATE_DIR "/bench-%s.state", j->id);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			break;
		if (flock(fd, LOCK_EX) || link(tmp, path)) {
			int err = errno;

			unlink(tmp);
			close(fd);
			if (err == EEXIST)
				continue;
			errno = err;
			break;
		}
		unlink(tmp);
		j->fd = fd;
		snprintf(j->path, sizeof(j->path), "%s", path);
		return 0;
	}
	j->id[0] = '\0';
	return -errno;
}

const char *state_run_id(struct state_journal *j)
{
	if (!j->id[0])
		snprintf(j->id, sizeof(j->id), "%ld", (long)getpid());
	return j->id;
}

int state_record(struct state_journal *j, const char *what, const char *path)
{
	char line[PATH_MAX + 32];
	int n;

	if (!j || !j->path[0])
		return 0;
	n = snprintf(line, sizeof(line), "%s %s\n", what, path);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -ENAMETOOLONG;
	if (write(j->fd, line, n) != n)
		return -EIO;
	return 0;
}

/*
 * The record is "DEV INO BTIME GEN PATH" (bench-made.h's identity): ext4
 * gives a file made after the output's removal its inode number, and the
 * undo must not take that file for the output.  A record too long for a
 * line is not written: an output not recorded is left, never another file
 * taken for it.
 */
int state_record_output(struct state_journal *j, const char *path, int fd)
{
	char real[PATH_MAX], rec[PATH_MAX + 128];
	struct bench_made_id id;
	int ret, n;

	if (!j || !j->path[0])
		return 0;
	if ((ret = bench_made_id_fd(fd, &id)))
		return ret;
	if (!realpath(path, real))
		return -errno;
	n = bench_made_id_print(rec, sizeof(rec), &id);
	if (n < 0 || (size_t)n >= sizeof(rec) ||
	    (size_t)snprintf(rec + n, sizeof(rec) - (size_t)n, " %s", real) >=
		    sizeof(rec) - (size_t)n)
		return -ENAMETOOLONG;
	return state_record(j, STATE_OUTPUT, rec);
}

void state_close(struct state_journal *j)
{
	if (!j->path[0])
		return;
	unlink(j->path);	/* before the lock goes: no one undoes it twice */
	close(j->fd);
	j->path[0] = '\0';
}

/* umount @path, detaching it lazily when it stays busy. */
static int umount_retry(const char *path)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };

	for (int i = 0; i < 10; i++) {
		if (!umount2(path, 0))
			return 0;
		if (errno == EINVAL || errno == ENOENT)
			return 0;	/* not (or no longer) a mount point */
		if (errno != EBUSY)
			return -errno;
		nanosleep(&pause, NULL);
	}
	return umount2(path, MNT_DETACH) ? -errno : 0;
}

/* Detach loop device @dev when it is still bound to the file @backing. */
static int loop_detach(const char *dev, const char *backing)
{
	char sys[PATH_MAX], bound[PATH_MAX] = "";
	const char *name = strrchr(dev, '/');
	int fd, ret = 0;
	ssize_t n;

	snprintf(sys, sizeof(sys), "/sys/block/%s/loop/backing_file",
		 name ? name + 1 : dev);
	fd = open(sys, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;		/* not bound any more (AUTOCLEAR did it) */
	n = read(fd, bound, sizeof(bound) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	bound[n] = '\0';
	bound[strcspn(bound, "\n")] = '\0';
	if (backing && strncmp(bound, backing, strlen(backing)))
		return 0;		/* someone else's now: leave it */
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, LOOP_CLR_FD, 0) && errno != ENXIO)
		ret = -errno;
	close(fd);
	return ret;
}

/* Undo one recorded step. */
static int undo(const char *what, const char *path, const char *backing)
{
	if (!strcmp(what, "mount") || !strcmp(what, "tmpfs"))
		return umount_retry(path);
	if (!strcmp(what, "loop"))
		return loop_detach(path, backing);
	if (!strcmp(what, "cgroup"))
		return cgroup_remove_path(path, 0);
	if (!strcmp(what, "dir"))
		return rmdir(path) && errno != ENOENT ? -errno : 0;
	return 0;
}

/*
 * The identity at the start of output record @rec into @ret_id, then the
 * path: where the path starts, or -1.  A record of an older bench, "DEV:INO
 * PATH", gives the device and inode alone (has = 0), which a file made in
 * the output's place may share.  Only an absolute path is one.
 */
static int output_id(const char *rec, struct bench_made_id *ret_id)
{
	unsigned long long dev, ino;
	int n = 0;

	if (sscanf(rec, "%llu:%llu %n", &dev, &ino, &n) == 2 && n) {
		memset(ret_id, 0, sizeof(*ret_id));
		ret_id->dev = dev;
		ret_id->ino = ino;
	} else if ((n = bench_made_id_parse(rec, ret_id)) >= 0 && rec[n] == ' ') {
		n++;
	} else {
		return -1;
	}
	return rec[n] == '/' ? n : -1;
}

/*
 * Remove the output of record @rec while it is still the file the run
 * made, all its recorded identity matching (a part that cannot be read now
 * does not); its path into *@ret_path.  1 removed, 0 left alone (gone, or
 * another file now), or -errno.
 */
static int undo_output(const char *rec, const char **ret_path)
{
	struct bench_made_id was, now;
	struct stat st;
	int n;

	*ret_path = rec;
	n = output_id(rec, &was);
	if (n < 0)
		return 0;
	*ret_path = rec + n;
	if (lstat(*ret_path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISREG(st.st_mode))
		return 0;
	n = bench_made_id_at(AT_FDCWD, *ret_path, was.has, &now);
	if (n)
		return n == -ENOENT ? 0 : n;
	if (!bench_made_id_same(&was, &now))
		return 0;
	return unlink(*ret_path) ? -errno : 1;
}

/* The most records one state file holds: a testbed of 16 devices makes 4
 * per device (a "loop" again for each busy loop device tried), beside its
 * folders, tmpfs and the cgroup; or a data folder per directory; and the
 * outputs. */
#define STATE_MAX_LINES (8 + 8 * TESTBED_MAX_DEVICES + BENCH_MAX_DIRS + BENCH_OUT_N)

/* One record of a state file, with the backing file in effect for it. */
struct record {
	char line[PATH_MAX + 32];
	const char *backing;		/* the last "backing" before it, or NULL */
};

/* Read up to STATE_MAX_LINES records of @file into @recs; how many, or -errno. */
static int read_records(const char *file, struct record *recs)
{
	const char *backing = NULL;
	int n = 0;
	FILE *f;

	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (n < STATE_MAX_LINES && fgets(recs[n].line, sizeof(recs[n].line), f)) {
		recs[n].line[strcspn(recs[n].line, "\n")] = '\0';
		recs[n].backing = backing;
		if (!strncmp(recs[n].line, "backing ", 8))
			backing = recs[n].line + 8;
		n++;
	}
	fclose(f);
	return n;
}

/* Undo the records of one state file, last first; returns how many.  A loop
 * device is detached only while it is bound to the backing file recorded
 * before it. */
static int undo_file(const char *file, state_undo_fn fn, void *arg)
{
	struct record *recs = calloc(STATE_MAX_LINES, sizeof(*recs));
	int n, done = 0;

	if (!recs)
		return -ENOMEM;
	n = read_records(file, recs);
	for (int i = n - 1; i >= 0; i--) {
		char *sp = strchr(recs[i].line, ' ');
		int ret;

		if (!sp)
			continue;
		*sp = '\0';
		if (!strcmp(recs[i].line, "backing"))
			continue;
		if (!strcmp(recs[i].line, STATE_OUTPUT)) {
			const char *path;

			ret = undo_output(sp + 1, &path);
			if (ret && fn)
				fn(recs[i].line, path, ret < 0 ? ret : 0, arg);
			done += ret > 0;
			continue;
		}
		if (!strncmp(recs[i].line, STATE_FOLDER, strlen(STATE_FOLDER))) {
			/* says what it removed, file by file */
			ret = bench_release_stale(sp + 1, !strcmp(recs[i].line, STATE_FOLDER_KEEP),
						  fn, arg);
			if (ret < 0 && fn)
				fn(recs[i].line, sp + 1, ret, arg);
			done += ret > 0 ? ret : 0;
			continue;
		}
		ret = undo(recs[i].line, sp + 1, recs[i].backing);
		if (fn)
			fn(recs[i].line, sp + 1, ret, arg);
		done++;
	}
	free(recs);
	if (n < 0)
		return n;
	unlink(file);
	return done;
}

/* Whether @fd is still the file at @path. */
static int same_file(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !lstat(path, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/*
 * Whether the pid at the start of @id exists here.  A live pid keeps a state
 * file even with its lock free (a run of a bench that took no locks, or a
 * reused pid: left for a later sweep); a missing one proves nothing (another
 * PID namespace), so the lock decides then.
 */
static int pid_lives(const char *id)
{
	long pid = strtol(id, NULL, 10);

	return pid > 0 && !(kill((pid_t)pid, 0) && errno == ESRCH);
}

/* Whether @fd was last changed over a minute ago. */
static int old_file(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_mtime < time(NULL) - 60;
}

int state_cleanup_stale(state_undo_fn fn, void *arg)
{
	char file[PATH_MAX + 300];
	struct dirent *de;
	int total = 0;
	DIR *d;

	d = opendir(STATE_DIR);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		int fd, ret;

		int fresh = len > 10 && !strcmp(de->d_name + len - 4, ".new");

		if (strncmp(de->d_name, "bench-", 6) || !isdigit((unsigned char)de->d_name[6]) ||
		    (!fresh && (len < 12 || strcmp(de->d_name + len - 6, ".state"))))
			continue;
		snprintf(file, sizeof(file), STATE_DIR "/%s", de->d_name);
		fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (pid_lives(de->d_name + 6) || (fresh && !old_file(fd))) {
			close(fd);	/* maybe being made this instant */
			continue;
		}
		if (!flock(fd, LOCK_EX | LOCK_NB) && same_file(fd, file)) {
			/* its run is gone; a .new one died before it recorded anything */
			ret = fresh ? (unlink(file), 0) : undo_file(file, fn, arg);
			if (ret > 0)
				total += ret;
		}
		close(fd);
	}
	closedir(d);
	return total;
}

/* Run @argv with output discarded; 0 when it exits 0. */
static int run_quiet(char *const argv[])
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -ENOENT;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

/* Whether program @name is on PATH (or in /sbin, /usr/sbin). */
static int have_program(const char *name)
{
	static const char *dirs[] = { "/usr/sbin", "/sbin", "/usr/bin", "/bin" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], name);
		if (!access(path, X_OK))
			return 1;
	}
	return 0;
}

/* The base and tmpfs folders; one device's names keep the single testbed's. */
static int make_dirs(struct testbed *tb)
{
	char base[sizeof(tb->base)];

	snprintf(base, sizeof(base), STATE_DIR "/testbed-%s", state_run_id(tb->journal));
	memcpy(tb->base, base, sizeof(base));
	snprintf(tb->ram, sizeof(tb->ram), "%s/ram", base);
	for (unsigned int i = 0; i < tb->count; i++) {
		struct testbed_dev *d = &tb->dev[i];

		d->loop_fd = -1;
		if (tb->count == 1) {
			snprintf(d->mnt, sizeof(d->mnt), "%s/mnt", base);
			snprintf(d->backing, sizeof(d->backing), "%s/ram/disk.img", base);
		} else {
			snprintf(d->mnt, sizeof(d->mnt), "%s/mnt%u", base, i);
			snprintf(d->backing, sizeof(d->backing), "%s/ram/disk%u.img", base, i);
		}
	}
	if (state_record(tb->journal, "dir", tb->base) || mkdir(tb->base, 0700))
		return -errno;
	if (state_record(tb->journal, "dir", tb->ram) || mkdir(tb->ram, 0700))
		return -errno;
	return 0;
}

/* A tmpfs just big enough for the backing files. */
static int make_ram(struct testbed *tb)
{
	char opts[64];

	snprintf(opts, sizeof(opts), "size=%llu,mode=0700",
		 (unsigned long long)(tb->size * tb->count + (16u << 20)));
	state_record(tb->journal, "tmpfs", tb->ram);
	if (mount("pagecliff-testbed", tb->ram, "tmpfs", MS_NOSUID | MS_NODEV, opts))
		return -errno;
	tb->ram_mounted = 1;
	return 0;
}

/* Device @d's mount point and backing file. */
static int make_backing(struct testbed *tb, struct testbed_dev *d)
{
	int fd, ret = 0;

	if (state_record(tb->journal, "dir", d->mnt) || mkdir(d->mnt, 0755))
		return -errno;
	state_record(tb->journal, "backing", d->backing);
	fd = open(d->backing, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)tb->size))
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * The kernel's default readahead, 128 KiB, in the 512-byte sectors of
 * BLKRASET.  A loop device keeps the read_ahead_kb its last user set (binding
 * it again does not reset it): a testbed left with another's 256 MiB reads
 * ahead the whole of a small memory cap, and runs stop being comparable.
 */
#define TESTBED_RA_SECTORS 256

/* Bind a free loop device to @d's backing file (AUTOCLEAR), default readahead. */
static int make_loop(struct testbed *tb, struct testbed_dev *d)
{
	struct loop_config cfg;
	int ctl, file, ret = -EBUSY;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	file = open(d->backing, O_RDWR | O_CLOEXEC);
	if (file < 0) {
		ret = -errno;
		goto out_ctl;
	}
	for (int tries = 0; tries < 8 && ret == -EBUSY; tries++) {
		int nr = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (nr < 0) {
			ret = -errno;
			break;
		}
		snprintf(d->loopdev, sizeof(d->loopdev), "/dev/loop%d", nr);
		d->loop_fd = open(d->loopdev, O_RDWR | O_CLOEXEC);
		if (d->loop_fd < 0) {
			ret = -errno;
			break;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = file;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		/* the name is informational; a long one is cut at LO_NAME_SIZE */
		memcpy(cfg.info.lo_file_name, d->backing,
		       strnlen(d->backing, LO_NAME_SIZE - 1));
		state_record(tb->journal, "loop", d->loopdev);
		ret = ioctl(d->loop_fd, LOOP_CONFIGURE, &cfg) ? -errno : 0;
		if (!ret && ioctl(d->loop_fd, BLKRASET, (unsigned long)TESTBED_RA_SECTORS))
			ret = -errno;	/* unbound below: AUTOCLEAR at our close */
		if (ret) {
			close(d->loop_fd);
			d->loop_fd = -1;
		}
	}
	close(file);
out_ctl:
	close(ctl);
	return ret;
}

/* mkfs.xfs refuses file systems below 300 MB: smaller testbeds get ext4. */
#define XFS_MIN_BYTES (320ull << 20)

static int make_fs(struct testbed *tb, struct testbed_dev *d)
{
	char *xfs[] = { "mkfs.xfs", "-q", "-f", d->loopdev, NULL };
	char *ext4[] = { "mkfs.ext4", "-q", "-F", "-E", "nodiscard", d->loopdev, NULL };
	int ret;

	if (have_program("mkfs.xfs") && tb->size >= XFS_MIN_BYTES) {
		snprintf(tb->fstype, sizeof(tb->fstype), "xfs");
		ret = run_quiet(xfs);
	} else {
		snprintf(tb->fstype, sizeof(tb->fstype), "ext4");
		ret = run_quiet(ext4);
	}
	if (ret)
		return ret;
	state_record(tb->journal, "mount", d->mnt);
	if (mount(d->loopdev, d->mnt, tb->fstype, MS_NOATIME, NULL))
		return -errno;
	d->fs_mounted = 1;
	return 0;
}

/* One device: backing file, loop device, file system; *ret_step on failure. */
static int make_dev(struct testbed *tb, struct testbed_dev *d, const char **ret_step)
{
	int ret;

	*ret_step = "backing file";
	ret = make_backing(tb, d);
	if (!ret) {
		*ret_step = "loop device";
		ret = make_loop(tb, d);
	}
	if (!ret) {
		*ret_step = "file system";
		ret = make_fs(tb, d);
	}
	return ret;
}

/* The smallest device: a file system and a data set need room. */
#define TESTBED_MIN_BYTES (64ull << 20)

void testbed_parse(const char *arg, uint64_t *ret_size, unsigned int *ret_count)
{
	const char *spec = arg + 4, *x = strchr(spec, 'x');
	struct sample_meminfo mi;
	uint64_t count = 1, size;
	char num[32];

	if (strncmp(arg, "ram:", 4))
		usage_error("bad --testbed '%s': ram:SIZE or ram:COUNTxSIZE, e.g. ram:5g, ram:4x2g",
			    arg);
	if (x) {
		snprintf(num, sizeof(num), "%.*s", (int)(x - spec < 31 ? x - spec : 31), spec);
		if (parse_uint(num, 1, TESTBED_MAX_DEVICES, &count))
			usage_error("bad --testbed '%s': COUNT is a whole number from 1 to %d",
				    arg, TESTBED_MAX_DEVICES);
		spec = x + 1;
	}
	if (parse_size(spec, &size) || size < TESTBED_MIN_BYTES || size > UINT64_MAX / 32)
		usage_error("bad --testbed '%s': a size per device from %llu MiB, in fio units "
			    "(ram:5g, ram:4x2g)", arg, TESTBED_MIN_BYTES >> 20);
	/* the backing files live in tmpfs: memory the machine must have */
	if (!sample_read_meminfo(NULL, &mi) && sample_known(mi.available) &&
	    count * size > mi.available / 10 * 8)
		usage_error("--testbed %s needs %llu MiB of tmpfs, more than 80%% of the %llu MiB "
			    "available", arg, (unsigned long long)(count * size >> 20),
			    (unsigned long long)(mi.available >> 20));
	*ret_size = size;
	*ret_count = (unsigned int)count;
}

int testbed_create(struct testbed *tb, struct state_journal *journal, unsigned int count,
		   uint64_t size, atomic_int *stop, const char **ret_step)
{
	int ret;

	memset(tb, 0, sizeof(*tb));
	tb->journal = journal;
	tb->loop_fd = -1;
	tb->size = size;
	tb->count = count < 1 ? 1 : count > TESTBED_MAX_DEVICES ? TESTBED_MAX_DEVICES : count;
	*ret_step = "directories";
	ret = make_dirs(tb);
	if (!ret) {
		*ret_step = "tmpfs";
		ret = make_ram(tb);
	}
	for (unsigned int i = 0; !ret && i < tb->count; i++) {
		if (stop && *stop) {
			*ret_step = "interrupted";
			ret = -EINTR;
			break;
		}
		tb->ndev = i + 1;
		ret = make_dev(tb, &tb->dev[i], ret_step);
	}
	if (ret)
		testbed_destroy(tb);
	return ret;
}

/* Unmount and detach device @d; 0 or the first -errno. */
static int destroy_dev(struct testbed_dev *d)
{
	int ret = 0;

	if (d->fs_mounted)
		ret = umount_retry(d->mnt);
	d->fs_mounted = 0;
	if (d->loop_fd >= 0) {
		/* AUTOCLEAR detaches at this close once the fs is unmounted;
		 * clear explicitly too in case the fs was never mounted. */
		ioctl(d->loop_fd, LOOP_CLR_FD, 0);
		close(d->loop_fd);
		d->loop_fd = -1;
	}
	return ret;
}

int testbed_destroy(struct testbed *tb)
{
	int ret = 0, err;

	for (unsigned int i = tb->ndev; i-- > 0;)
		if ((err = destroy_dev(&tb->dev[i])) && !ret)
			ret = err;
	if (tb->ram_mounted && (err = umount_retry(tb->ram)) && !ret)
		ret = err;
	tb->ram_mounted = 0;
	if (tb->base[0]) {
		for (unsigned int i = tb->ndev; i-- > 0;)
			rmdir(tb->dev[i].mnt);
		tb->ndev = 0;
		rmdir(tb->ram);
		rmdir(tb->base);
	}
	return ret;
}
