// SPDX-License-Identifier: MIT
/*
 * Errors of write streams, with every strategy: a full file system (ENOSPC
 * from write), a device that runs out of room under the file system
 * (writeback fails after write(2) succeeded), a user over quota (EDQUOT), and
 * a file another process truncates while it is written.  Each error reaches
 * the caller by a write, sync or close, and what was written stays written.
 *
 * usage: test-werrors enospc|wberror|edquot|truncate
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/quota.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"
#include "wtest.h"

#define MIB (1024ull * 1024)

static const enum pc_strategy strategies[] = {
	PC_BUFFERED, PC_DONTCACHE, PC_DROPBEHIND, PC_DIRECT, PC_AUTO,
};
#define NSTRAT (sizeof(strategies) / sizeof(strategies[0]))

static char src[MIB];

struct outcome {
	uint64_t acked;			/* bytes writes reported written */
	int write_err;			/* first error a write returned */
	int sync_err, close_err;
	enum pc_strategy used;
};

/*
 * Write @total bytes of pattern 11 to @path with @st in 1 MiB + 7 pieces
 * until an error; then sync (@sync) and close.
 */
static void write_until_error(const char *path, enum pc_strategy st,
			      uint64_t total, int sync, struct outcome *ret)
{
	struct pc_wstream *s;
	struct pc_wstats stats;
	struct pc_wopts o;
	size_t piece = MIB + 7 < sizeof(src) ? MIB + 7 : sizeof(src);
	int r;

	*ret = (struct outcome){ 0 };
	pc_wopts_init(&o);
	o.strategy = st;
	r = pc_wstream_open(&s, path, O_WRONLY | O_CREAT | O_TRUNC, 0644, &o);
	T_CHECK(!r, "open: %s", strerror(-r));
	while (ret->acked < total) {
		size_t n = total - ret->acked < piece ? total - ret->acked : piece;
		ssize_t w;

		t_pattern_fill(src, ret->acked, n, 11);
		w = pc_wstream_write(s, src, n);
		if (w < 0) {
			ret->write_err = (int)w;
			break;
		}
		ret->acked += w;
	}
	if (sync)
		ret->sync_err = pc_wstream_sync(s);
	pc_wstream_stats(s, &stats);
	ret->used = stats.strategy;
	ret->close_err = pc_wstream_close(s);
}

/* Every byte of @path is the pattern, and it has at least @min bytes. */
static void check_prefix(const char *path, uint64_t min)
{
	struct stat st;

	T_CHECK(!stat(path, &st), "stat: %s", strerror(errno));
	T_CHECK((uint64_t)st.st_size >= min, "%llu bytes on disk, %llu acknowledged",
		(unsigned long long)st.st_size, (unsigned long long)min);
	wt_check_file(path, st.st_size, 11);
}

/*
 * Direct writes in flight when one fails may still land after it: every
 * byte of @path is the pattern or a zero where a failed write left a hole.
 */
static void check_landed(const char *path)
{
	static char buf[MIB];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t off = 0, holes = 0;
	ssize_t n;

	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == (char)t_pattern_byte(off + i, 11))
				continue;
			T_CHECK(!buf[i], "byte %llu is neither written nor a hole",
				(unsigned long long)(off + i));
			holes++;
		}
		off += n;
	}
	close(fd);
	printf("  %llu bytes on disk, %llu of them zero (failed writes)\n",
	       (unsigned long long)off, (unsigned long long)holes);
}

static void check_written(const char *path, const struct outcome *o)
{
	if (o->used == PC_DIRECT)
		check_landed(path);
	else
		check_prefix(path, o->acked);
}

static int first_err(const struct outcome *o)
{
	return o->write_err ? o->write_err : o->sync_err ? o->sync_err : o->close_err;
}

/* A 64 MiB file system, a 128 MiB file: ENOSPC, and the bytes before stay. */
static int test_enospc(void)
{
	const char *dir = t_loopfs("ext4", 64 * MIB);
	char path[600];

	snprintf(path, sizeof(path), "%s/full", dir);
	for (unsigned int i = 0; i < NSTRAT; i++) {
		struct outcome o;

		write_until_error(path, strategies[i], 128 * MIB, 0, &o);
		printf("enospc %s (%s): %llu bytes acknowledged, write %d, close %d\n",
		       pc_strategy_name(strategies[i]), pc_strategy_name(o.used),
		       (unsigned long long)o.acked, o.write_err, o.close_err);
		T_CHECK(first_err(&o) == -ENOSPC, "%s: error %d", pc_strategy_name(strategies[i]),
			first_err(&o));
		T_CHECK(o.acked > 16 * MIB, "only %llu bytes", (unsigned long long)o.acked);
		/* Direct writes in flight may fail after they were acknowledged. */
		check_written(path, &o);
		unlink(path);
	}
	return 0;
}

/*
 * In a child with a file system of its own: the device fills up under XFS.
 * The stream must return the error (buffered only knows it at sync), and a
 * descriptor the program opened before still sees it at fsync.
 */
static int wberror_child(void *arg)
{
	enum pc_strategy st = *(enum pc_strategy *)arg;
	const char *dir = t_loopfs_make("xfs", 512 * MIB, 96 * MIB, NULL, NULL);
	char path[600];
	struct outcome o;
	int fd, err, fsync_err;

	snprintf(path, sizeof(path), "%s/wb", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	write_until_error(path, st, 160 * MIB, st == PC_BUFFERED, &o);
	fsync_err = fsync(fd) ? -errno : 0;
	err = first_err(&o);
	printf("wberror %s (%s): %llu acknowledged, write %d, sync %d, close %d; own fsync %d\n",
	       pc_strategy_name(st), pc_strategy_name(o.used), (unsigned long long)o.acked,
	       o.write_err, o.sync_err, o.close_err, fsync_err);
	T_CHECK(err == -EIO || err == -ENOSPC, "%s: the error was swallowed (%d)",
		pc_strategy_name(st), err);
	/* A failed direct write is reported to its submitter only. */
	T_CHECK(o.used == PC_DIRECT || fsync_err == -EIO || fsync_err == -ENOSPC,
		"%s: the program's own fsync did not see it (%d)", pc_strategy_name(st), fsync_err);
	close(fd);
	return 0;
}

static int test_wberror(void)
{
	if (geteuid())
		t_skip("needs root for tmpfs, a loop device and a mount");
	for (unsigned int i = 0; i < NSTRAT; i++) {
		enum pc_strategy st = strategies[i];
		int rc = t_in_child(wberror_child, &st);

		if (rc == T_EXIT_SKIP)
			t_skip("no thin file system");
		T_CHECK(rc == 0, "%s: child exited %d", pc_strategy_name(st), rc);
	}
	return 0;
}

/*
 * A quota of 8 MiB for nobody: ext4's user quota where the kernel has its
 * formats, else a btrfs qgroup limit on a subvolume (kernels without
 * CONFIG_QFMT_V2, such as ours).  The writer runs as nobody (root is exempt
 * from ext4's quota).  EDQUOT, and the bytes before stay.
 */
static int edquot_child(void *arg)
{
	const char *path = arg;

	if (setgid(65534) || setuid(65534))
		t_fail("cannot become nobody: %s", strerror(errno));
	for (unsigned int i = 0; i < NSTRAT; i++) {
		struct outcome o;

		write_until_error(path, strategies[i], 32 * MIB, strategies[i] == PC_BUFFERED, &o);
		printf("edquot %s (%s): %llu acknowledged, write %d, sync %d, close %d\n",
		       pc_strategy_name(strategies[i]), pc_strategy_name(o.used),
		       (unsigned long long)o.acked, o.write_err, o.sync_err, o.close_err);
		T_CHECK(first_err(&o) == -EDQUOT, "%s: error %d", pc_strategy_name(strategies[i]),
			first_err(&o));
		T_CHECK(o.acked >= 4 * MIB, "only %llu bytes", (unsigned long long)o.acked);
		check_written(path, &o);
		unlink(path);
	}
	return 0;
}

/* ext4 mounted with user quota and 8 MiB set for nobody; NULL when this
 * kernel cannot mount it so. */
static const char *ext4_quota(void)
{
	struct if_dqblk dq = { .dqb_bhardlimit = 8192, .dqb_bsoftlimit = 8192,
			       .dqb_valid = QIF_BLIMITS };
	const char *dir = t_loopfs_make("ext4", 256 * MIB, 0, "-O quota -E quotatype=usrquota",
					"usrquota");

	if (dir && quotactl(QCMD(Q_SETQUOTA, USRQUOTA), t_loopfs_dev(), 65534, (caddr_t)&dq))
		t_skip("cannot set a quota on ext4: %s", strerror(errno));
	return dir;
}

/* A btrfs subvolume limited to 8 MiB by its qgroup, in @buf. */
static const char *btrfs_qgroup(char *buf, size_t size)
{
	const char *mnt;
	char cmd[2048];

	if (system("command -v btrfs >/dev/null"))
		t_skip("no ext4 quota (this kernel lacks CONFIG_QFMT_V2) and no btrfs-progs "
		       "for a qgroup");
	mnt = t_loopfs_make("btrfs", 512 * MIB, 0, NULL, NULL);
	snprintf(buf, size, "%s/q", mnt);
	snprintf(cmd, sizeof(cmd), "btrfs quota enable '%s' && btrfs subvolume create '%s' "
		 ">/dev/null && btrfs qgroup limit 8M '%s'", mnt, buf, buf);
	if (system(cmd))
		t_fail("cannot limit a btrfs subvolume's qgroup: %s", cmd);
	return buf;
}

static int test_edquot(void)
{
	char qdir[600], path[700];
	const char *dir = ext4_quota();
	int rc;

	if (!dir)
		dir = btrfs_qgroup(qdir, sizeof(qdir));
	printf("edquot on %s\n", dir);
	T_CHECK(!chmod(dir, 0777), "chmod: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/quota", dir);
	rc = t_in_child(edquot_child, path);
	T_CHECK(rc == 0, "child exited %d", rc);
	return 0;
}

/*
 * Another process truncates the file to 4 KiB after 16 MiB were written;
 * the stream goes on to 64 MiB.  As with write(2): no error, 64 MiB, the
 * first 4 KiB and everything written after the truncation are the bytes
 * written, in between zeros (or the bytes written, if they were still in
 * flight when the file was cut).
 */
static void truncate_one(const char *path, enum pc_strategy st)
{
	static char got[MIB];
	struct pc_wstream *s;
	struct pc_wopts o;
	uint64_t off = 0;
	pid_t pid;
	int fd, r, status;

	pc_wopts_init(&o);
	o.strategy = st;
	r = pc_wstream_open(&s, path, O_WRONLY | O_CREAT | O_TRUNC, 0644, &o);
	T_CHECK(!r, "open: %s", strerror(-r));
	for (; off < 64 * MIB; off += MIB) {
		if (off == 16 * MIB) {
			pid = fork();
			if (!pid)
				_exit(truncate(path, 4096) ? 1 : 0);
			T_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid &&
				WIFEXITED(status) && !WEXITSTATUS(status), "truncate");
		}
		t_pattern_fill(src, off, MIB, 11);
		T_CHECK(pc_wstream_write(s, src, MIB) == MIB, "%s: write at %llu",
			pc_strategy_name(st), (unsigned long long)off);
	}
	r = pc_wstream_close(s);
	T_CHECK(!r, "%s: close: %s", pc_strategy_name(st), strerror(-r));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_CHECK(fd >= 0 && lseek(fd, 0, SEEK_END) == (off_t)(64 * MIB), "size");
	for (off = 0; off < 64 * MIB; off += MIB) {
		T_CHECK(pread(fd, got, MIB, off) == MIB, "read");
		for (uint64_t i = 0; i < MIB; i++) {
			uint64_t at = off + i;
			uint8_t want = t_pattern_byte(at, 11);

			if (got[i] == (char)want)
				continue;
			T_CHECK(at >= 4096 && at < 16 * MIB && !got[i],
				"%s: byte %llu is %d", pc_strategy_name(st),
				(unsigned long long)at, got[i]);
		}
	}
	close(fd);
	printf("truncate %s: as write(2) leaves it\n", pc_strategy_name(st));
}

static int test_truncate(void)
{
	char dir[512], path[600];

	t_tmpdir(dir, sizeof(dir), t_loopfs("xfs", 512 * MIB));
	snprintf(path, sizeof(path), "%s/cut", dir);
	for (unsigned int i = 0; i < NSTRAT; i++)
		truncate_one(path, strategies[i]);
	t_rmtree(dir);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "enospc"))
		return test_enospc();
	if (argc == 2 && !strcmp(argv[1], "wberror"))
		return test_wberror();
	if (argc == 2 && !strcmp(argv[1], "edquot"))
		return test_edquot();
	if (argc == 2 && !strcmp(argv[1], "truncate"))
		return test_truncate();
	t_fail("usage: test-werrors enospc|wberror|edquot|truncate");
}
