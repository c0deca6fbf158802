//! Watching a started command from the thread that started it: its two output streams and its
//! exit in one `poll(2)`, the time limit as poll's timeout, the exit seen through a pidfd.
//!
//! Before, each command had three threads of its own (one a stream and one for the wait), and
//! each stream a zeroed 64 KiB buffer: three thread starts and ends a command, twelve a
//! verification-loop trial, on a machine whose two cores the trials already keep busy
//! (docs/PERFORMANCE.md, "Where it stands", the fourteenth). A kernel without pidfds (before
//! Linux 5.3) still gets one thread, for the wait, which closes a pipe the poll watches.

use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::ExitStatus;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::{kill_group, Bounded, Captured, Started, CAPTURE_GRACE};

/// What watching a command to its end found.
pub(crate) struct Watched {
    /// The exit status, once the command was reaped (`None`: the wait failed).
    pub status: Option<ExitStatus>,
    pub timed_out: bool,
    /// From `started` to the exit (after the kill, on a timeout).
    pub duration: Duration,
    pub stdout: Captured,
    pub stderr: Captured,
}

/// How the poll learns that the command exited.
enum Exit {
    /// A pidfd of the child: readable once it has exited; the wait then returns at once.
    Pidfd(OwnedFd, crate::Wait),
    /// No pidfd here: a thread waits, sends the status, and closes the pipe's write end.
    Thread(OwnedFd, mpsc::Receiver<io::Result<ExitStatus>>),
}

impl Exit {
    /// How to learn of `pid`'s exit; the wait given back when neither a pidfd nor a pipe could
    /// be made (out of descriptors).
    fn of(pid: i32, wait: crate::Wait) -> Result<Exit, crate::Wait> {
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1. The child
        // is ours and not yet reaped, so its pid names it and no other process.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if fd >= 0 {
            // SAFETY: the descriptor was just made and belongs to nobody else.
            let fd = unsafe { OwnedFd::from_raw_fd(fd as RawFd) };
            return Ok(Exit::Pidfd(fd, wait));
        }
        Exit::by_thread(wait)
    }

    /// A thread waits, sends the status and closes the write end of a pipe the poll watches.
    fn by_thread(wait: crate::Wait) -> Result<Exit, crate::Wait> {
        let Ok((read, write)) = crate::vfork::pipe() else {
            return Err(wait);
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(wait());
            drop(write);
        });
        Ok(Exit::Thread(read, rx))
    }

    fn fd(&self) -> RawFd {
        match self {
            Exit::Pidfd(fd, _) | Exit::Thread(fd, _) => fd.as_raw_fd(),
        }
    }

    /// The status, once the descriptor said the command exited (the wait does not block then).
    fn reap(self) -> Option<ExitStatus> {
        match self {
            Exit::Pidfd(_, wait) => wait().ok(),
            Exit::Thread(_, rx) => rx.recv().ok().and_then(Result::ok),
        }
    }
}

/// One output stream: open until its end is read, or abandoned when the grace after the exit
/// runs out first.
struct Stream {
    file: Option<std::fs::File>,
    kept: Bounded,
}

impl Stream {
    /// Reads what is there (poll said readable: the read does not block); the end closes it.
    fn read(&mut self, buf: &mut [u8]) {
        let Some(file) = self.file.as_mut() else {
            return;
        };
        match file.read(buf) {
            Ok(0) => self.file = None,
            Ok(n) => self.kept.push(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => self.file = None,
        }
    }

    fn finish(self) -> Captured {
        if self.file.is_some() {
            // A process outside the group (its own `setsid`) still holds the stream open.
            return Captured {
                text: "[gatebench: capture abandoned: a process outside the command's group kept \
                       the stream open]"
                    .into(),
                abandoned: true,
                ..Captured::default()
            };
        }
        self.kept.finish(false)
    }
}

/// Milliseconds from now to `until`, rounded up (poll's timeout), `-1` for no limit.
fn poll_timeout(until: Option<Instant>) -> libc::c_int {
    match until {
        None => -1,
        Some(t) => {
            let left = t.saturating_duration_since(Instant::now());
            let ms = left.as_micros().div_ceil(1000);
            ms.min(libc::c_int::MAX as u128) as libc::c_int
        }
    }
}

/// Watches `child` (started at `started`, in process group `child.pid`) until it exits and its
/// streams end: kills the group when `timeout` passes, and again once the command exits (what it
/// left running in its group ends with it), then reads what is left of the streams for at most
/// `CAPTURE_GRACE`.
pub(crate) fn watch(child: Started, started: Instant, timeout: Duration) -> Watched {
    follow(child, Exit::of, started, timeout)
}

/// One poll(2) over the open streams (`open`, indexes into `streams`) and, while the command
/// runs, its exit's descriptor (last), until `until` (`None`: no limit). Returns poll's result
/// and the descriptors with what it saw on each.
fn poll(
    streams: &[Stream; 2],
    open: &[usize],
    exit: Option<&Exit>,
    until: Option<Instant>,
) -> (libc::c_int, Vec<libc::pollfd>) {
    let mut fds: Vec<libc::pollfd> = open
        .iter()
        .map(|&i| libc::pollfd {
            fd: streams[i].file.as_ref().map_or(-1, AsRawFd::as_raw_fd),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    if let Some(exit) = exit {
        fds.push(libc::pollfd {
            fd: exit.fd(),
            events: libc::POLLIN,
            revents: 0,
        });
    }
    // SAFETY: `fds` is a live array of `fds.len()` pollfd structures.
    let ready = unsafe {
        libc::poll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            poll_timeout(until),
        )
    };
    (ready, fds)
}

/// [`watch`], with how the exit is learnt of chosen by `exit_of` (the tests choose the thread,
/// or no way at all).
fn follow(
    child: Started,
    exit_of: impl FnOnce(i32, crate::Wait) -> Result<Exit, crate::Wait>,
    started: Instant,
    timeout: Duration,
) -> Watched {
    let pgid = child.pid;
    let exit = exit_of(pgid, child.wait);
    let mut streams = [
        Stream {
            file: Some(child.stdout),
            kept: Bounded::new(),
        },
        Stream {
            file: Some(child.stderr),
            kept: Bounded::new(),
        },
    ];
    let mut watched = Watched {
        status: None,
        timed_out: false,
        duration: Duration::ZERO,
        stdout: Captured::default(),
        stderr: Captured::default(),
    };
    let mut exit = match exit {
        Ok(exit) => Some(exit),
        Err(wait) => {
            // Neither a pidfd nor a pipe could be made (out of descriptors): the command is
            // stopped and reaped rather than watched blind, and nothing of its output is kept.
            kill_group(pgid);
            watched.status = wait().ok();
            watched.duration = started.elapsed();
            streams.iter_mut().for_each(|s| s.file = None);
            None
        }
    };
    let deadline = started + timeout;
    let mut grace_end = None;
    let mut buf = [0u8; 16 * 1024];
    loop {
        let open: Vec<usize> = (0..2).filter(|&i| streams[i].file.is_some()).collect();
        if exit.is_none() && open.is_empty() {
            break;
        }
        let until = match (&exit, watched.timed_out) {
            (None, _) => grace_end,
            (Some(_), false) => Some(deadline),
            // Killed: its exit follows; wait for it without a limit, as a wait would.
            (Some(_), true) => None,
        };
        let (ready, fds) = poll(&streams, &open, exit.as_ref(), until);
        if ready < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            // poll itself failed (out of memory): stop the command, wait for it, and keep what
            // was read of its streams (closed here, not abandoned: no process outside the group
            // is known to hold them).
            kill_group(pgid);
            if let Some(exit) = exit.take() {
                watched.status = exit.reap();
                watched.duration = started.elapsed();
            }
            streams.iter_mut().for_each(|s| s.file = None);
            break;
        }
        if ready == 0 {
            if exit.is_none() {
                // The grace is over: what is still open is abandoned.
                break;
            }
            if Instant::now() >= deadline {
                watched.timed_out = true;
                kill_group(pgid);
            }
            continue;
        }
        for (slot, &i) in open.iter().enumerate() {
            if fds[slot].revents != 0 {
                streams[i].read(&mut buf);
            }
        }
        if exit.is_some() && fds[open.len()].revents != 0 {
            if let Some(exit) = exit.take() {
                watched.status = exit.reap();
            }
            watched.duration = started.elapsed();
            kill_group(pgid);
            grace_end = Some(Instant::now() + CAPTURE_GRACE);
        }
    }
    let [stdout, stderr] = streams;
    watched.stdout = stdout.finish();
    watched.stderr = stderr.finish();
    watched
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;
    use std::path::Path;

    fn started(script: &str) -> (Started, Instant) {
        let child = crate::vfork::spawn(
            Path::new("/bin/sh"),
            &["-c".to_owned(), script.to_owned()],
            &[("PATH".into(), "/usr/bin:/bin".into())],
            Path::new("/"),
            crate::confine::ChildPlan::new(false, false, None),
        )
        .unwrap();
        let pid = child.pid;
        let wait: crate::Wait = Box::new(move || {
            let mut status = 0;
            // SAFETY: waiting for our own child.
            if unsafe { libc::waitpid(pid, &mut status, 0) } < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(ExitStatus::from_raw(status))
        });
        let started = Started {
            pid,
            stdout: child.stdout,
            stderr: child.stderr,
            wait,
        };
        (started, Instant::now())
    }

    fn follow_by_thread(child: Started, started: Instant, timeout: Duration) -> Watched {
        follow(child, |_, wait| Exit::by_thread(wait), started, timeout)
    }

    #[test]
    fn without_a_pidfd_a_waiting_thread_tells_the_poll_of_the_exit() {
        // The path a kernel before 5.3 takes: the same record as with a pidfd.
        let (child, at) = started("echo out; echo err >&2; exit 3");
        let w = follow_by_thread(child, at, Duration::from_secs(20));
        assert_eq!(w.status.and_then(|s| s.code()), Some(3));
        assert!(!w.timed_out);
        assert_eq!(w.stdout.text, "out\n");
        assert_eq!(w.stderr.text, "err\n");
        let (child, at) = started("echo before; sleep 30");
        let w = follow_by_thread(child, at, Duration::from_millis(200));
        assert!(w.timed_out);
        assert_eq!(w.status.and_then(|s| s.signal()), Some(libc::SIGKILL));
        assert_eq!(w.stdout.text, "before\n");
    }

    #[test]
    fn a_command_that_cannot_be_watched_is_killed_and_reaped() {
        // Out of descriptors: no pidfd and no pipe. The command is stopped, not left running,
        // and its status is still the wait's.
        let (child, at) = started("sleep 30");
        let w = follow(child, |_, wait| Err(wait), at, Duration::from_secs(20));
        assert_eq!(w.status.and_then(|s| s.signal()), Some(libc::SIGKILL));
        assert!(w.duration < Duration::from_secs(20));
    }
}
