//! Running an external command under a time limit: in a process group of its own (killed whole on
//! timeout and when the command ends), optionally in a PID namespace of its own (so that no child
//! outlives it, `setsid` ones included), with a cleared environment, no standard input, a bounded
//! capture of what it prints, and optionally a Landlock filesystem sandbox and no network
//! (`isolate.rs`); started without a fork of the caller where no namespace is asked for
//! (`vfork.rs`), and watched from the calling thread, its output and its exit in one poll
//! (`watch.rs`).

mod confine;
mod isolate;
mod vfork;
mod watch;

pub use isolate::{
    containment, landlock_abi, network_isolation_available, private_mounts_available, protect,
    protected, real, Containment, PreparedSandbox, Sandbox, SYSTEM_DEVICES, SYSTEM_READ,
};

use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Bytes kept from each end of a stream: the first and the last `CAPTURE_EDGE` bytes.
pub const CAPTURE_EDGE: usize = 64 * 1024;

/// How long the capture of a stream may outlast the command's process group. Only a process that
/// left the group (its own `setsid`) can hold a pipe open after the group is killed.
const CAPTURE_GRACE: Duration = Duration::from_millis(500);

/// What one run of a command did, as stored with the round it belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProcessRecord {
    /// The command as run (paths resolved).
    pub argv: Vec<String>,
    /// The exit code, when it exited by itself.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did (9 after a timeout).
    pub signal: Option<i32>,
    pub timed_out: bool,
    /// Why it could not be started, when it could not.
    pub spawn_error: Option<String>,
    /// Wall time from start to exit (or to the kill).
    pub duration_ms: u64,
    pub stdout: Captured,
    pub stderr: Captured,
}

impl ProcessRecord {
    /// Exit code, signal or spawn failure, in a few words.
    pub fn status_text(&self) -> String {
        match (&self.spawn_error, self.exit_code, self.signal) {
            (Some(e), _, _) => format!("could not be started: {e}"),
            (None, Some(code), _) => format!("exited with {code}"),
            (None, None, Some(sig)) => format!("was killed by signal {sig}"),
            (None, None, None) => "ended without a status".into(),
        }
    }
}

/// The kept part of one output stream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Captured {
    /// Bytes the command wrote to the stream in all.
    pub total_bytes: u64,
    /// The first and last 64 KiB (lossy UTF-8), with a marker line where the middle was dropped.
    pub text: String,
    pub truncated: bool,
    /// Set when the capture was abandoned because a process outside the group held the pipe.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub abandoned: bool,
}

/// What to run.
#[derive(Debug, Clone)]
pub struct Spawn<'a> {
    /// Program and arguments; the program is looked up in `PATH` of `env` when it has no slash.
    pub argv: &'a [String],
    pub cwd: &'a Path,
    /// The whole environment: nothing else is inherited.
    pub env: &'a [(String, String)],
    pub timeout: Duration,
}

fn live_groups() -> &'static Mutex<BTreeSet<i32>> {
    static GROUPS: OnceLock<Mutex<BTreeSet<i32>>> = OnceLock::new();
    GROUPS.get_or_init(|| Mutex::new(BTreeSet::new()))
}

fn kill_group(pgid: i32) {
    // SAFETY: killpg has no memory effects; a group that no longer exists gives ESRCH, ignored.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

static STOPPED: AtomicBool = AtomicBool::new(false);

/// Kills the process group of every command still running, and refuses to start any more. Called
/// by the Ctrl-C handler, so that an interrupted run leaves no verifier behind (their groups do
/// not get the terminal's SIGINT).
pub fn kill_live_groups() {
    let groups = live_groups().lock().unwrap_or_else(|p| p.into_inner());
    STOPPED.store(true, Ordering::SeqCst);
    for pgid in groups.iter() {
        kill_group(*pgid);
    }
}

/// Keeps the first and last `CAPTURE_EDGE` bytes of a stream, in constant memory: the tail is a
/// ring written with slice copies (a stream of gigabytes passes through it at memcpy speed).
struct Bounded {
    head: Vec<u8>,
    ring: Vec<u8>,
    /// Once the ring is full: where the oldest byte is (and the next write goes).
    pos: usize,
    total: u64,
}

impl Bounded {
    fn new() -> Self {
        Bounded {
            head: Vec::new(),
            ring: Vec::new(),
            pos: 0,
            total: 0,
        }
    }

    fn push(&mut self, mut chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let room = CAPTURE_EDGE - self.head.len();
        if room > 0 {
            let n = room.min(chunk.len());
            self.head.extend_from_slice(&chunk[..n]);
            chunk = &chunk[n..];
        }
        if chunk.len() >= CAPTURE_EDGE {
            self.ring.clear();
            self.ring
                .extend_from_slice(&chunk[chunk.len() - CAPTURE_EDGE..]);
            self.pos = 0;
            return;
        }
        let fill = (CAPTURE_EDGE - self.ring.len()).min(chunk.len());
        self.ring.extend_from_slice(&chunk[..fill]);
        chunk = &chunk[fill..];
        while !chunk.is_empty() {
            let n = (CAPTURE_EDGE - self.pos).min(chunk.len());
            self.ring[self.pos..self.pos + n].copy_from_slice(&chunk[..n]);
            self.pos = (self.pos + n) % CAPTURE_EDGE;
            chunk = &chunk[n..];
        }
    }

    fn tail(&self) -> Vec<u8> {
        let mut out = self.ring[self.pos..].to_vec();
        out.extend_from_slice(&self.ring[..self.pos]);
        out
    }

    fn finish(self, abandoned: bool) -> Captured {
        let tail = self.tail();
        let kept = (self.head.len() + tail.len()) as u64;
        let truncated = kept < self.total;
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        if truncated {
            text.push_str(&format!(
                "\n[gatebench: {} bytes omitted]\n",
                self.total - kept
            ));
        }
        text.push_str(&String::from_utf8_lossy(&tail));
        Captured {
            total_bytes: self.total,
            text,
            truncated,
            abandoned,
        }
    }
}

/// The program as a path: a name without a slash is looked up in the `PATH` the command gets (not
/// gatebench's). Resolving it here also keeps std on its `posix_spawn` path, which it leaves for a
/// fork of the whole harness process when the child's `PATH` differs from the parent's (about a
/// millisecond per round; see `benches/command.rs`).
fn find_program(program: &str, env: &[(String, String)]) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    if program.contains('/') {
        return program.into();
    }
    let path = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map_or("", |(_, v)| v.as_str());
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|candidate| {
            candidate
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .unwrap_or_else(|| program.into())
}

/// A started command: its pid (and process group), its output, and how to wait for it.
struct Started {
    pid: i32,
    stdout: std::fs::File,
    stderr: std::fs::File,
    wait: Wait,
}

/// Reaps a started command: blocks until it has exited, and gives its status.
type Wait = Box<dyn FnOnce() -> std::io::Result<std::process::ExitStatus> + Send>;

/// Starts the command (`vfork.rs`), in the namespaces and sandbox of `plan` (`isolate.rs`).
fn start(
    program: &Path,
    args: &[String],
    spawn: &Spawn<'_>,
    plan: confine::ChildPlan<'_>,
) -> std::io::Result<Started> {
    let child = vfork::spawn(program, args, spawn.env, spawn.cwd, plan)?;
    let pid = child.pid;
    Ok(Started {
        pid,
        stdout: child.stdout,
        stderr: child.stderr,
        wait: Box::new(move || loop {
            let mut status = 0;
            // SAFETY: waiting for our own child, which nothing else reaps.
            if unsafe { libc::waitpid(pid, &mut status, 0) } >= 0 {
                return Ok(std::process::ExitStatus::from_raw(status));
            }
            let error = std::io::Error::last_os_error();
            if error.kind() != std::io::ErrorKind::Interrupted {
                return Err(error);
            }
        }),
    })
}

/// How a command is isolated beyond its process group (and `PR_SET_PDEATHSIG`, always set).
#[derive(Debug, Clone, Default)]
pub struct Isolation {
    /// A PID namespace of its own where the machine allows it: every process the command starts
    /// dies with it, `setsid` and double forks included. Off in [`run`] (the command then is an
    /// ordinary child: `$PPID` is its caller), on for external pipelines.
    pub contain: bool,
    /// A Landlock filesystem sandbox ([`Sandbox::prepare`]); `None` runs the command with
    /// gatebench's own access.
    pub sandbox: Option<PreparedSandbox>,
    /// An empty network namespace (loopback only, down).
    pub no_network: bool,
}

/// Runs a command to its end or its timeout, in its process group. Never panics and never
/// returns early: every failure is in the record.
pub fn run(spawn: &Spawn<'_>) -> ProcessRecord {
    run_isolated(spawn, &Isolation::default())
}

/// [`run`], with a sandbox and no network when `isolation` asks for them.
pub fn run_isolated(spawn: &Spawn<'_>, isolation: &Isolation) -> ProcessRecord {
    let mut record = ProcessRecord {
        argv: spawn.argv.to_vec(),
        exit_code: None,
        signal: None,
        timed_out: false,
        spawn_error: None,
        duration_ms: 0,
        stdout: Captured::default(),
        stderr: Captured::default(),
    };
    let Some((program, args)) = spawn.argv.split_first() else {
        record.spawn_error = Some("the command is empty".into());
        return record;
    };
    let sandbox = match isolation
        .sandbox
        .as_ref()
        .map(|s| s.rules().map(|rules| (s, rules)))
        .transpose()
    {
        Ok(r) => r,
        Err(e) => {
            record.spawn_error = Some(e.to_string());
            return record;
        }
    };
    let plan = confine::ChildPlan::new(isolation.contain, isolation.no_network, sandbox);
    let program_path = find_program(program, spawn.env);
    let started = Instant::now();
    // The registry lock is held across spawn so that a Ctrl-C between spawn and registration
    // cannot miss the new group.
    let child = {
        let mut groups = live_groups().lock().unwrap_or_else(|p| p.into_inner());
        if STOPPED.load(Ordering::SeqCst) {
            record.spawn_error = Some("the run was interrupted".into());
            return record;
        }
        match start(&program_path, args, spawn, plan) {
            Ok(child) => {
                groups.insert(child.pid);
                child
            }
            Err(e) => {
                record.spawn_error = Some(format!("{program}: {e}"));
                return record;
            }
        }
    };
    let pgid = child.pid;
    let watched = watch::watch(child, started, spawn.timeout);
    if let Ok(mut groups) = live_groups().lock() {
        groups.remove(&pgid);
    }
    record.duration_ms = watched.duration.as_millis() as u64;
    record.timed_out = watched.timed_out;
    if let Some(status) = watched.status {
        record.exit_code = status.code();
        record.signal = status.signal();
    }
    record.stdout = watched.stdout;
    record.stderr = watched.stderr;
    record
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    #[test]
    fn a_stream_longer_than_both_edges_keeps_its_first_and_last_bytes() {
        let big: Vec<u8> = (0..(3 * CAPTURE_EDGE + 17))
            .map(|i| (i % 251) as u8)
            .collect();
        for size in [7, 1000, 100_000] {
            let mut b = Bounded::new();
            for chunk in big.chunks(size) {
                b.push(chunk);
            }
            assert_eq!(b.head.as_slice(), &big[..CAPTURE_EDGE], "chunks of {size}");
            assert_eq!(
                b.tail().as_slice(),
                &big[big.len() - CAPTURE_EDGE..],
                "chunks of {size}"
            );
            let c = b.finish(false);
            assert!(c.truncated);
            assert_eq!(c.total_bytes, big.len() as u64);
            assert!(c
                .text
                .contains(&format!("{} bytes omitted", CAPTURE_EDGE + 17)));
        }
    }

    #[test]
    fn a_short_stream_is_kept_whole() {
        let mut b = Bounded::new();
        b.push(b"hello ");
        b.push(b"world");
        let c = b.finish(false);
        assert_eq!(c.text, "hello world");
        assert!(!c.truncated);
    }

    #[test]
    fn a_command_without_namespaces_starts_as_std_would_start_it() {
        // The vfork path (no namespace asked for): its own process group, the given folder and
        // environment only, no standard input, no signal ignored or blocked, the output captured.
        let dir = tempfile_dir("vfork");
        // The shell reads its own status with its builtin `read`: dash blocks every signal in
        // itself while it starts a command (its vfork), so a `grep` of the shell's status races
        // with that window (seen in CI; 1,413 of 3,000 runs under load here).
        let own_signals = "while read -r line; do case $line in Sig[IB]*) echo \"$line\";; esac; \
                           done < /proc/$$/status";
        let script = format!(
            "read -r pid comm state ppid pgrp rest < /proc/$$/stat; \
             [ \"$pid\" = \"$pgrp\" ] && echo own-group; pwd; env | sort; \
             {own_signals}; cat; echo err >&2; exit 7"
        );
        let argv = vec!["/bin/sh".to_owned(), "-c".to_owned(), script];
        let r = run(&Spawn {
            argv: &argv,
            cwd: &dir,
            env: &[("ONLY".into(), "this".into())],
            timeout: Duration::from_secs(20),
        });
        assert_eq!(r.exit_code, Some(7), "{r:?}");
        let lines: Vec<&str> = r.stdout.text.lines().collect();
        assert_eq!(lines[0], "own-group", "{r:?}");
        assert_eq!(lines[1], real(&dir).display().to_string());
        // sh adds PWD (and may add a few of its own); nothing of the harness's environment.
        assert!(lines.contains(&"ONLY=this"), "{lines:?}");
        assert!(!lines.iter().any(|l| l.starts_with("HOME=")), "{lines:?}");
        // What is ignored is what std's fork leaves ignored, SIGPIPE not among it (a `pre_exec`
        // makes std fork: its `posix_spawn` leaves glibc's internal signals ignored besides).
        let mut forked = std::process::Command::new("/bin/sh");
        forked.args(["-c", &own_signals.replace("Sig[IB]", "SigIgn")]);
        // SAFETY: the closure does nothing.
        unsafe { forked.pre_exec(|| Ok(())) };
        let std_spawned = forked.output().unwrap();
        let ignored = String::from_utf8(std_spawned.stdout).unwrap();
        let mask_of =
            |line: &str| u64::from_str_radix(line.trim_end().rsplit('\t').next()?, 16).ok();
        // std's fork also keeps what this test process ignores (a shell's background job
        // ignores SIGINT and SIGQUIT); the vfork path resets every disposition, so those are
        // the only difference allowed.
        let ours_ignored = std::fs::read_to_string("/proc/self/status").unwrap();
        let inherited = ours_ignored
            .lines()
            .find(|l| l.starts_with("SigIgn:"))
            .and_then(mask_of)
            .unwrap();
        let child = lines
            .iter()
            .find(|l| l.starts_with("SigIgn:"))
            .and_then(|l| mask_of(l))
            .unwrap();
        let std_mask = mask_of(&ignored).unwrap();
        assert_eq!(child & !std_mask, 0, "{lines:?} {ignored}");
        assert_eq!(std_mask & !child & !inherited, 0, "{lines:?} {ignored}");
        assert_eq!(std_mask & (1 << (libc::SIGPIPE - 1)), 0);
        assert!(lines.contains(&"SigBlk:\t0000000000000000"), "{lines:?}");
        assert_eq!(r.stderr.text, "err\n");
    }

    #[test]
    fn a_command_past_its_time_limit_is_killed_whole_and_keeps_what_it_printed() {
        let argv = vec![
            "/bin/sh".to_owned(),
            "-c".to_owned(),
            "echo before; echo warm >&2; sleep 30 & sleep 30".to_owned(),
        ];
        let started = Instant::now();
        let r = run(&Spawn {
            argv: &argv,
            cwd: Path::new("/"),
            env: &[("PATH".into(), "/usr/bin:/bin".into())],
            timeout: Duration::from_millis(300),
        });
        assert!(r.timed_out, "{r:?}");
        assert_eq!(r.signal, Some(libc::SIGKILL), "{r:?}");
        assert_eq!(r.exit_code, None);
        assert_eq!(r.stdout.text, "before\n");
        assert_eq!(r.stderr.text, "warm\n");
        assert!(r.duration_ms >= 300, "{r:?}");
        // The background `sleep` was in the group: killed too, so the streams ended at once
        // rather than after the grace (a generous bound: the machine may be loaded).
        assert!(started.elapsed() < Duration::from_secs(10), "{r:?}");
        assert!(!r.stdout.abandoned && !r.stderr.abandoned);
    }

    #[test]
    fn both_streams_are_read_as_they_come_so_a_command_filling_both_pipes_ends() {
        // 300,000 bytes to each stream, alternating in chunks: more than a pipe holds, so a
        // reader that waited for one stream's end before reading the other would deadlock.
        let script = "i=0; while [ $i -lt 30 ]; do head -c 10000 /dev/zero; \
                      head -c 10000 /dev/zero >&2; i=$((i+1)); done; exit 4";
        let r = sh(script, &Isolation::default());
        assert_eq!(r.exit_code, Some(4), "{:?}", r.spawn_error);
        assert_eq!(r.stdout.total_bytes, 300_000);
        assert_eq!(r.stderr.total_bytes, 300_000);
        assert!(r.stdout.truncated && r.stderr.truncated);
        assert!(!r.timed_out);
    }

    #[test]
    fn a_stream_held_open_outside_the_group_is_abandoned_after_the_grace() {
        // Without a PID namespace, a `setsid` child leaves the group and is not killed with
        // it: it keeps stdout open (its stderr goes elsewhere). The command's own exit is still
        // seen and recorded, and the capture gives up on stdout after the grace instead of
        // waiting for the sleep. (The command waits a little before it exits, so that `setsid`
        // has run: a child still in the group when the command ends is killed with it.)
        let mark = format!("{}.{}", 100 + std::process::id() % 800, 23);
        let started = Instant::now();
        let r = sh(
            &format!(
                "echo said; setsid sleep {mark} 2>/dev/null & echo err >&2; sleep 0.3; exit 5"
            ),
            &Isolation::default(),
        );
        let took = started.elapsed();
        // The sleep outlives the command, as this test means it to: ended here.
        let _ = std::process::Command::new("pkill")
            .args(["-f", &format!("sleep {mark}")])
            .status();
        assert_eq!(r.exit_code, Some(5), "{r:?}");
        assert!(r.stdout.abandoned, "{r:?}");
        assert!(r.stdout.text.contains("capture abandoned"), "{r:?}");
        assert!(!r.stderr.abandoned, "{r:?}");
        assert_eq!(r.stderr.text, "err\n");
        assert!(took >= CAPTURE_GRACE, "{took:?}");
        assert!(took < Duration::from_secs(60), "{took:?}");
    }

    #[test]
    fn a_command_that_cannot_start_says_why() {
        let argv = vec!["/nonexistent/gatebench-no-such-program".to_owned()];
        let r = run(&Spawn {
            argv: &argv,
            cwd: Path::new("/"),
            env: &[],
            timeout: Duration::from_secs(5),
        });
        assert!(r.spawn_error.is_some(), "{r:?}");
        assert_eq!(r.exit_code, None);
    }

    fn sh(script: &str, isolation: &Isolation) -> ProcessRecord {
        let argv = vec!["/bin/sh".to_owned(), "-c".to_owned(), script.to_owned()];
        run_isolated(
            &Spawn {
                argv: &argv,
                cwd: Path::new("/"),
                env: &[("PATH".into(), "/usr/bin:/bin".into())],
                timeout: Duration::from_secs(20),
            },
            isolation,
        )
    }

    /// Processes whose command line holds `needle`.
    fn processes_with(needle: &str) -> Vec<String> {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
            .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
            .filter(|c| c.contains(needle))
            .collect()
    }

    #[test]
    fn a_setsid_child_and_a_double_fork_do_not_outlive_their_command() {
        if containment() != Containment::PidNamespace {
            eprintln!("no PID namespace on this machine: containment is the process group only");
            return;
        }
        let mark = format!("{}.{}", 100 + std::process::id() % 800, 17);
        let r = sh(
            &format!("setsid sleep {mark} & (sh -c 'sleep {mark} &' &) ; sleep 0.2; exit 3"),
            &Isolation {
                contain: true,
                ..Isolation::default()
            },
        );
        assert_eq!(r.exit_code, Some(3), "{r:?}");
        assert_eq!(
            processes_with(&format!("sleep {mark}")),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_sandboxed_command_reads_and_writes_only_what_it_was_given() {
        if landlock_abi().is_none() {
            eprintln!("no Landlock in this kernel");
            return;
        }
        let secret = tempfile_dir("secret");
        std::fs::write(secret.join("key"), "answer").unwrap();
        let out = tempfile_dir("out");
        let mut read: Vec<std::path::PathBuf> = SYSTEM_READ.iter().map(Into::into).collect();
        read.extend(SYSTEM_DEVICES.iter().map(Into::into));
        let sandbox = Sandbox {
            read,
            write: vec![out.clone()],
        };
        let isolation = Isolation {
            sandbox: Some(sandbox.prepare()),
            ..Isolation::default()
        };
        let r = sh(
            &format!(
                "cat {}/key; echo $? > {}/status; echo ok > /dev/null; touch {}/planted",
                secret.display(),
                out.display(),
                secret.display()
            ),
            &isolation,
        );
        assert_eq!(r.spawn_error, None, "{r:?}");
        assert!(!r.stdout.text.contains("answer"), "{r:?}");
        assert!(r.stderr.text.contains("Permission denied"), "{r:?}");
        assert_eq!(std::fs::read_to_string(out.join("status")).unwrap(), "1\n");
        assert!(!secret.join("planted").exists());
        let _ = std::fs::remove_dir_all(&secret);
        let _ = std::fs::remove_dir_all(&out);
    }

    fn tempfile_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "gatebench-process-test-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
