# SPDX-License-Identifier: MIT
# A fanotify permission watcher that changes a file system at a chosen
# moment of a copy, the same moment every run.  Prints "ready" once
# watching, lets every access go (after its change), exits 77 without
# fanotify and after 20 s without an event.
#
#   fanwatch.py fill MNT LEAVE        at the first open of a data file on the
#       file system mounted at MNT (not bench.lock, bench.made or a folder),
#       fill it up to LEAVE free bytes: the next writes find less room than
#       they ask for
#   fanwatch.py truncate FILE SIZE FLAG   at the first read of FILE,
#       truncate it to SIZE bytes and touch FLAG
import ctypes, os, select, struct, sys

FAN_CLASS_CONTENT, FAN_MARK_ADD, FAN_MARK_MOUNT = 0x4, 0x1, 0x10
FAN_ACCESS_PERM, FAN_OPEN_PERM, FAN_ALLOW = 0x20000, 0x10000, 0x1


def watch(path, flags, mask, act):
    """Call act(name) for each MASK event on PATH, then allow it."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64,
                                   ctypes.c_int, ctypes.c_char_p]
    fd = libc.fanotify_init(FAN_CLASS_CONTENT, os.O_RDONLY)
    if fd < 0 or libc.fanotify_mark(fd, FAN_MARK_ADD | flags, mask, -100, path.encode()):
        print("fanotify: " + os.strerror(ctypes.get_errno()), flush=True)
        sys.exit(77)
    print("ready", flush=True)
    while select.select([fd], [], [], 20)[0]:
        buf = os.read(fd, 4096)
        off = 0
        while off < len(buf):
            ln, _, _, _, _, efd, _ = struct.unpack_from("IBBHQii", buf, off)
            act(os.readlink("/proc/self/fd/%d" % efd))
            os.write(fd, struct.pack("iI", efd, FAN_ALLOW))
            os.close(efd)
            off += ln


def fill(mnt, leave):
    filler = os.open(os.path.join(mnt, "filler"), os.O_WRONLY | os.O_CREAT, 0o600)
    done = []

    def act(name):
        if not done and not os.path.isdir(name) and \
           os.path.basename(name) not in ("bench.lock", "bench.made", "filler"):
            v = os.statvfs(mnt)
            os.posix_fallocate(filler, 0, v.f_bavail * v.f_frsize - leave)
            done.append(name)
    watch(mnt, FAN_MARK_MOUNT, FAN_OPEN_PERM, act)


def truncate(path, size, flag):
    done = []

    def act(name):
        if not done:
            os.truncate(path, size)
            done.append(name)
            open(flag, "w").close()
    watch(path, 0, FAN_ACCESS_PERM, act)


if sys.argv[1] == "fill":
    fill(sys.argv[2], int(sys.argv[3]))
else:
    truncate(sys.argv[2], int(sys.argv[3]), sys.argv[4])
