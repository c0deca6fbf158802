//! What a command runs inside: a PID namespace of its own (containment: every process it starts
//! dies with it, `setsid` and double forks included), `PR_SET_PDEATHSIG` (nothing outlives a
//! killed gatebench), an optional Landlock filesystem sandbox and an optional empty network
//! namespace. All of it is set up in the child between fork and exec.
//!
//! Why a PID namespace: the command becomes its namespace's init, and when init exits the kernel
//! kills every other process of the namespace, whatever session or group it moved to; nothing has
//! to be found and no race with a fork is possible. A child subreaper would make orphans children
//! of gatebench itself, where orphans of parallel rounds cannot be told apart; a cgroup needs a
//! delegated, writable cgroup v2 tree that most CI machines do not give. Where a PID namespace
//! cannot be created (no user namespaces for this user), the process group alone is killed, and
//! [`containment`] says so for the caller to print.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use landlock::{
    Access, AccessFs, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreated,
    RulesetCreatedAttr, RulesetError, ABI,
};

/// The Landlock ABI gatebench asks for (best effort: older kernels enforce what they know).
const LANDLOCK_ABI: ABI = ABI::V5;

/// A filesystem sandbox: the command may read below `read` and read and write below `write`;
/// everything else is refused by the kernel (EACCES).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sandbox {
    pub read: Vec<PathBuf>,
    pub write: Vec<PathBuf>,
}

impl Sandbox {
    /// What every sandboxed command may reach: read the system locations and the folders of
    /// `path_var` (a `PATH` value; real paths), except one that holds or sits inside a
    /// `protected` path; read and write the device files. Callers add their own folders.
    pub fn base(path_var: &std::ffi::OsStr, protected: &[PathBuf]) -> Sandbox {
        let exposes = |grant: &Path| {
            protected
                .iter()
                .any(|p| p.starts_with(grant) || grant.starts_with(p))
        };
        let read = SYSTEM_READ
            .iter()
            .map(PathBuf::from)
            .chain(std::env::split_paths(path_var).map(|p| real(&p)))
            .filter(|p| p.is_absolute() && !exposes(p))
            .collect();
        let write = SYSTEM_DEVICES.iter().map(PathBuf::from).collect();
        Sandbox { read, write }
    }
}

/// System locations every sandboxed command may read: programs, libraries, configuration,
/// `/proc`, and a few device files (read and write, like `/dev/null`). Missing ones are skipped.
pub const SYSTEM_READ: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/proc",
    "/sys/devices/system/cpu",
    "/run/systemd/resolve",
    "/nix/store",
    "/snap",
];

/// Device files a sandboxed command may read and write.
pub const SYSTEM_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/pts",
    "/dev/ptmx",
];

/// How the commands of this machine are contained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Containment {
    /// Each command is the init of a PID namespace of its own.
    PidNamespace,
    /// Only the command's process group is killed: a child that left the group (`setsid`) can
    /// outlive its command.
    ProcessGroupOnly,
}

/// Whether `unshare(flags)` (plus a user namespace when not root) works here: tried once in a
/// forked child that does nothing else.
fn can_unshare(flags: libc::c_int) -> bool {
    let flags = namespace_flags(flags);
    // SAFETY: the child only calls unshare and _exit (async-signal-safe); the parent waits for it.
    unsafe {
        let pid = libc::fork();
        if pid == 0 {
            let ok = libc::unshare(flags) == 0;
            libc::_exit(if ok { 0 } else { 1 });
        }
        if pid < 0 {
            return false;
        }
        let mut status = 0;
        while libc::waitpid(pid, &mut status, 0) < 0 {
            if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                return false;
            }
        }
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// `flags` plus `CLONE_NEWUSER` when gatebench is not root (an unprivileged user may create the
/// other namespaces only inside a user namespace of its own).
fn namespace_flags(flags: libc::c_int) -> libc::c_int {
    if is_root() {
        flags
    } else {
        flags | libc::CLONE_NEWUSER
    }
}

/// How commands are contained on this machine (probed once).
pub fn containment() -> Containment {
    static PROBE: OnceLock<Containment> = OnceLock::new();
    *PROBE.get_or_init(|| {
        if std::env::var_os("GATEBENCH_NO_PIDNS").is_none() && can_unshare(libc::CLONE_NEWPID) {
            Containment::PidNamespace
        } else {
            Containment::ProcessGroupOnly
        }
    })
}

/// Whether a command can be given an empty network namespace here (probed once).
pub fn network_isolation_available() -> bool {
    static PROBE: OnceLock<bool> = OnceLock::new();
    *PROBE.get_or_init(|| can_unshare(libc::CLONE_NEWPID | libc::CLONE_NEWNET))
}

/// The Landlock ABI version the kernel offers, `None` when it has no Landlock (or it is off).
pub fn landlock_abi() -> Option<i32> {
    static PROBE: OnceLock<Option<i32>> = OnceLock::new();
    *PROBE.get_or_init(|| {
        const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
        // SAFETY: with a null attribute and size 0 this syscall only returns the ABI version.
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<libc::c_void>(),
                0usize,
                LANDLOCK_CREATE_RULESET_VERSION,
            )
        };
        (v > 0 && std::env::var_os("GATEBENCH_NO_LANDLOCK").is_none()).then_some(v as i32)
    })
}

/// A [`Sandbox`] made ready: its Landlock ruleset created once in the parent (each of its paths
/// opened and added), for any number of commands to enforce. Opening the paths was two thirds of
/// what starting a sandboxed command cost the harness; the verification loop prepares one per
/// round, not one per command. Clones share the ruleset.
#[derive(Debug, Clone)]
pub struct PreparedSandbox {
    /// The ruleset (`None` inside when the kernel has no Landlock: commands then only get
    /// no-new-privileges), or why it could not be made.
    ruleset: Arc<Result<Option<OwnedFd>, String>>,
}

impl Sandbox {
    /// This sandbox made ready for commands ([`PreparedSandbox`]). A ruleset that could not be
    /// made is every command's spawn error, not a panic.
    pub fn prepare(&self) -> PreparedSandbox {
        PreparedSandbox {
            ruleset: Arc::new(ruleset(self).map(Option::<OwnedFd>::from)),
        }
    }
}

impl PreparedSandbox {
    /// What the child enforces: the ruleset's descriptor (`None`: no Landlock here).
    pub(crate) fn fd(&self) -> Result<Option<RawFd>, String> {
        match &*self.ruleset {
            Ok(fd) => Ok(fd.as_ref().map(AsRawFd::as_raw_fd)),
            Err(e) => Err(e.clone()),
        }
    }
}

/// Enforces a prepared ruleset on the calling process: no-new-privileges, then the ruleset when
/// there is one (as the landlock crate's `restrict_self` does). Only system calls: safe between
/// fork (or vfork) and exec.
///
/// # Safety
/// `ruleset` must be an open Landlock ruleset descriptor.
pub(crate) unsafe fn restrict_self(ruleset: Option<RawFd>) -> io::Result<()> {
    let (one, zero): (libc::c_ulong, libc::c_ulong) = (1, 0);
    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, one, zero, zero, zero) != 0 {
        return Err(io::Error::last_os_error());
    }
    if let Some(fd) = ruleset {
        if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// A path opened for a Landlock rule (`O_PATH`), and whether it is a file, not a folder (a file
/// gets only the rights that apply to files).
struct Opened {
    fd: PathFd,
    file: bool,
}

impl Opened {
    /// `None` when the path cannot be opened (missing, or not reachable): left out, as the
    /// landlock crate's `path_beneath_rules` leaves it out.
    fn open(path: &Path) -> Option<Opened> {
        let fd = PathFd::new(path).ok()?;
        // SAFETY: fstat writes a stat structure for an open descriptor.
        let file = unsafe {
            let mut stat: libc::stat = std::mem::zeroed();
            // A failed stat grants the rights asked for, as the landlock crate does.
            libc::fstat(fd.as_fd().as_raw_fd(), &mut stat) == 0
                && stat.st_mode & libc::S_IFMT != libc::S_IFDIR
        };
        Some(Opened { fd, file })
    }

    fn rule(&self, access: BitFlags<AccessFs>) -> PathBeneath<BorrowedFd<'_>> {
        let access = if self.file {
            access & AccessFs::from_file(LANDLOCK_ABI)
        } else {
            access
        };
        PathBeneath::new(self.fd.as_fd(), access)
    }
}

/// The system locations ([`SYSTEM_READ`], [`SYSTEM_DEVICES`]) opened once for the process: every
/// ruleset adds their rules from these descriptors. The verification loop prepares a ruleset a
/// round, and looking each location up, opening it, asking its status and closing it again was
/// a tenth of the harness's system calls in a loop trial. A location missing at the first look
/// is left out for the life of the process.
fn system_location(path: &Path) -> Option<Option<&'static Opened>> {
    static OPENED: OnceLock<Vec<(&'static str, Option<Opened>)>> = OnceLock::new();
    let opened = OPENED.get_or_init(|| {
        SYSTEM_READ
            .iter()
            .chain(SYSTEM_DEVICES)
            .map(|p| (*p, Opened::open(Path::new(p))))
            .collect()
    });
    opened
        .iter()
        .find(|(p, _)| Path::new(p) == path)
        .map(|(_, o)| o.as_ref())
}

/// A path of a ruleset: a system location, open for the process, or one opened for this ruleset.
enum Held {
    System(&'static Opened),
    Own(Opened),
}

impl Held {
    fn opened(&self) -> &Opened {
        match self {
            Held::System(opened) => opened,
            Held::Own(opened) => opened,
        }
    }
}

/// The Landlock ruleset of a sandbox, created in the parent (each path opened, the system
/// locations once a process); the child only enforces it. A path that cannot be opened is left
/// out.
fn ruleset(sandbox: &Sandbox) -> Result<RulesetCreated, String> {
    let all = AccessFs::from_all(LANDLOCK_ABI);
    let read = AccessFs::from_read(LANDLOCK_ABI);
    let held: Vec<(Held, BitFlags<AccessFs>)> = sandbox
        .read
        .iter()
        .map(|p| (p, read))
        .chain(sandbox.write.iter().map(|p| (p, all)))
        .filter_map(|(p, access)| {
            let held = match system_location(p) {
                Some(system) => Held::System(system?),
                None => Held::Own(Opened::open(p)?),
            };
            Some((held, access))
        })
        .collect();
    let rules = held
        .iter()
        .map(|(held, access)| Ok::<_, RulesetError>(held.opened().rule(*access)));
    Ruleset::default()
        .handle_access(all)
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(rules))
        .map_err(|e| format!("the sandbox could not be prepared: {e}"))
}

/// What the child does between fork and exec, prepared in the parent so that the child only
/// makes system calls.
pub(crate) struct ChildPlan {
    pub unshare: libc::c_int,
    /// `/proc/self/uid_map` and `gid_map` lines when a user namespace is made.
    pub maps: Option<(Vec<u8>, Vec<u8>)>,
    /// The ruleset to enforce (`Some(None)`: a sandbox, and no Landlock in this kernel).
    pub ruleset: Option<Option<RawFd>>,
}

impl ChildPlan {
    pub fn new(contain: bool, no_network: bool, ruleset: Option<Option<RawFd>>) -> ChildPlan {
        let mut flags = 0;
        if contain && containment() == Containment::PidNamespace {
            flags |= libc::CLONE_NEWPID;
        }
        if no_network {
            flags |= libc::CLONE_NEWPID | libc::CLONE_NEWNET;
        }
        let flags = if flags == 0 {
            0
        } else {
            namespace_flags(flags)
        };
        let maps = (flags & libc::CLONE_NEWUSER != 0).then(|| {
            // SAFETY: getuid/getgid cannot fail.
            let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
            (
                format!("{uid} {uid} 1\n").into_bytes(),
                format!("{gid} {gid} 1\n").into_bytes(),
            )
        });
        ChildPlan {
            unshare: flags,
            maps,
            ruleset,
        }
    }
}

fn write_proc(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: plain open/write/close on a NUL-terminated path and a live buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Runs in the child after fork, before exec.
///
/// # Safety
/// Only between fork and exec: it may fork, and the intermediate process never returns.
pub(crate) unsafe fn in_child(plan: &mut ChildPlan) -> io::Result<()> {
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
    if plan.unshare != 0 {
        if libc::unshare(plan.unshare) != 0 {
            return Err(io::Error::last_os_error());
        }
        if let Some((uid_map, gid_map)) = &plan.maps {
            write_proc(c"/proc/self/setgroups", b"deny")?;
            write_proc(c"/proc/self/uid_map", uid_map)?;
            write_proc(c"/proc/self/gid_map", gid_map)?;
        }
        // The new PID namespace takes effect for children: fork once more; the grandchild is the
        // namespace's init and execs the command, this process waits and passes its status on.
        let pid = libc::fork();
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid > 0 {
            // Nothing of std's is needed here any more; closing every descriptor also closes the
            // pipe std uses to learn that exec succeeded, which the grandchild still holds.
            libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32);
            let mut status = 0;
            loop {
                if libc::waitpid(pid, &mut status, 0) >= 0 {
                    break;
                }
                if *libc::__errno_location() != libc::EINTR {
                    libc::_exit(127);
                }
            }
            if libc::WIFSIGNALED(status) {
                let sig = libc::WTERMSIG(status);
                libc::signal(sig, libc::SIG_DFL);
                libc::kill(libc::getpid(), sig);
            }
            libc::_exit(if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else {
                127
            });
        }
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
    }
    if let Some(ruleset) = plan.ruleset {
        restrict_self(ruleset)?;
    }
    Ok(())
}

/// `path` with every symbolic link resolved, or as given when it does not exist.
pub fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
