//! What a command runs inside, prepared in the parent (the child enters it between `clone` and
//! `exec`: `confine.rs`, `vfork.rs`), the way bubblewrap sets up its sandbox (`--new-session`,
//! `--unshare-all`, `--cap-drop ALL`, `--proc /proc`, `--ro-bind / /`, `--bind` of what may be
//! written, `--die-with-parent`, a seccomp filter):
//!
//! - always: a session of its own (no controlling terminal, so no `TIOCSTI` into the user's
//!   terminal), `PR_SET_PDEATHSIG` (nothing outlives a killed gatebench), standard input
//!   `/dev/null`;
//! - contained: a PID namespace of its own, whose init the command is: every process it starts
//!   dies with it, `setsid` and double forks included;
//! - sandboxed: besides the PID namespace, mount, IPC and UTS namespaces of its own; every mount
//!   read-only and nosuid, the folders it may write bound again writable (nodev, nosuid); a fresh
//!   `/proc` that shows only its own processes; no capabilities (the bounding, ambient,
//!   permitted, effective and inheritable sets emptied: as root it is root without privileges);
//!   the Landlock ruleset (filesystem rules, no abstract unix sockets or signals beyond its own
//!   processes); a seccomp filter that refuses `socket(AF_UNIX, ...)` (path-named sockets are
//!   outside Landlock's reach on this ABI); optionally an empty network namespace.
//!
//! Why a PID namespace: the command becomes its namespace's init, and when init exits the kernel
//! kills every other process of the namespace, whatever session or group it moved to; nothing has
//! to be found and no race with a fork is possible. A child subreaper would make orphans children
//! of gatebench itself, where orphans of parallel rounds cannot be told apart; a cgroup needs a
//! delegated, writable cgroup v2 tree that most CI machines do not give. Where namespaces cannot
//! be created (no user namespaces for this user), the process group alone is killed, and
//! [`containment`] says so for the caller to print; where mounts cannot be made private,
//! [`private_mounts_available`] says so and the command keeps the rest.
//!
//! Why read-only mounts when Landlock already refuses writes: Landlock does not cover a file's
//! metadata (`chmod`, `chown`, `utime`, `setxattr`), which the owner of a file may change
//! without any capability; as root that is every system file, and another trial's repository.
//! A read-only mount refuses them all (`EROFS`).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsFd, AsRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use landlock::{Access, AccessFs, BitFlags, PathFd, Scope, ABI};

use crate::confine::{ChildPlan, Ruleset, RulesetAttr, SandboxPlan};

/// A filesystem sandbox: the command may read below `read` and read and write below `write`;
/// everything else is refused by the kernel (EACCES).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sandbox {
    pub read: Vec<PathBuf>,
    pub write: Vec<PathBuf>,
}

/// The paths no sandbox of this process may grant, nor any folder that holds one: what the
/// harness keeps from the commands it runs (the fixtures, which are the answer key, the reports
/// and the result cache). Real, absolute paths.
static PROTECTED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Adds `paths` to what no sandbox of this process may grant ([`Sandbox::base`] leaves out a
/// system or `PATH` folder that holds one or lies in one; [`Sandbox::prepare`] refuses a grant
/// that holds one). A relative path is taken from the current folder; one that does not exist
/// yet is kept as written, made absolute.
pub fn protect<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) {
    let mut protected = PROTECTED.lock().unwrap_or_else(|p| p.into_inner());
    for path in paths {
        let path = std::path::absolute(path.as_ref()).unwrap_or_else(|_| path.as_ref().into());
        let path = real(&path);
        if !protected.contains(&path) {
            protected.push(path);
        }
    }
}

/// What [`protect`] was given so far.
pub fn protected() -> Vec<PathBuf> {
    PROTECTED.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

impl Sandbox {
    /// What every sandboxed command may reach: read the system locations and the folders of
    /// `path_var` (a `PATH` value; real paths), except one that holds or sits inside a
    /// `protected` path or a path given to [`protect`]; read and write the device files.
    /// Callers add their own folders.
    pub fn base(path_var: &std::ffi::OsStr, protected: &[PathBuf]) -> Sandbox {
        let everywhere = self::protected();
        let exposes = |grant: &Path| {
            protected
                .iter()
                .chain(&everywhere)
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

/// System locations every sandboxed command may read: programs, libraries, configuration, and
/// `/proc` (its own, private: only its processes). Missing ones are skipped.
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

/// Device files a sandboxed command may read and write. No terminal (`/dev/tty`, `/dev/pts`,
/// `/dev/ptmx`): a command that could open one could queue keystrokes into it (`TIOCSTI`).
pub const SYSTEM_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
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
        pid > 0 && exited_zero(pid)
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

/// The namespaces of a sandboxed command besides its PID namespace (probed with it).
const SANDBOX_NAMESPACES: libc::c_int = libc::CLONE_NEWNS | libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;

/// Whether a sandboxed command can be given mounts of its own here: a read-only view of the
/// machine, its writable folders bound again, a private `/proc` (probed once, by doing exactly
/// that in a forked child). Where it cannot (a container that masks parts of `/proc`, no user
/// namespaces), sandboxed commands keep the rest of the sandbox and results say so.
pub fn private_mounts_available() -> bool {
    static PROBE: OnceLock<bool> = OnceLock::new();
    *PROBE.get_or_init(|| {
        if std::env::var_os("GATEBENCH_NO_PRIVATE_MOUNTS").is_some()
            || containment() != Containment::PidNamespace
        {
            return false;
        }
        let flags = namespace_flags(libc::CLONE_NEWPID | SANDBOX_NAMESPACES);
        let maps = user_maps(flags);
        // SAFETY: the children make only system calls on data prepared here, then `_exit`; the
        // parent waits for its one child.
        unsafe {
            let pid = libc::fork();
            if pid == 0 {
                if libc::unshare(flags) != 0 || crate::confine::write_maps(maps.as_ref()).is_err() {
                    libc::_exit(1);
                }
                let init = libc::fork();
                if init == 0 {
                    let ok = crate::confine::private_mounts(&[]).is_ok();
                    libc::_exit(if ok { 0 } else { 1 });
                }
                libc::_exit(if init > 0 && exited_zero(init) { 0 } else { 1 });
            }
            pid > 0 && exited_zero(pid)
        }
    })
}

/// Whether a command can be given an empty network namespace here (probed once).
pub fn network_isolation_available() -> bool {
    static PROBE: OnceLock<bool> = OnceLock::new();
    *PROBE.get_or_init(|| can_unshare(libc::CLONE_NEWPID | libc::CLONE_NEWNET))
}

/// Waits for a child and tells whether it exited with 0.
fn exited_zero(pid: libc::pid_t) -> bool {
    let mut status = 0;
    // SAFETY: waiting for our own child.
    while unsafe { libc::waitpid(pid, &mut status, 0) } < 0 {
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return false;
        }
    }
    libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
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

/// A [`Sandbox`] made ready: its paths opened once in the parent, for any number of commands to
/// enforce. Opening the paths was two thirds of what starting a sandboxed command cost the
/// harness; the verification loop prepares one per round, not one per command. Each command's
/// child builds its Landlock ruleset from the open paths (a create and a rule per path, system
/// calls only), and adds its own, fresh `/proc`, which no ruleset made in the parent could name.
/// Clones share the open paths.
#[derive(Debug, Clone)]
pub struct PreparedSandbox {
    /// The rules (`None` inside when the kernel has no Landlock: commands then only get
    /// no-new-privileges), or why they could not be prepared.
    rules: Arc<Result<Option<Rules>, SandboxError>>,
    /// The folders and files the command may write, bound again writable over the read-only
    /// view of the machine: the sandbox's `write` paths that exist and are not devices (a
    /// device is written on a read-only mount as on any other), parents first.
    binds: Arc<Vec<CString>>,
}

/// Why a sandbox could not be prepared: every command's spawn error, in these words.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SandboxError {
    /// A grant holds a path given to [`protect`].
    #[error(
        "the sandbox would grant {}, which holds {}: gatebench keeps the fixtures, the reports \
         and the result cache from the commands it runs",
        grant.display(),
        held.display()
    )]
    Exposes { grant: PathBuf, held: PathBuf },
    #[error(
        "the sandbox could not be prepared: this kernel's Landlock handles no filesystem access"
    )]
    NoFilesystemAccess,
}

/// The Landlock rules of a prepared sandbox: the ruleset a child builds, and the open paths its
/// rules name, kept open while the sandbox lives.
pub(crate) struct Rules {
    pub(crate) ruleset: Ruleset,
    _held: Vec<Held>,
}

impl std::fmt::Debug for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rules")
            .field("ruleset", &self.ruleset)
            .finish_non_exhaustive()
    }
}

impl Sandbox {
    /// This sandbox made ready for commands ([`PreparedSandbox`]). A ruleset that could not be
    /// made, or a grant that holds a path given to [`protect`], is every command's spawn error,
    /// not a panic.
    pub fn prepare(&self) -> PreparedSandbox {
        let everywhere = protected();
        // Nothing to resolve where nothing is protected (`gatebench gate`).
        let exposed = self
            .read
            .iter()
            .chain(&self.write)
            .filter(|_| !everywhere.is_empty())
            .find_map(|grant| {
                let grant = real_grant(grant);
                everywhere
                    .iter()
                    .find(|p| p.starts_with(&*grant))
                    .map(|p| (grant.into_owned(), p))
            });
        if let Some((grant, held)) = exposed {
            return PreparedSandbox {
                rules: Arc::new(Err(SandboxError::Exposes {
                    grant,
                    held: held.clone(),
                })),
                binds: Arc::new(Vec::new()),
            };
        }
        // Real paths: a grant reached through a link is bound where the link leads, as Landlock
        // grants it.
        let mut binds: Vec<PathBuf> = self
            .write
            .iter()
            .map(|p| real_grant(p).into_owned())
            .filter(|p| {
                std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir() || m.is_file())
                    && p.is_absolute()
            })
            .collect();
        binds.sort();
        binds.dedup();
        PreparedSandbox {
            rules: Arc::new(rules(self)),
            binds: Arc::new(
                binds
                    .into_iter()
                    .filter_map(|p| CString::new(p.as_os_str().as_bytes()).ok())
                    .collect(),
            ),
        }
    }
}

impl PreparedSandbox {
    /// What the child enforces (`None`: no Landlock here).
    pub(crate) fn rules(&self) -> Result<Option<&Ruleset>, SandboxError> {
        match &*self.rules {
            Ok(rules) => Ok(rules.as_ref().map(|r| &r.ruleset)),
            Err(e) => Err(e.clone()),
        }
    }
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

    /// The rule of this path: its descriptor, and `access` (only what applies to a file, for a
    /// file).
    fn rule(&self, access: BitFlags<AccessFs>, abi: ABI) -> (RawFd, u64) {
        let access = if self.file {
            access & AccessFs::from_file(abi)
        } else {
            access
        };
        (self.fd.as_fd().as_raw_fd(), access.bits())
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

/// The Landlock rules of a sandbox: each path opened in the parent (the system locations once a
/// process), with the rights it grants; what is handled and scoped is what this kernel knows
/// (`None`: no Landlock). A path that cannot be opened is left out. The child builds the ruleset.
fn rules(sandbox: &Sandbox) -> Result<Option<Rules>, SandboxError> {
    let Some(version) = landlock_abi() else {
        return Ok(None);
    };
    let abi = ABI::from(version);
    let all = AccessFs::from_all(abi);
    let read = AccessFs::from_read(abi);
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
    if all.is_empty() {
        return Err(SandboxError::NoFilesystemAccess);
    }
    let rules = held
        .iter()
        .map(|(held, access)| held.opened().rule(*access, abi))
        .collect();
    Ok(Some(Rules {
        ruleset: Ruleset {
            attr: RulesetAttr {
                handled_access_fs: all.bits(),
                handled_access_net: 0,
                scoped: Scope::from_all(abi).bits(),
            },
            attr_size: match version {
                ..=3 => 8,
                4 | 5 => 16,
                _ => std::mem::size_of::<RulesetAttr>(),
            },
            rules,
            read_dir: read.bits(),
        },
        _held: held.into_iter().map(|(held, _)| held).collect(),
    }))
}

impl<'a> ChildPlan<'a> {
    /// The plan of a command: contained in a PID namespace when `contain` (and the machine
    /// allows it), in the sandbox when one is given, without a network when `no_network`.
    pub fn new(
        contain: bool,
        no_network: bool,
        sandbox: Option<(&'a PreparedSandbox, Option<&'a Ruleset>)>,
    ) -> ChildPlan<'a> {
        let pid_namespace = containment() == Containment::PidNamespace;
        let mut flags = 0;
        if (contain || sandbox.is_some()) && pid_namespace {
            flags |= libc::CLONE_NEWPID;
        }
        let mounts = sandbox.is_some() && private_mounts_available();
        if mounts {
            flags |= SANDBOX_NAMESPACES;
        }
        if no_network {
            flags |= libc::CLONE_NEWPID | libc::CLONE_NEWNET;
        }
        let flags = if flags == 0 {
            0
        } else {
            namespace_flags(flags)
        };
        ChildPlan {
            clone_flags: flags,
            maps: user_maps(flags),
            sandbox: sandbox.map(|(prepared, rules)| SandboxPlan {
                rules,
                mounts: mounts.then(|| prepared.binds.clone()),
                last_capability: last_capability(),
                filter: seccomp_filter(),
            }),
        }
    }
}

/// The identity maps of a user namespace (`None` when `flags` makes none): gatebench's own user
/// and group, and nothing else.
fn user_maps(flags: libc::c_int) -> Option<(Vec<u8>, Vec<u8>)> {
    (flags & libc::CLONE_NEWUSER != 0).then(|| {
        // SAFETY: getuid/getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        (
            format!("{uid} {uid} 1\n").into_bytes(),
            format!("{gid} {gid} 1\n").into_bytes(),
        )
    })
}

/// The highest capability number of this kernel (`/proc/sys/kernel/cap_last_cap`, read once;
/// 63 when it cannot be read: dropping a number the kernel does not know fails harmlessly).
fn last_capability() -> libc::c_ulong {
    static LAST: OnceLock<libc::c_ulong> = OnceLock::new();
    *LAST.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(63)
    })
}

/// The seccomp filter of a sandboxed command: `socket(AF_UNIX, ...)` fails with `EACCES`,
/// everything else is allowed (the rest is Landlock's, the namespaces' and the capabilities'
/// job). A unix socket reaches whatever listens at a path (a Docker or systemd socket, another
/// trial's verifier), which Landlock does not mediate on this ABI; `socketpair` (no address) is
/// left alone. Compiled once by seccompiler; `None` on an architecture it does not know. A call
/// from another architecture's system call table (32-bit `int 0x80`) kills the process, as
/// seccompiler's filters do.
fn seccomp_filter() -> Option<&'static [libc::sock_filter]> {
    static FILTER: OnceLock<Option<Vec<libc::sock_filter>>> = OnceLock::new();
    FILTER
        .get_or_init(|| {
            use seccompiler::{
                SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
                SeccompRule,
            };
            let unix = SeccompCondition::new(
                0,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Eq,
                libc::AF_UNIX as u64,
            )
            .ok()?;
            let rules = [(libc::SYS_socket, vec![SeccompRule::new(vec![unix]).ok()?])];
            let filter = SeccompFilter::new(
                rules.into_iter().collect(),
                SeccompAction::Allow,
                SeccompAction::Errno(libc::EACCES as u32),
                std::env::consts::ARCH.try_into().ok()?,
            )
            .ok()?;
            let program: seccompiler::BpfProgram = filter.try_into().ok()?;
            Some(
                program
                    .into_iter()
                    .map(|f| libc::sock_filter {
                        code: f.code,
                        jt: f.jt,
                        jf: f.jf,
                        k: f.k,
                    })
                    .collect(),
            )
        })
        .as_deref()
}

/// [`real`] of a grant, the system locations ([`SYSTEM_READ`], [`SYSTEM_DEVICES`]) resolved once a
/// process: the verification loop prepares a sandbox a round, and resolving every location again
/// was a lookup a path component, every round (as `system_location` opens them once).
fn real_grant(path: &Path) -> std::borrow::Cow<'_, Path> {
    static RESOLVED: OnceLock<Vec<(&'static str, PathBuf)>> = OnceLock::new();
    let resolved = RESOLVED.get_or_init(|| {
        SYSTEM_READ
            .iter()
            .chain(SYSTEM_DEVICES)
            .map(|p| (*p, real(Path::new(p))))
            .collect()
    });
    match resolved.iter().find(|(p, _)| Path::new(p) == path) {
        Some((_, real)) => std::borrow::Cow::Borrowed(real),
        None => std::borrow::Cow::Owned(real(path)),
    }
}

/// `path` with every symbolic link resolved, or as given when it does not exist.
pub fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
