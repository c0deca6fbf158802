//! What a command's child does between `clone` and `exec`, on the plan `isolate.rs` prepared in
//! the parent: the user maps, a session of its own, the private mounts, the folder it starts in,
//! no capabilities, the Landlock ruleset built from the parent's open paths (and its own `/proc`),
//! the seccomp filter. System calls only: the child shares the parent's memory until it execs
//! (`vfork.rs`), so nothing here allocates, locks or touches std's state.

use std::ffi::CString;
use std::io;

use std::os::fd::RawFd;
use std::sync::Arc;

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
    pub rules: Option<&'a Ruleset>,
    /// Private mounts (read-only machine, `binds` writable, a fresh `/proc`), when the child has
    /// a mount namespace of its own.
    pub mounts: Option<Arc<Vec<CString>>>,
    /// The highest capability number the kernel knows.
    pub last_capability: libc::c_ulong,
    /// The seccomp filter, when it could be compiled for this architecture.
    pub filter: Option<&'static [libc::sock_filter]>,
}

/// A Landlock ruleset as a child builds it: what it handles and scopes (what this kernel knows),
/// and a rule per path the parent opened.
#[derive(Debug)]
pub(crate) struct Ruleset {
    pub(crate) attr: RulesetAttr,
    /// How many bytes of `attr` this kernel's ABI reads.
    pub(crate) attr_size: usize,
    /// Each rule: the open path's descriptor and its rights.
    pub(crate) rules: Vec<(RawFd, u64)>,
    /// The read rights of a folder: the child's fresh `/proc` gets them.
    pub(crate) read_dir: u64,
}

/// `struct landlock_ruleset_attr`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct RulesetAttr {
    pub(crate) handled_access_fs: u64,
    pub(crate) handled_access_net: u64,
    pub(crate) scoped: u64,
}

/// `struct landlock_path_beneath_attr`.
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// Builds the ruleset of `rules` and enforces it on the calling process, after no-new-privileges
/// (as the landlock crate's `restrict_self` does), with a rule for the process's own `/proc` when
/// `own_proc`. Only system calls: safe between clone and exec.
///
/// # Safety
/// The descriptors of `rules` must be open (its `PreparedSandbox` alive).
unsafe fn restrict_self(rules: Option<&Ruleset>, own_proc: bool) -> io::Result<()> {
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
pub(crate) fn write_maps(maps: Option<&(Vec<u8>, Vec<u8>)>) -> io::Result<()> {
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
