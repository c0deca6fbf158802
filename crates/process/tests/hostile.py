"""A hostile command: tries to reach what a sandboxed command must not, and prints one line per
attempt, `NAME reached` or `NAME refused: WHY`. Arguments: a folder it may not write (with a file
`key` in it), a folder it may write, the pid of the process that started it, a path-named unix
socket and an abstract unix socket name that listen outside, a terminal device to try (or -),
and `control` for the run outside the sandbox (which leaves the machine's host name alone)."""
import ctypes
import fcntl
import os
import socket
import sys
import termios

outside, writable, parent, path_socket, abstract_socket, terminal, mode = sys.argv[1:8]
libc = ctypes.CDLL(None, use_errno=True)


def attempt(name, action):
    try:
        result = action()
        if result is False:
            print(f"{name} refused: no", flush=True)
        else:
            print(f"{name} reached", flush=True)
    except Exception as e:  # noqa: BLE001 - every failure is a refusal
        print(f"{name} refused: {type(e).__name__}: {e}", flush=True)


def observe(name, look):
    """An observation, not an attack: it must be made (an unreadable /proc/self is an error of
    the sandbox, not a refusal)."""
    try:
        print(f"{name} {'reached' if look() else 'refused: no'}", flush=True)
    except Exception as e:  # noqa: BLE001
        print(f"{name} error: {type(e).__name__}: {e}", flush=True)


def stat_field(n):
    with open("/proc/self/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[n - 3]


observe("controlling-terminal", lambda: stat_field(7) != "0")
observe("own-session", lambda: os.getsid(0) == os.getpid())
attempt("dev-tty", lambda: os.close(os.open("/dev/tty", os.O_RDWR)))
attempt("dev-ptmx", lambda: os.close(os.open("/dev/ptmx", os.O_RDWR)))


def tiocsti():
    fd = os.open(terminal, os.O_RDWR | os.O_NOCTTY)
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"#")
    finally:
        os.close(fd)


if terminal != "-":
    attempt("tiocsti", tiocsti)


def capabilities():
    with open("/proc/self/status") as f:
        caps = {k: int(v, 16) for k, v in (l.split(":\t") for l in f if l.startswith("Cap"))}
    return any(caps[k] for k in ("CapEff", "CapPrm", "CapBnd", "CapAmb"))


observe("capabilities", capabilities)
key = os.path.join(outside, "key")
attempt("chmod-outside", lambda: os.chmod(key, 0o777))
attempt("chown-outside", lambda: os.chown(key, 1, 1))
attempt("utime-outside", lambda: os.utime(key, (0, 0)))
attempt("setxattr-outside", lambda: os.setxattr(key, "user.gatebench", b"x"))
attempt("mknod-device", lambda: os.mknod(os.path.join(writable, "mem"), 0o600 | 0o020000, os.makedev(1, 1)))


def sethostname():
    name = b"gatebench-hostile"
    if libc.sethostname(name, len(name)) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


if mode != "control":
    attempt("sethostname", sethostname)
attempt("proc-of-parent", lambda: open(f"/proc/{parent}/cmdline", "rb").read())
observe("proc-other-processes", lambda: len([p for p in os.listdir("/proc") if p.isdigit()]) > 3)


def connect(address):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(address)
    finally:
        s.close()


attempt("unix-socket-path", lambda: connect(path_socket))
attempt("unix-socket-abstract", lambda: connect("\0" + abstract_socket))
# What must still work: a pair of connected sockets, and writing where it may.
attempt("socketpair", lambda: [s.close() for s in socket.socketpair()])
attempt("write-allowed", lambda: open(os.path.join(writable, "written"), "w").write("ok"))
attempt("chmod-allowed", lambda: os.chmod(os.path.join(writable, "written"), 0o700))


# Last, since it moves this process: a user and mount namespace of its own, where it holds every
# capability, then the ways out of the read-only view that would give (the mounts it was given
# are locked, and Landlock refuses a sandboxed process any mount).
def nested(action):
    def run():
        if mode != "control" and libc.unshare(0x10000000 | 0x00020000) != 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        return action()
    return run


def remount_writable():
    if libc.mount(None, b"/", None, 0x20 | 0x1000, None) != 0:  # MS_REMOUNT | MS_BIND, no MS_RDONLY
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def unmount_proc():
    if libc.umount2(b"/proc", 2) != 0:  # MNT_DETACH
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


if mode != "control":
    attempt("nested-namespace-remount", nested(remount_writable))
    attempt("nested-namespace-unmount-proc", unmount_proc)
    attempt("nested-namespace-chmod-outside", lambda: os.chmod(key, 0o777))
