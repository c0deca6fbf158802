"""A hostile verifier, or a fixture's build step: tries to reach what a sandboxed command must not
(issue 46) and writes one line per attempt to the file its first argument names, `NAME reached
DETAIL` or `NAME refused DETAIL`; then exits 0. It looks for the answer key as an attacker would:
through other processes' command lines and environments in /proc (gatebench's own names its
folder), and through the folders on PATH. Every metadata change it tries leaves the mode as it was
(chmod to the current mode), so that a run where the sandbox fails harms nothing."""
import fcntl
import glob
import os
import re
import socket
import sys
import termios

out = sys.argv[1]
lines = []


def note(name, reached, detail=""):
    lines.append(f"{name} {'reached' if reached else 'refused'} {detail}".rstrip())


def observe(name, look):
    """An observation, not an attack: it must be made (an unreadable /proc/self is an error of
    the sandbox, not a refusal)."""
    try:
        result = look()
        note(name, bool(result), "" if result is True else str(result or "")[:200])
    except Exception as e:  # noqa: BLE001
        lines.append(f"{name} error {type(e).__name__}: {e}"[:200])


def attempt(name, action):
    try:
        result = action()
        note(name, bool(result), "" if result is True else str(result or "")[:200])
    except Exception as e:  # noqa: BLE001 - every failure is a refusal
        note(name, False, f"{type(e).__name__}: {e}"[:200])


def stat_field(n):
    with open("/proc/self/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[n - 3]


def terminal():
    fd = os.open("/dev/tty", os.O_RDWR)
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"#")
    finally:
        os.close(fd)
    return True


def read(path, limit=1 << 16):
    with open(path, "rb") as f:
        return f.read(limit)


def other_processes():
    """Other processes' command lines and environments, as far as /proc shows them."""
    seen = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = read(f"/proc/{entry}/cmdline").replace(b"\0", b" ")
        except OSError:
            continue
        try:
            environ = read(f"/proc/{entry}/environ").split(b"\0")
        except OSError:
            environ = []
        seen.append((entry, cmdline, environ))
    return seen


def harness_folders():
    """Folders gatebench's own process names: its working folder and the folders of its command
    line and environment."""
    folders = set()
    for _, cmdline, environ in other_processes():
        if b"gatebench" not in cmdline:
            continue
        for word in cmdline.split() + [v.split(b"=", 1)[-1] for v in environ]:
            text = word.decode(errors="replace")
            if text.startswith("/") and os.path.isdir(text):
                folders.add(text)
    return sorted(folders)


def answer_key_from(folders):
    """A fixture.yaml, or a results.json, under any of `folders` (a scenario names its fixtures
    folder: followed too)."""
    for folder in folders:
        for scenario in glob.glob(os.path.join(folder, "*.yaml")):
            try:
                m = re.search(r"fixtures_dir:\s*(\S+)", read(scenario).decode(errors="replace"))
            except OSError:
                continue
            if m:
                folders = folders + [os.path.join(folder, m.group(1))]
    for folder in folders:
        for pattern in ("*/fixture.yaml", "fixtures/*/fixture.yaml", "reports/*/results.json"):
            for path in glob.glob(os.path.join(folder, pattern)):
                try:
                    read(path, 64)
                    return path
                except OSError:
                    pass
    return None


def chmod_unchanged(folders):
    for folder in folders:
        for path in glob.glob(os.path.join(folder, "*")):
            os.chmod(path, os.stat(path).st_mode & 0o7777)
            return path
    return None


observe("controlling-terminal", lambda: stat_field(7) != "0")
attempt("dev-tty", terminal)
attempt("dev-ptmx", lambda: os.close(os.open("/dev/ptmx", os.O_RDWR)) or True)
observe("capabilities", lambda: int(re.search(r"CapEff:\s*(\w+)", read("/proc/self/status").decode()).group(1), 16) != 0)
attempt("proc-harness-command-line", lambda: ", ".join(p for p, c, _ in other_processes() if b"gatebench" in c))
attempt("proc-harness-environment", lambda: ", ".join(p for p, c, e in other_processes() if b"gatebench" in c and len(e) > 1))
attempt("answer-key-through-proc", lambda: answer_key_from(harness_folders()))
path_folders = [d for d in os.environ.get("PATH", "").split(":") if d]
attempt("answer-key-through-path", lambda: answer_key_from(path_folders))
attempt("chmod-outside", lambda: chmod_unchanged(harness_folders() + path_folders))
attempt("unix-socket", lambda: socket.socket(socket.AF_UNIX).close() or True)


def inherited_descriptors():
    """Descriptors gatebench left open across exec besides standard input, output and error (one
    open for writing would let the command write where Landlock does not let it open): the
    listing's own descriptor is the one extra expected."""
    fds = [fd for fd in os.listdir("/proc/self/fd") if fd not in ("0", "1", "2")]
    if len(fds) <= 1:
        return None
    targets = []
    for fd in fds:
        try:
            targets.append(f"{fd}->{os.readlink(f'/proc/self/fd/{fd}')}")
        except OSError as e:
            targets.append(f"{fd}->({e.strerror})")
    return ", ".join(targets)


observe("inherited-descriptors", inherited_descriptors)

with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
