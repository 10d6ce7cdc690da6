# SPDX-License-Identifier: MIT
# Fills the file system mounted at argv[1] up to argv[2] free bytes at the
# first open of a data file there (not bench.lock, bench.made or a folder),
# with a fanotify permission watcher, so that the next writes find less room
# than they ask for at the same moment every run.  Prints "ready" once
# watching; exits 77 without fanotify, and after 20 s without an open.
import ctypes, os, select, struct, sys

libc = ctypes.CDLL(None, use_errno=True)
FAN_CLASS_CONTENT, FAN_MARK_ADD, FAN_MARK_MOUNT = 0x4, 0x1, 0x10
FAN_OPEN_PERM, FAN_ALLOW = 0x10000, 0x1
libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64,
                               ctypes.c_int, ctypes.c_char_p]
mnt, leave = sys.argv[1], int(sys.argv[2])
filler = os.open(os.path.join(mnt, "filler"), os.O_WRONLY | os.O_CREAT, 0o600)
fd = libc.fanotify_init(FAN_CLASS_CONTENT, os.O_RDONLY)
if fd < 0 or libc.fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_PERM,
                                -100, mnt.encode()):
    print("fanotify: " + os.strerror(ctypes.get_errno()), flush=True)
    sys.exit(77)
print("ready", flush=True)
done = False
while select.select([fd], [], [], 20)[0]:
    buf = os.read(fd, 4096)
    off = 0
    while off < len(buf):
        ln, _, _, _, _, efd, _ = struct.unpack_from("IBBHQii", buf, off)
        name = os.readlink("/proc/self/fd/%d" % efd)
        if not done and not os.path.isdir(name) and \
           os.path.basename(name) not in ("bench.lock", "bench.made", "filler"):
            v = os.statvfs(mnt)
            os.posix_fallocate(filler, 0, v.f_bavail * v.f_frsize - leave)
            done = True
        os.write(fd, struct.pack("iI", efd, FAN_ALLOW))
        os.close(efd)
        off += ln
