//! Running a project's test command over its folder, in the sandbox (`room.rs`), and reading its
//! output as per-test results.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gatebench_process::ProcessRecord;
use serde::{Deserialize, Serialize};

use crate::command::SuiteCommand;
use crate::results::{parse, Parsed, TestResult};
use crate::room::{not_started, Room};

/// What a suite run may reuse between runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// cargo's build folder (`CARGO_TARGET_DIR`), made if missing and writable by the command:
    /// one per worker makes a second run of the same project an incremental build. `None`: a
    /// folder in the run's scratch folder, removed after. Not used for other programs.
    pub target_dir: Option<PathBuf>,
}

/// One run of a test command: what the process did, and what its output says of each test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteRun {
    pub record: ProcessRecord,
    pub parsed: Parsed,
}

impl SuiteRun {
    /// The suite passed: the command exited with 0 within its time, and no test failed. A run
    /// whose output named no test can be green: the caller decides whether it expected some.
    pub fn green(&self) -> bool {
        self.record.exit_code == Some(0) && !self.timed_out() && self.failing().is_empty()
    }

    /// The ids of the tests that failed (`TestResult::Failed`, pytest's `ERROR` included). An
    /// unexpected pass (pytest `XPASS`) is not among them: pytest's run passes with one (a
    /// strict xfail that passes is reported `FAILED`, and is), so counting it would call a run
    /// red that its framework calls green.
    pub fn failing(&self) -> Vec<&str> {
        self.parsed
            .with(TestResult::Failed)
            .map(|t| t.id.as_str())
            .collect()
    }

    /// The command was killed at its time limit.
    pub fn timed_out(&self) -> bool {
        self.record.timed_out
    }

    /// A run of `command` that did not start, for `why`.
    pub fn not_started(command: &SuiteCommand, why: String) -> SuiteRun {
        SuiteRun {
            record: not_started(&command.argv, why),
            parsed: Parsed::default(),
        }
    }
}

/// Runs `command` in `dir` under `timeout` ([`run_with`] with default options).
pub fn run(dir: &Path, command: &SuiteCommand, timeout: Duration) -> SuiteRun {
    run_with(dir, command, timeout, &RunOptions::default())
}

/// Runs `command` in `dir`, sandboxed, under `timeout`, and reads its output.
///
/// The command runs in its own PID namespace (nothing it starts outlives it), without network,
/// under Landlock (each where the machine allows it: `gatebench_process::containment`,
/// `network_isolation_available` and `landlock_abi` say which), with a minimal fixed environment: `PATH` (the caller's), `HOME` and `TMPDIR`
/// (a private scratch folder, removed after the run), `LANG=C.UTF-8`,
/// `PYTHONDONTWRITEBYTECODE=1`, `PYTHONHASHSEED=0`, `NO_COLOR=1`, `CI=1`; nothing else is
/// inherited. It may read the system locations and the folders on `PATH`, and read and write
/// `dir` and the scratch folder; nothing else.
///
/// When the program is `cargo`, the toolchain lives outside the system locations: the sandbox
/// may also read `RUSTUP_HOME` (its value, or `$HOME/.rustup`) and, of `CARGO_HOME` (its value,
/// or `$HOME/.cargo`), `bin`, `registry`, `git` and its configuration, not its credentials; both
/// are passed on to the command. Read-only is enough (measured with cargo 1.95: a crate without
/// dependencies, and one whose dependency is in the registry cache, build and test with and
/// without `--offline`; the package lock and last-use database cargo keeps there are refused
/// and it goes on without a word). `CARGO_TARGET_DIR` is the scratch folder's `target`, or
/// `options.target_dir`, writable; `CARGO_TERM_COLOR=never`. The build counts against `timeout`.
///
/// Never fails: a command that could not start has its reason in `record.spawn_error`.
pub fn run_with(
    dir: &Path,
    command: &SuiteCommand,
    timeout: Duration,
    options: &RunOptions,
) -> SuiteRun {
    let room = Room::new(&[dir], command.is_cargo(), options.target_dir.as_deref());
    let record = match room {
        Ok(room) => room.run(&command.argv, dir, timeout),
        Err(e) => not_started(
            &command.argv,
            format!("its scratch folder could not be made: {e}"),
        ),
    };
    let parsed = parse(&record.stdout.text, &record.stderr.text);
    SuiteRun { record, parsed }
}
