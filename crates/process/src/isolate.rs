//! What a command runs inside, set up in the child between `clone` and `exec` (`vfork.rs`) from a
//! plan prepared in the parent, the way bubblewrap sets up its sandbox (`--new-session`,
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
                if libc::unshare(flags) != 0 || write_maps(maps.as_ref()).is_err() {
                    libc::_exit(1);
                }
                let init = libc::fork();
                if init == 0 {
                    let ok = private_mounts(&[]).is_ok();
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
    rules: Arc<Result<Option<Rules>, String>>,
    /// The folders and files the command may write, bound again writable over the read-only
    /// view of the machine: the sandbox's `write` paths that exist and are not devices (a
    /// device is written on a read-only mount as on any other), parents first.
    binds: Arc<Vec<CString>>,
}

/// A Landlock ruleset as a child builds it: what it handles and scopes (what this kernel knows),
/// and a rule per open path.
pub(crate) struct Rules {
    attr: RulesetAttr,
    /// How many bytes of `attr` this kernel's ABI reads.
    attr_size: usize,
    /// Each rule: the open path's descriptor (kept open by `held`) and its rights.
    rules: Vec<(RawFd, u64)>,
    /// The read rights of a folder: the child's fresh `/proc` gets them.
    read_dir: u64,
    _held: Vec<Held>,
}

impl std::fmt::Debug for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rules")
            .field("attr", &self.attr)
            .field("rules", &self.rules)
            .finish_non_exhaustive()
    }
}

/// `struct landlock_ruleset_attr`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

/// `struct landlock_path_beneath_attr`.
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

impl Sandbox {
    /// This sandbox made ready for commands ([`PreparedSandbox`]). A ruleset that could not be
    /// made, or a grant that holds a path given to [`protect`], is every command's spawn error,
    /// not a panic.
    pub fn prepare(&self) -> PreparedSandbox {
        let everywhere = protected();
        let exposed = self.read.iter().chain(&self.write).find_map(|grant| {
            let grant = real(grant);
            everywhere
                .iter()
                .find(|p| p.starts_with(&grant))
                .map(|p| (grant, p))
        });
        if let Some((grant, held)) = exposed {
            return PreparedSandbox {
                rules: Arc::new(Err(format!(
                    "the sandbox would grant {}, which holds {}: gatebench keeps the fixtures, \
                     the reports and the result cache from the commands it runs",
                    grant.display(),
                    held.display()
                ))),
                binds: Arc::new(Vec::new()),
            };
        }
        // Real paths: a grant reached through a link is bound where the link leads, as Landlock
        // grants it.
        let mut binds: Vec<PathBuf> = self
            .write
            .iter()
            .map(|p| real(p))
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
    pub(crate) fn rules(&self) -> Result<Option<&Rules>, String> {
        match &*self.rules {
            Ok(rules) => Ok(rules.as_ref()),
            Err(e) => Err(e.clone()),
        }
    }
}

/// Builds the ruleset of `rules` and enforces it on the calling process, after no-new-privileges
/// (as the landlock crate's `restrict_self` does), with a rule for the process's own `/proc` when
/// `own_proc`. Only system calls: safe between clone and exec.
///
/// # Safety
/// The descriptors of `rules` must be open (its `PreparedSandbox` alive).
pub(crate) unsafe fn restrict_self(rules: Option<&Rules>, own_proc: bool) -> io::Result<()> {
    let (one, zero): (libc::c_ulong, libc::c_ulong) = (1, 0);
    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, one, zero, zero, zero) != 0 {
        return Err(io::Error::last_os_error());
    }
    let Some(rules) = rules else {
        return Ok(());
    };
    const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;
    let ruleset = libc::syscall(
        libc::SYS_landlock_create_ruleset,
        &rules.attr as *const RulesetAttr,
        rules.attr_size,
        0u32,
    );
    if ruleset < 0 {
        return Err(io::Error::last_os_error());
    }
    let ruleset = ruleset as libc::c_int;
    let add = |fd: libc::c_int, access: u64| -> io::Result<()> {
        let attr = PathBeneathAttr {
            allowed_access: access,
            parent_fd: fd,
        };
        check(libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset,
            LANDLOCK_RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0u32,
        ))
    };
    let mut result = rules
        .rules
        .iter()
        .try_for_each(|(fd, access)| add(*fd, *access));
    if result.is_ok() && own_proc {
        let proc = libc::open(
            c"/proc".as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        );
        result = if proc < 0 {
            Err(io::Error::last_os_error())
        } else {
            let added = add(proc, rules.read_dir);
            libc::close(proc);
            added
        };
    }
    if result.is_ok() {
        result = check(libc::syscall(
            libc::SYS_landlock_restrict_self,
            ruleset,
            0u32,
        ));
    }
    libc::close(ruleset);
    result
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
fn rules(sandbox: &Sandbox) -> Result<Option<Rules>, String> {
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
        return Err(
            "the sandbox could not be prepared: this kernel's Landlock handles no \
                    filesystem access"
                .into(),
        );
    }
    let rules = held
        .iter()
        .map(|(held, access)| held.opened().rule(*access, abi))
        .collect();
    Ok(Some(Rules {
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
        _held: held.into_iter().map(|(held, _)| held).collect(),
    }))
}

/// What the child does between clone and exec, prepared in the parent so that the child only
/// makes system calls on it.
pub(crate) struct ChildPlan<'a> {
    /// The namespaces the child is cloned into (0: none).
    pub clone_flags: libc::c_int,
    /// `/proc/self/uid_map` and `gid_map` lines when a user namespace is made.
    pub maps: Option<(Vec<u8>, Vec<u8>)>,
    /// The sandbox to enter, when there is one.
    pub sandbox: Option<SandboxPlan<'a>>,
}

/// A sandbox as the child enters it.
pub(crate) struct SandboxPlan<'a> {
    /// The Landlock rules (`None`: no Landlock in this kernel; no-new-privileges is still set).
    pub rules: Option<&'a Rules>,
    /// Private mounts (read-only machine, `binds` writable, a fresh `/proc`), when the child has
    /// a mount namespace of its own.
    pub mounts: Option<Arc<Vec<CString>>>,
    /// The highest capability number the kernel knows.
    pub last_capability: libc::c_ulong,
    /// The seccomp filter, when it could be compiled for this architecture.
    pub filter: Option<&'static [libc::sock_filter]>,
}

impl<'a> ChildPlan<'a> {
    /// The plan of a command: contained in a PID namespace when `contain` (and the machine
    /// allows it), in the sandbox when one is given, without a network when `no_network`.
    pub fn new(
        contain: bool,
        no_network: bool,
        sandbox: Option<(&'a PreparedSandbox, Option<&'a Rules>)>,
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

/// Maps gatebench's user and group into a new user namespace (system calls only).
fn write_maps(maps: Option<&(Vec<u8>, Vec<u8>)>) -> io::Result<()> {
    if let Some((uid_map, gid_map)) = maps {
        write_proc(c"/proc/self/setgroups", b"deny")?;
        write_proc(c"/proc/self/uid_map", uid_map)?;
        write_proc(c"/proc/self/gid_map", gid_map)?;
    }
    Ok(())
}

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const MOUNT_ATTR_NODEV: u64 = 0x4;

fn check(result: libc::c_long) -> io::Result<()> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// `mount_setattr` on `path` and every mount below it.
///
/// # Safety
/// System calls only; `path` is a live NUL-terminated string.
unsafe fn set_mount_attributes(path: &std::ffi::CStr, set: u64, clear: u64) -> io::Result<()> {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: clear,
        propagation: 0,
        userns_fd: 0,
    };
    check(libc::syscall(
        libc::SYS_mount_setattr,
        libc::AT_FDCWD,
        path.as_ptr(),
        libc::AT_RECURSIVE as libc::c_uint,
        &attr as *const MountAttr,
        std::mem::size_of::<MountAttr>(),
    ))
}

/// In a mount namespace of the calling process's own (and, for `/proc`, as the init of a PID
/// namespace of its own): nothing propagates back to the machine; every mount read-only and
/// nosuid; each of `binds` bound over itself writable, nodev and nosuid (one that no longer
/// exists is left out); a fresh `/proc` over the machine's. System calls only.
///
/// # Safety
/// Only in a child in a mount namespace of its own.
pub(crate) unsafe fn private_mounts(binds: &[CString]) -> io::Result<()> {
    check(libc::mount(
        std::ptr::null(),
        c"/".as_ptr(),
        std::ptr::null(),
        libc::MS_REC | libc::MS_PRIVATE,
        std::ptr::null(),
    ) as libc::c_long)?;
    set_mount_attributes(c"/", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0)?;
    for bind in binds {
        let bound = libc::mount(
            bind.as_ptr(),
            bind.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REC,
            std::ptr::null(),
        );
        if bound != 0 {
            if *libc::__errno_location() == libc::ENOENT {
                continue;
            }
            return Err(io::Error::last_os_error());
        }
        set_mount_attributes(
            bind,
            MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
            MOUNT_ATTR_RDONLY,
        )?;
    }
    check(libc::mount(
        c"proc".as_ptr(),
        c"/proc".as_ptr(),
        c"proc".as_ptr(),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        std::ptr::null(),
    ) as libc::c_long)
}

/// `struct __user_cap_header_struct` and `__user_cap_data_struct` of `capset(2)`.
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// Drops every capability for good: the bounding set (so that no `exec`, of a set-uid program or
/// as root, gives one back), the ambient set, then the effective, permitted and inheritable
/// sets. A bounding-set drop refused for want of `CAP_SETPCAP` (an unprivileged user without a
/// user namespace has nothing to drop) is skipped. System calls only.
///
/// # Safety
/// Only in the child.
unsafe fn drop_capabilities(last: libc::c_ulong) -> io::Result<()> {
    for cap in 0..=last {
        libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
    }
    libc::prctl(
        libc::PR_CAP_AMBIENT,
        libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
        0,
        0,
        0,
    );
    let header = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let data = [CapData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    check(libc::syscall(
        libc::SYS_capset,
        &header as *const CapHeader,
        data.as_ptr(),
    ))
}

/// Installs a seccomp filter (no-new-privileges is already set). System calls only.
///
/// # Safety
/// Only in the child; `filter` outlives the call (the kernel copies it).
unsafe fn install_filter(filter: &[libc::sock_filter]) -> io::Result<()> {
    let program = libc::sock_fprog {
        len: filter.len() as libc::c_ushort,
        filter: filter.as_ptr().cast_mut(),
    };
    check(libc::syscall(
        libc::SYS_seccomp,
        libc::SECCOMP_SET_MODE_FILTER,
        0,
        &program as *const libc::sock_fprog,
    ))
}

/// The child's side of the plan, after `clone` put it in its namespaces: the user maps, a new
/// session, the private mounts, the folder it starts in, no capabilities, Landlock, seccomp.
/// The folder is entered after the mounts, so that it is the writable bind, not the read-only
/// mount under it.
///
/// # Safety
/// Only in the child between clone and exec: system calls on data prepared in the parent.
pub(crate) unsafe fn in_child(plan: &ChildPlan, cwd: &std::ffi::CStr) -> io::Result<()> {
    write_maps(plan.maps.as_ref())?;
    if libc::setsid() < 0 {
        return Err(io::Error::last_os_error());
    }
    let Some(sandbox) = &plan.sandbox else {
        return check(libc::chdir(cwd.as_ptr()) as libc::c_long);
    };
    if let Some(binds) = &sandbox.mounts {
        private_mounts(binds)?;
    }
    check(libc::chdir(cwd.as_ptr()) as libc::c_long)?;
    drop_capabilities(sandbox.last_capability)?;
    restrict_self(sandbox.rules, sandbox.mounts.is_some())?;
    if let Some(filter) = sandbox.filter {
        install_filter(filter)?;
    }
    Ok(())
}

/// `path` with every symbolic link resolved, or as given when it does not exist.
pub fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
