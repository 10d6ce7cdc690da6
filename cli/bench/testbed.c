// SPDX-License-Identifier: MIT
/*
 * The RAM testbed and the state file of what a run has set up (see
 * testbed.h).  Each step is written to the state file before it is taken,
 * so a run killed at any point leaves a record the next run can undo.
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

#include "cgroup.h"
#include "testbed.h"

static int state_fd = -1;
static char state_path[PATH_MAX];
static char state_id[32];

/*
 * Create STATE_DIR/bench-<id>.state holding its flock from before it has its
 * name: a state file is a live run's exactly while its lock is held, in any
 * PID namespace.  <id> is the pid, with -N added when another namespace's
 * run of the same pid has it.
 */
int state_open(void)
{
	char tmp[PATH_MAX];

	if (mkdir(STATE_DIR, 0755) && errno != EEXIST)
		return -errno;
	for (int n = 0; n < 100; n++) {
		int fd;

		if (n)
			snprintf(state_id, sizeof(state_id), "%ld-%d", (long)getpid(), n);
		else
			snprintf(state_id, sizeof(state_id), "%ld", (long)getpid());
		snprintf(tmp, sizeof(tmp), STATE_DIR "/bench-%s.new", state_id);
		snprintf(state_path, sizeof(state_path), STATE_DIR "/bench-%s.state", state_id);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			break;
		if (flock(fd, LOCK_EX) || link(tmp, state_path)) {
			int err = errno;

			unlink(tmp);
			close(fd);
			if (err == EEXIST)
				continue;
			errno = err;
			break;
		}
		unlink(tmp);
		state_fd = fd;
		return 0;
	}
	state_id[0] = '\0';
	return -errno;
}

const char *state_run_id(void)
{
	if (!state_id[0])
		snprintf(state_id, sizeof(state_id), "%ld", (long)getpid());
	return state_id;
}

int state_record(const char *what, const char *path)
{
	char line[PATH_MAX + 32];
	int n;

	if (state_fd < 0)
		return 0;
	n = snprintf(line, sizeof(line), "%s %s\n", what, path);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -ENAMETOOLONG;
	if (write(state_fd, line, n) != n)
		return -EIO;
	return 0;
}

void state_close(void)
{
	if (state_fd < 0)
		return;
	unlink(state_path);	/* before the lock goes: no one undoes it twice */
	close(state_fd);
	state_fd = -1;
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

/* Undo the records of one state file, last first; returns how many. */
static int undo_file(const char *file, state_undo_fn fn, void *arg)
{
	char lines[64][PATH_MAX + 32], backing[PATH_MAX] = "";
	int n = 0, done = 0;
	FILE *f;

	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (n < 64 && fgets(lines[n], sizeof(lines[n]), f)) {
		lines[n][strcspn(lines[n], "\n")] = '\0';
		if (!strncmp(lines[n], "backing ", 8))
			snprintf(backing, sizeof(backing), "%s", lines[n] + 8);
		n++;
	}
	fclose(f);
	for (int i = n - 1; i >= 0; i--) {
		char *sp = strchr(lines[i], ' ');
		int ret;

		if (!sp || !strcmp(lines[i], "backing"))
			continue;
		*sp = '\0';
		if (!strcmp(lines[i], "backing"))
			continue;
		ret = undo(lines[i], sp + 1, backing[0] ? backing : NULL);
		if (fn)
			fn(lines[i], sp + 1, ret, arg);
		done++;
	}
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

static int make_dirs(struct testbed *tb)
{
	snprintf(tb->base, sizeof(tb->base), STATE_DIR "/testbed-%s", state_run_id());
	snprintf(tb->ram, sizeof(tb->ram), "%s/ram", tb->base);
	snprintf(tb->mnt, sizeof(tb->mnt), "%s/mnt", tb->base);
	snprintf(tb->backing, sizeof(tb->backing), "%s/ram/disk.img", tb->base);
	if (state_record("dir", tb->base) || mkdir(tb->base, 0700))
		return -errno;
	if (state_record("dir", tb->ram) || mkdir(tb->ram, 0700))
		return -errno;
	if (state_record("dir", tb->mnt) || mkdir(tb->mnt, 0755))
		return -errno;
	return 0;
}

/* A tmpfs just big enough for the backing file, and the file in it. */
static int make_backing(struct testbed *tb)
{
	char opts[64];
	int fd, ret = 0;

	snprintf(opts, sizeof(opts), "size=%llu,mode=0700",
		 (unsigned long long)(tb->size + (16u << 20)));
	state_record("tmpfs", tb->ram);
	if (mount("pagecliff-testbed", tb->ram, "tmpfs", MS_NOSUID | MS_NODEV, opts))
		return -errno;
	tb->ram_mounted = 1;
	state_record("backing", tb->backing);
	fd = open(tb->backing, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)tb->size))
		ret = -errno;
	close(fd);
	return ret;
}

/* Bind a free loop device to the backing file (AUTOCLEAR). */
static int make_loop(struct testbed *tb)
{
	struct loop_config cfg;
	int ctl, file, ret = -EBUSY;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	file = open(tb->backing, O_RDWR | O_CLOEXEC);
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
		snprintf(tb->loopdev, sizeof(tb->loopdev), "/dev/loop%d", nr);
		tb->loop_fd = open(tb->loopdev, O_RDWR | O_CLOEXEC);
		if (tb->loop_fd < 0) {
			ret = -errno;
			break;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = file;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		/* the name is informational; a long one is cut at LO_NAME_SIZE */
		memcpy(cfg.info.lo_file_name, tb->backing,
		       strnlen(tb->backing, LO_NAME_SIZE - 1));
		state_record("loop", tb->loopdev);
		ret = ioctl(tb->loop_fd, LOOP_CONFIGURE, &cfg) ? -errno : 0;
		if (ret) {
			close(tb->loop_fd);
			tb->loop_fd = -1;
		}
	}
	close(file);
out_ctl:
	close(ctl);
	return ret;
}

/* mkfs.xfs refuses file systems below 300 MB: smaller testbeds get ext4. */
#define XFS_MIN_BYTES (320ull << 20)

static int make_fs(struct testbed *tb)
{
	char *xfs[] = { "mkfs.xfs", "-q", "-f", tb->loopdev, NULL };
	char *ext4[] = { "mkfs.ext4", "-q", "-F", "-E", "nodiscard", tb->loopdev, NULL };
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
	state_record("mount", tb->mnt);
	if (mount(tb->loopdev, tb->mnt, tb->fstype, MS_NOATIME, NULL))
		return -errno;
	tb->fs_mounted = 1;
	return 0;
}

int testbed_create(struct testbed *tb, uint64_t size, const char **ret_step)
{
	int ret;

	memset(tb, 0, sizeof(*tb));
	tb->loop_fd = -1;
	tb->size = size;
	*ret_step = "directories";
	ret = make_dirs(tb);
	if (!ret) {
		*ret_step = "tmpfs";
		ret = make_backing(tb);
	}
	if (!ret) {
		*ret_step = "loop device";
		ret = make_loop(tb);
	}
	if (!ret) {
		*ret_step = "file system";
		ret = make_fs(tb);
	}
	if (ret)
		testbed_destroy(tb);
	return ret;
}

int testbed_destroy(struct testbed *tb)
{
	int ret = 0, err;

	if (tb->fs_mounted && (err = umount_retry(tb->mnt)) && !ret)
		ret = err;
	tb->fs_mounted = 0;
	if (tb->loop_fd >= 0) {
		/* AUTOCLEAR detaches at this close once the fs is unmounted;
		 * clear explicitly too in case the fs was never mounted. */
		ioctl(tb->loop_fd, LOOP_CLR_FD, 0);
		close(tb->loop_fd);
		tb->loop_fd = -1;
	}
	if (tb->ram_mounted && (err = umount_retry(tb->ram)) && !ret)
		ret = err;
	tb->ram_mounted = 0;
	if (tb->base[0]) {
		rmdir(tb->mnt);
		rmdir(tb->ram);
		rmdir(tb->base);
	}
	return ret;
}
