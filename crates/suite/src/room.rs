//! Where a suite command runs: a private scratch folder (its `HOME` and `TMPDIR`, removed after),
//! a minimal fixed environment, and the sandbox of `gatebench-process` (Landlock, no network, a
//! PID namespace where the machine has them) that lets it read the system locations and the
//! folders on `PATH`, and read and write only the project's folder and the scratch folder. For
//! cargo, the toolchain (`RUSTUP_HOME`, and of `CARGO_HOME` what a build reads) is granted too,
//! read-only.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gatebench_process::{self as process, Isolation, ProcessRecord, Spawn};

/// `PATH` when the caller has none.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// A run's scratch folder, environment and sandbox. The scratch folder is removed when the room
/// is dropped.
pub(crate) struct Room {
    scratch: tempfile::TempDir,
    env: Vec<(String, String)>,
    sandbox: process::PreparedSandbox,
}

/// The folders of a cargo toolchain: `RUSTUP_HOME` and `CARGO_HOME` as the caller has them set,
/// or `$HOME/.rustup` and `$HOME/.cargo`.
fn toolchain_homes() -> Vec<(&'static str, PathBuf)> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")]
        .into_iter()
        .filter_map(|(var, default)| {
            let path = std::env::var_os(var)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(default)))?;
            Some((var, path))
        })
        .collect()
}

/// What the sandbox may read of a toolchain folder: all of `RUSTUP_HOME` (toolchains and
/// settings); of `CARGO_HOME` only what a build reads (`bin`, `registry`, `git`, `config.toml`,
/// `config`), not its credentials (`credentials.toml`: registry tokens) nor anything else a user
/// keeps there.
fn toolchain_grants(var: &str, home: &Path) -> Vec<PathBuf> {
    if var != "CARGO_HOME" {
        return vec![process::real(home)];
    }
    ["bin", "registry", "git", "config.toml", "config"]
        .iter()
        .map(|part| home.join(part))
        .filter(|p| p.exists())
        .map(|p| process::real(&p))
        .collect()
}

/// The caller's `PATH`, without the folders of a version manager's shims (a `PATH` entry whose
/// last component is `shims`: pyenv, rbenv, nodenv, asdf, mise). A shim is a script that asks the
/// manager which version to run, from folders the sandbox does not let it read, so it cannot run
/// there; without it the same name is the system's interpreter (`/usr/bin/python3`).
pub(crate) fn caller_path() -> OsString {
    let path = std::env::var_os("PATH")
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| DEFAULT_PATH.into());
    let kept: Vec<std::path::PathBuf> = std::env::split_paths(&path)
        .filter(|dir| dir.file_name().is_none_or(|name| name != "shims"))
        .collect();
    std::env::join_paths(kept).unwrap_or(path)
}

impl Room {
    /// A room for a command: `writable` folders besides the scratch one (the project's folder,
    /// a cargo target folder), the toolchain's folders readable when `cargo` is true, and
    /// `CARGO_TARGET_DIR` set to `target_dir` (or a folder in the scratch one) for cargo.
    pub(crate) fn new(
        writable: &[&Path],
        cargo: bool,
        target_dir: Option<&Path>,
    ) -> std::io::Result<Room> {
        let scratch = tempfile::Builder::new()
            .prefix("gatebench-suite-")
            .tempdir()?;
        let private = process::real(scratch.path());
        let path = caller_path();
        let mut env = vec![
            ("PATH".to_owned(), path.to_string_lossy().into_owned()),
            ("HOME".to_owned(), private.display().to_string()),
            ("TMPDIR".to_owned(), private.display().to_string()),
            ("LANG".to_owned(), "C.UTF-8".to_owned()),
            ("PYTHONDONTWRITEBYTECODE".to_owned(), "1".to_owned()),
            ("PYTHONHASHSEED".to_owned(), "0".to_owned()),
            ("NO_COLOR".to_owned(), "1".to_owned()),
            ("CI".to_owned(), "1".to_owned()),
        ];
        let mut sandbox = process::Sandbox::base(&path, &caller_folder());
        sandbox.write.push(private.clone());
        sandbox
            .write
            .extend(writable.iter().map(|p| process::real(p)));
        if cargo {
            for (var, home) in toolchain_homes() {
                sandbox.read.extend(toolchain_grants(var, &home));
                env.push((var.to_owned(), home.display().to_string()));
            }
            let target = match target_dir {
                Some(dir) => {
                    std::fs::create_dir_all(dir)?;
                    process::real(dir)
                }
                None => private.join("target"),
            };
            sandbox.write.push(target.clone());
            env.push(("CARGO_TARGET_DIR".to_owned(), target.display().to_string()));
            env.push(("CARGO_TERM_COLOR".to_owned(), "never".to_owned()));
        }
        sandbox.read.sort();
        sandbox.read.dedup();
        Ok(Room {
            scratch,
            env,
            sandbox: sandbox.prepare(),
        })
    }

    /// The scratch folder (its real path).
    pub(crate) fn scratch(&self) -> PathBuf {
        process::real(self.scratch.path())
    }

    /// Runs `argv` in `cwd`, in this room, under `timeout`.
    pub(crate) fn run(&self, argv: &[String], cwd: &Path, timeout: Duration) -> ProcessRecord {
        process::run_isolated(
            &Spawn {
                argv,
                cwd,
                env: &self.env,
                timeout,
            },
            &Isolation {
                contain: true,
                // Asked only where the machine can make a network namespace: elsewhere asking
                // would refuse to start every command.
                no_network: process::network_isolation_available(),
                sandbox: Some(self.sandbox.clone()),
            },
        )
    }
}

/// What the sandbox's base must not expose, as the gate's loop commands keep it: the caller's
/// current folder (where its own files are), unless that is `/`, which holds everything.
fn caller_folder() -> Vec<PathBuf> {
    std::env::current_dir()
        .ok()
        .map(|d| process::real(&d))
        .filter(|d| d.parent().is_some())
        .into_iter()
        .collect()
}

/// A record of a command that could not be started, saying why.
pub(crate) fn not_started(argv: &[String], why: String) -> ProcessRecord {
    ProcessRecord {
        argv: argv.to_vec(),
        exit_code: None,
        signal: None,
        timed_out: false,
        spawn_error: Some(why),
        duration_ms: 0,
        stdout: process::Captured::default(),
        stderr: process::Captured::default(),
    }
}
