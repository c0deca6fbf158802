//! Every subcommand that prints, with its standard output a pipe nobody reads (`gatebench list |
//! head` once `head` has exited): it ends quietly, killed by SIGPIPE as `cat` or `grep` would be
//! (`src/cli/stdout.rs`), never a panic with exit 101 and a backtrace, and what it was asked to write
//! into files is written.

use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs gatebench in the repository root with `args`, its standard output the write end of a pipe
/// whose read end is already closed: its first write fails with EPIPE.
fn closed_stdout(args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) returns.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just created and are owned here alone.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    let out = Command::new(env!("CARGO_BIN_EXE_gatebench"))
        .current_dir(root())
        .args(args)
        .stdout(Stdio::from(write))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_quiet(args: &[&str]) {
    let (status, stderr) = closed_stdout(args);
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert_eq!(
        status.signal(),
        Some(libc::SIGPIPE),
        "{args:?} ended with {status:?} instead of SIGPIPE: {stderr}"
    );
}

#[test]
fn every_printing_subcommand_ends_quietly_on_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let d = |p: &str| dir.path().join(p).display().to_string();
    let reports = d("reports");
    let filter = "subscription-cancel*";
    // `run` first: its outputs are written before its summary is printed, and the later
    // subcommands read them.
    assert_quiet(&[
        "run",
        "--filter",
        filter,
        "--quiet",
        "--reports-dir",
        &reports,
    ]);
    let run = std::fs::read_dir(&reports)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("results.json").is_file())
        .expect("run wrote its results before printing");
    let run = run.display().to_string();
    let repo = d("repo");
    let baseline = d("baseline.json");
    for args in [
        vec!["list"],
        vec!["list", "--outcome", "detected", "--reports-dir", &reports],
        vec!["check"],
        vec!["mutate", "--list"],
        vec![
            "explain",
            "subscription-cancel-task-state-missing",
            "--reports-dir",
            &reports,
        ],
        vec!["compare", &run, &run],
        vec!["compare", &run, &run, "--format", "markdown"],
        vec!["replay", &run, "--reports-dir", &reports],
        vec!["baseline", &run, "--out", &baseline],
        vec!["materialize", "subscription-cancel", "--out", &repo],
        vec!["gate", &repo],
        vec!["gate", &repo, "--format", "json"],
        vec!["schema"],
        vec!["--help"],
    ] {
        assert_quiet(&args);
    }
}
