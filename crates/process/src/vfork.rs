//! Starting a command without copying the harness: `clone(CLONE_VM | CLONE_VFORK)`, as
//! `posix_spawn` does, with the namespaces its plan asks for given to `clone` itself (the child is
//! then the init of its PID namespace at once: no second fork, no process in between).
//!
//! std spawns through `posix_spawn` only when nothing must run in the child before `exec`; the
//! parent-death signal and the Landlock sandbox must, so std forks. A fork of a multi-threaded
//! harness copies its page tables, write-protects its memory while the other workers run, and
//! the copy is torn down at `exec`: about 8% of a verification-loop trial's samples, and two
//! workers stalled each other on it (docs/PERFORMANCE.md, "process starts without a fork").
//! Here the child shares the parent's memory until it execs, and makes only system calls on data
//! prepared before the clone: no allocation, no lock, no std.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A started child: its pid (its own process group's id too) and the read ends of its output.
pub(crate) struct Started {
    pub pid: libc::pid_t,
    pub stdout: File,
    pub stderr: File,
}

/// Everything the child needs, prepared in the parent.
struct Plan<'a> {
    program: CString,
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
    cwd: CString,
    stdin: libc::c_int,
    stdout: libc::c_int,
    stderr: libc::c_int,
    /// Namespaces, session, sandbox (`isolate.rs`).
    confine: crate::confine::ChildPlan<'a>,
    /// Where the child leaves `errno` when a step before `exec` (or `exec` itself) fails.
    error: libc::c_int,
}

fn c_string(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::other("a NUL byte in an argument or variable"))
}

pub(crate) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into the array it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Starts `program` with `args` and exactly `env`, in `cwd`, in a session (and process group) of
/// its own, with no standard input, its output into two pipes, `SIGKILL` when the calling thread
/// ends, in the namespaces and the sandbox of `confine`.
pub(crate) fn spawn(
    program: &Path,
    args: &[String],
    env: &[(String, String)],
    cwd: &Path,
    confine: crate::confine::ChildPlan<'_>,
) -> io::Result<Started> {
    let program = c_string(program.as_os_str().as_bytes())?;
    let mut strings = Vec::with_capacity(1 + args.len() + env.len());
    strings.push(program.clone());
    for arg in args {
        strings.push(c_string(arg.as_bytes())?);
    }
    let argc = strings.len();
    for (key, value) in env {
        strings.push(c_string(format!("{key}={value}").as_bytes())?);
    }
    let pointers = |range: std::ops::Range<usize>| -> Vec<*const libc::c_char> {
        strings[range]
            .iter()
            .map(|s| s.as_ptr())
            .chain(std::iter::once(std::ptr::null()))
            .collect()
    };
    let (argv, envp) = (pointers(0..argc), pointers(argc..strings.len()));
    let stdin = File::open("/dev/null")?;
    let (out_read, out_write) = pipe()?;
    let (err_read, err_write) = pipe()?;
    let mut plan = Plan {
        program,
        argv,
        envp,
        cwd: c_string(OsStr::as_bytes(cwd.as_os_str()))?,
        stdin: stdin.as_raw_fd(),
        stdout: out_write.as_raw_fd(),
        stderr: err_write.as_raw_fd(),
        confine,
        error: 0,
    };
    // The child runs on a stack of its own in the parent's memory; it needs little (a few system
    // calls), but a signal handler that runs before `exec` needs room. Its bytes are left
    // unwritten (a stack is written before it is read): no 64 KiB zeroed a command.
    let mut stack: Vec<u8> = Vec::with_capacity(64 * 1024);
    // SAFETY: the stack grows down from its end, which is 16-byte aligned below; `plan` and
    // `stack` outlive the child's use of them, since CLONE_VFORK suspends this thread until the
    // child has exec'd or exited. Every signal is blocked across the clone so that no handler
    // of the harness runs in the child; the child unblocks them once it has reset them.
    let pid = unsafe {
        let top = stack.as_mut_ptr().add(stack.capacity());
        let top = top.sub(top as usize % 16);
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let pid = libc::clone(
            child,
            top.cast(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD | plan.confine.clone_flags,
            (&mut plan as *mut Plan).cast(),
        );
        let clone_error = io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        if pid < 0 {
            return Err(clone_error);
        }
        pid
    };
    drop(stack);
    if plan.error != 0 {
        // The child could not exec and has exited: reap it.
        let mut status = 0;
        // SAFETY: waiting for our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        return Err(io::Error::from_raw_os_error(plan.error));
    }
    drop((out_write, err_write, stdin));
    Ok(Started {
        pid,
        stdout: File::from(out_read),
        stderr: File::from(err_read),
    })
}

/// The child, between clone and exec: system calls only.
extern "C" fn child(plan: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `plan` is the parent's `Plan`, alive and untouched while this thread of control
    // runs (the parent is suspended by CLONE_VFORK). Each call below is a plain system call.
    unsafe {
        let plan = &mut *plan.cast::<Plan>();
        let fail = |plan: &mut Plan| -> libc::c_int {
            plan.error = *libc::__errno_location();
            if plan.error == 0 {
                plan.error = libc::EINVAL;
            }
            libc::_exit(127)
        };
        // Handlers of the harness must not run here (they would run on this stack, in the
        // parent's memory): back to the defaults before signals are let in again. SIGPIPE, which
        // std ignores in the parent, is a default for the command too.
        for signal in [
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGQUIT,
            libc::SIGPIPE,
            libc::SIGSEGV,
            libc::SIGBUS,
        ] {
            libc::signal(signal, libc::SIG_DFL);
        }
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0
            || libc::dup2(plan.stdin, 0) < 0
            || libc::dup2(plan.stdout, 1) < 0
            || libc::dup2(plan.stderr, 2) < 0
        {
            return fail(plan);
        }
        // Every other descriptor closes at exec: what gatebench inherited from its own parent
        // (a shell's log, a pipe) is not close-on-exec, and a command must not get it. Marked,
        // not closed: the sandbox's open paths are needed until its rules are made.
        const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
        libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC);
        if crate::confine::in_child(&plan.confine, &plan.cwd).is_err() {
            return fail(plan);
        }
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        libc::execve(
            plan.program.as_ptr(),
            plan.argv.as_ptr(),
            plan.envp.as_ptr(),
        );
        fail(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_child_is_killed_when_the_thread_that_started_it_ends() {
        let started = std::thread::spawn(|| {
            spawn(
                Path::new("/bin/sleep"),
                &["30".to_owned()],
                &[],
                Path::new("/"),
                crate::confine::ChildPlan::new(false, false, None),
            )
            .unwrap()
        })
        .join()
        .unwrap();
        let mut status = 0;
        // SAFETY: waiting for our own child.
        assert_eq!(
            unsafe { libc::waitpid(started.pid, &mut status, 0) },
            started.pid
        );
        assert!(libc::WIFSIGNALED(status), "exited by itself: {status}");
        assert_eq!(libc::WTERMSIG(status), libc::SIGKILL);
    }

    #[test]
    fn a_program_that_does_not_exist_is_the_exec_error() {
        let error = spawn(
            Path::new("/nonexistent/program"),
            &[],
            &[],
            Path::new("/"),
            crate::confine::ChildPlan::new(false, false, None),
        )
        .err()
        .expect("no such program");
        assert_eq!(error.raw_os_error(), Some(libc::ENOENT));
        let error = spawn(
            Path::new("/bin/true"),
            &[],
            &[],
            Path::new("/nonexistent"),
            crate::confine::ChildPlan::new(false, false, None),
        )
        .err()
        .expect("no such folder");
        assert_eq!(error.raw_os_error(), Some(libc::ENOENT));
    }
}
