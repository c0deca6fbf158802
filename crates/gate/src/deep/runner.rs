//! Runs of a suite in the work copy, cached by what they depend on: the files of the work tree
//! outside the feature ledgers (a suite reads code and tests, not receipts; so every trial of one
//! project that differs only in its ledger shares its runs), the file swapped in, the command and
//! the tests it is narrowed to, and the toolchain. The cache is the process's: a harness judging
//! a corpus pays each distinct run once. Timeouts and runs that could not start are not cached.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use gatebench_suite::{RunOptions, SuiteCommand, SuiteRun};
use sha2::{Digest, Sha256};

use crate::check::rules::test_rerun;
use crate::deep::workcopy::WorkCopy;
use crate::finding::GateFinding;
use crate::repo::RepoView;

/// The most runs the process keeps; past it the cache starts again empty (a bounded memory).
const CACHE_LIMIT: usize = 20_000;

/// A run's timeout before its command has a baseline: the first run of a command.
pub const FIRST_TIMEOUT: Duration = Duration::from_secs(300);

/// The cache, shared by every gate run of the process.
fn cache() -> &'static Mutex<HashMap<String, Arc<SuiteRun>>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<SuiteRun>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

static EXECUTED: AtomicUsize = AtomicUsize::new(0);
static HITS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Runs executed by gate runs on this thread (a gate run's checks run on its caller's thread).
    static EXECUTED_HERE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// (runs executed, runs answered by the cache) since the process started.
pub fn cached_runs() -> (usize, usize) {
    (
        EXECUTED.load(Ordering::Relaxed),
        HITS.load(Ordering::Relaxed),
    )
}

/// Runs executed by gate runs on the calling thread since it started.
pub fn executed_on_this_thread() -> usize {
    EXECUTED_HERE.with(std::cell::Cell::get)
}

/// One gate run's work copy and what its runs depend on.
pub struct Runner {
    copy: WorkCopy,
    /// Repository path -> git blob id of every file a suite may read (the ledgers left out).
    files: BTreeMap<String, String>,
    /// The original bytes of the view, for putting a swapped file back.
    originals: BTreeMap<String, Vec<u8>>,
    /// A cargo build folder from the process's pool, given back when the runner ends.
    build: Option<tempfile::TempDir>,
}

/// Cargo build folders kept between gate runs: the next trial of the same project (most of a
/// corpus) rebuilds only what changed. One per concurrent gate run; cargo's own lock guards each.
fn build_pool() -> &'static Mutex<Vec<tempfile::TempDir>> {
    static POOL: OnceLock<Mutex<Vec<tempfile::TempDir>>> = OnceLock::new();
    POOL.get_or_init(|| Mutex::new(Vec::new()))
}

impl Drop for Runner {
    fn drop(&mut self) {
        if let Some(build) = self.build.take() {
            build_pool()
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(build);
        }
    }
}

impl Runner {
    /// The work copy of `repo`; `ledger_dirs` (`specs/<feature>/`) are left out of every key.
    pub fn new(repo: &RepoView, ledger_dirs: Vec<String>) -> Result<Runner, Box<GateFinding>> {
        let copy = WorkCopy::of(repo).map_err(|e| {
            Box::new(GateFinding::new(
                test_rerun::NOT_RUNNABLE,
                "the work tree could not be copied for the deep checks",
                format!("Deep mode runs the tests in a throwaway copy of the work tree; it could not be made: {e}."),
            ))
        })?;
        let mut files = BTreeMap::new();
        let mut originals = BTreeMap::new();
        for path in repo.files() {
            let Some(bytes) = repo.read(path) else {
                continue;
            };
            if !ledger_dirs.iter().any(|d| path.starts_with(d.as_str())) {
                files.insert(
                    path.to_owned(),
                    gatebench_gittree::blob_id(&bytes).to_string(),
                );
            }
            originals.insert(path.to_owned(), bytes.into_owned());
        }
        Ok(Runner {
            copy,
            files,
            originals,
            build: None,
        })
    }

    /// The original text of a repository path.
    pub fn original(&self, path: &str) -> Option<&[u8]> {
        self.originals.get(path).map(Vec::as_slice)
    }

    /// `command` run in the copy, with `swap` (a path and the text it holds for this run) in place;
    /// the copy is put back afterwards.
    pub fn run(
        &mut self,
        command: &SuiteCommand,
        swap: Option<(&str, &str)>,
        timeout: Duration,
    ) -> Arc<SuiteRun> {
        let key = self.key(command, swap);
        if let Some(hit) = cache().lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
            HITS.fetch_add(1, Ordering::Relaxed);
            return Arc::clone(hit);
        }
        if let Some((path, text)) = swap {
            if let Err(e) = self.copy.write(path, text.as_bytes(), false) {
                return Arc::new(SuiteRun::not_started(
                    command,
                    format!("{path} could not be swapped in: {e}"),
                ));
            }
        }
        if self.build.is_none() && command.is_cargo() {
            let pooled = build_pool().lock().unwrap_or_else(|p| p.into_inner()).pop();
            self.build = pooled.or_else(|| {
                tempfile::Builder::new()
                    .prefix("gatebench-deep-build-")
                    .tempdir()
                    .ok()
            });
        }
        let options = RunOptions {
            target_dir: self.build.as_ref().map(|b| b.path().to_path_buf()),
        };
        let run = Arc::new(gatebench_suite::run_with(
            self.copy.path(),
            command,
            timeout,
            &options,
        ));
        EXECUTED.fetch_add(1, Ordering::Relaxed);
        EXECUTED_HERE.with(|n| n.set(n.get() + 1));
        if let Some((path, _)) = swap {
            let original = self.originals.get(path).cloned().unwrap_or_default();
            let _ = self.copy.write(path, &original, false);
        }
        if !run.timed_out() && run.record.spawn_error.is_none() {
            let mut cache = cache().lock().unwrap_or_else(|p| p.into_inner());
            if cache.len() >= CACHE_LIMIT {
                cache.clear();
            }
            cache.insert(key, Arc::clone(&run));
        }
        run
    }

    fn key(&self, command: &SuiteCommand, swap: Option<(&str, &str)>) -> String {
        let mut h = Sha256::new();
        h.update(gatebench_suite::toolchain_id(command).as_bytes());
        for arg in &command.argv {
            h.update([0]);
            h.update(arg.as_bytes());
        }
        let swapped = swap.map(|(p, t)| (p, gatebench_gittree::blob_id(t.as_bytes()).to_string()));
        for (path, id) in &self.files {
            let id = match &swapped {
                Some((p, swapped_id)) if p == path => swapped_id,
                _ => id,
            };
            h.update([1]);
            h.update(path.as_bytes());
            h.update([0]);
            h.update(id.as_bytes());
        }
        gatebench_gittree::hex(&h.finalize())
    }
}
