//! A golden's test suite run over a file tree, through `gatebench-suite` (the sandbox every
//! untrusted command goes through), and a cache of what each run observed, keyed by content:
//! the tree, the command and the toolchain it runs on. A run whose key is cached executes nothing;
//! timeouts and runs that could not start are never cached (load or a missing tool may be gone
//! next time), as in the external pipelines' result cache.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use gatebench_suite::{RunOptions, SuiteCommand, TestResult};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::atomic;
use crate::corpus::Files;
use crate::mutate::semantic::candidate::tree_of;

/// Bumped when an entry written before would be misread.
const FORMAT: u32 = 2;

/// What one run of a suite showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observed {
    /// The git tree id of the files it ran on.
    pub tree: String,
    pub command: Vec<String>,
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    /// The project did not build (Rust), so no test ran.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub build_failed: bool,
    /// Why the command could not start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spawn_error: Option<String>,
    /// Tests that failed, by the id the framework gives.
    pub failing: Vec<String>,
    pub passed: Vec<String>,
    /// Collected and not run, or run with a result that does not count: skipped, xfail (failed or
    /// passed), todo.
    pub not_run: Vec<String>,
    /// Not part of the ground truth (it varies, and the record leaves it out): what the run cost.
    #[serde(default)]
    pub duration_ms: u64,
}

impl Observed {
    /// The suite passed: exit 0, in time, no test failing.
    pub fn green(&self) -> bool {
        self.exit_code == Some(0)
            && !self.timed_out
            && self.failing.is_empty()
            && self.spawn_error.is_none()
    }

    /// The suite ran to its end and failed because tests failed (not a timeout, a build failure or
    /// a command that could not start).
    pub fn killed(&self) -> bool {
        !self.timed_out
            && !self.build_failed
            && self.spawn_error.is_none()
            && self.exit_code.is_some_and(|c| c != 0)
            && !self.failing.is_empty()
    }

    /// One line: the exit, and the failing tests.
    pub fn summary(&self) -> String {
        if self.timed_out {
            return "timed out".into();
        }
        if let Some(e) = &self.spawn_error {
            return format!("could not start: {e}");
        }
        if self.build_failed {
            return "did not build".into();
        }
        let code = self
            .exit_code
            .map_or("no exit code".into(), |c| format!("exit {c}"));
        if self.failing.is_empty() {
            format!("{code}, {} passed, none failing", self.passed.len())
        } else {
            format!("{code}, failing: {}", self.failing.join(", "))
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Entry {
    format: u32,
    key: String,
    observed: Observed,
}

/// Runs suites, through the cache when it has a folder.
pub struct Runs {
    cache: Option<PathBuf>,
    /// Where work trees are written (tmpfs when the machine has one).
    scratch: PathBuf,
    /// Build folders kept between runs (one per worker), so a Rust mutant rebuilds incrementally.
    build_folders: Mutex<Vec<tempfile::TempDir>>,
    /// Runs that executed a command.
    pub executed: AtomicUsize,
    /// Runs answered by the cache.
    pub cached: AtomicUsize,
    /// The executed commands' own time, summed.
    pub command_ms: AtomicU64,
}

impl Runs {
    /// Runs whose results are cached in `cache` (`None`: nothing is read or written).
    pub fn new(cache: Option<PathBuf>) -> Runs {
        let shm = Path::new("/dev/shm");
        let scratch = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        Runs {
            cache,
            scratch,
            build_folders: Mutex::new(Vec::new()),
            executed: AtomicUsize::new(0),
            cached: AtomicUsize::new(0),
            command_ms: AtomicU64::new(0),
        }
    }

    /// The suite `command` over `files`, killed at `timeout`.
    pub fn run(
        &self,
        files: &Files,
        command: &SuiteCommand,
        toolchain: &str,
        timeout: Duration,
    ) -> Observed {
        let tree = tree_of(files);
        let key = key(&tree, &command.argv, toolchain);
        if let Some(hit) = self.lookup(&key) {
            self.cached.fetch_add(1, Ordering::Relaxed);
            return hit;
        }
        let observed = self.execute(files, &tree, command, timeout);
        self.executed.fetch_add(1, Ordering::Relaxed);
        self.command_ms
            .fetch_add(observed.duration_ms, Ordering::Relaxed);
        if !observed.timed_out && observed.spawn_error.is_none() {
            self.store(&key, &observed);
        }
        observed
    }

    fn execute(
        &self,
        files: &Files,
        tree: &str,
        command: &SuiteCommand,
        timeout: Duration,
    ) -> Observed {
        let failed = |why: String| Observed {
            tree: tree.to_owned(),
            command: command.argv.clone(),
            exit_code: None,
            timed_out: false,
            build_failed: false,
            spawn_error: Some(why),
            failing: Vec::new(),
            passed: Vec::new(),
            not_run: Vec::new(),
            duration_ms: 0,
        };
        let dir = match tempfile::Builder::new()
            .prefix("gatebench-suite-")
            .tempdir_in(&self.scratch)
        {
            Ok(d) => d,
            Err(e) => return failed(format!("no scratch folder: {e}")),
        };
        if let Err(e) = write_tree(dir.path(), files) {
            return failed(format!("the tree could not be written: {e}"));
        }
        let build = self.take_build_folder();
        let options = RunOptions {
            target_dir: build.as_ref().map(|b| b.path().to_path_buf()),
        };
        let run = gatebench_suite::run_with(dir.path(), command, timeout, &options);
        if let Some(b) = build {
            self.build_folders
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(b);
        }
        let mut observed = Observed {
            tree: tree.to_owned(),
            command: command.argv.clone(),
            exit_code: run.record.exit_code,
            timed_out: run.record.timed_out,
            build_failed: run.parsed.build_failed,
            spawn_error: run.record.spawn_error.clone(),
            failing: Vec::new(),
            passed: Vec::new(),
            not_run: Vec::new(),
            duration_ms: run.record.duration_ms,
        };
        for t in &run.parsed.tests {
            let id = match &t.target {
                Some(target) => format!("{target}::{}", t.id),
                None => t.id.clone(),
            };
            // An xfail test that passed (XPASS) fails nothing (its suite is green) and is no
            // pass either: its failure would not have counted.
            match t.result {
                TestResult::Passed => observed.passed.push(id),
                TestResult::Failed => observed.failing.push(id),
                TestResult::Skipped
                | TestResult::ExpectedFailure
                | TestResult::UnexpectedPass
                | TestResult::Todo => observed.not_run.push(id),
            }
        }
        for list in [
            &mut observed.failing,
            &mut observed.passed,
            &mut observed.not_run,
        ] {
            list.sort();
            list.dedup();
        }
        observed
    }

    /// A build folder from the pool, or a new one (`None` if none can be made: the suite then
    /// builds in its own scratch folder).
    fn take_build_folder(&self) -> Option<tempfile::TempDir> {
        let pooled = self
            .build_folders
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop();
        pooled.or_else(|| {
            tempfile::Builder::new()
                .prefix("gatebench-build-")
                .tempdir_in(&self.scratch)
                .ok()
        })
    }

    fn lookup(&self, key: &str) -> Option<Observed> {
        let path = self.cache.as_ref()?.join(format!("{key}.json"));
        let bytes = crate::input::read(&path, 1 << 20, crate::input::Links::Refuse).ok()?;
        let entry: Entry = serde_json::from_slice(&bytes).ok()?;
        (entry.format == FORMAT && entry.key == key).then_some(entry.observed)
    }

    fn store(&self, key: &str, observed: &Observed) {
        let Some(dir) = &self.cache else { return };
        let entry = Entry {
            format: FORMAT,
            key: key.to_owned(),
            observed: observed.clone(),
        };
        // A cache that cannot be written only costs a re-run.
        let _ = std::fs::create_dir_all(dir)
            .map_err(|e| e.to_string())
            .and_then(|()| {
                atomic::write_json_compact_atomic(&dir.join(format!("{key}.json")), &entry)
                    .map_err(|e| e.to_string())
            });
    }
}

/// The cache key of a run.
fn key(tree: &str, argv: &[String], toolchain: &str) -> String {
    let mut h = Sha256::new();
    h.update(format!("gatebench-suite-run {FORMAT}\n{tree}\n{toolchain}\n").as_bytes());
    for arg in argv {
        h.update(arg.as_bytes());
        h.update([0]);
    }
    gatebench_gittree::hex(&h.finalize())
}

/// Writes `files` below `dir`; a file that starts with `#!` is made executable.
pub fn write_tree(dir: &Path, files: &Files) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    for (path, content) in files {
        crate::corpus::model::paths::check_repo_path(path).map_err(std::io::Error::other)?;
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mode = if content.starts_with(b"#!") {
            0o755
        } else {
            0o644
        };
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&target)?;
        f.write_all(content)?;
    }
    Ok(())
}
