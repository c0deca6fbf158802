//! Where materialized repositories live: one temporary root per run under a folder the user can
//! choose (tmpfs makes materialization several times faster), removed at the end and on Ctrl-C,
//! unless the user asked to keep it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

fn live_roots() -> &'static Mutex<Vec<PathBuf>> {
    static ROOTS: OnceLock<Mutex<Vec<PathBuf>>> = OnceLock::new();
    ROOTS.get_or_init(|| Mutex::new(Vec::new()))
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

/// Held while a trial writes into the work root; see [`begin_trial`].
#[derive(Debug)]
pub struct TrialGuard(());

impl Drop for TrialGuard {
    fn drop(&mut self) {
        IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Marks a trial as started, or returns `None` once the run was interrupted: no trial may start
/// writing into a root that the interrupt handler is about to remove.
pub fn begin_trial() -> Option<TrialGuard> {
    IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
    let guard = TrialGuard(());
    (!INTERRUPTED.load(Ordering::SeqCst)).then_some(guard)
}

/// Whether the run was interrupted.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Called by the Ctrl-C handler: stops new trials, waits up to `grace` for the ones writing now to
/// finish (a trial writing while its folder is removed would leave files behind), then removes
/// every root still registered.
pub fn interrupt_and_remove_roots(grace: Duration) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    let start = Instant::now();
    while IN_FLIGHT.load(Ordering::SeqCst) > 0 && start.elapsed() < grace {
        std::thread::sleep(Duration::from_millis(5));
    }
    if let Ok(roots) = live_roots().lock() {
        for root in roots.iter() {
            let _ = std::fs::remove_dir_all(root);
        }
    }
}

/// The temporary folder of one run.
#[derive(Debug)]
pub struct WorkRoot {
    path: PathBuf,
    keep: bool,
}

impl WorkRoot {
    /// Creates `gatebench-XXXXXX` under `parent` (the system temp dir when `None`).
    pub fn create(parent: Option<&Path>, keep: bool) -> Result<WorkRoot> {
        let parent = parent
            .map(Path::to_path_buf)
            .unwrap_or_else(std::env::temp_dir);
        std::fs::create_dir_all(&parent)
            .map_err(|e| Error::io("create the work dir", &parent, e))?;
        let dir = tempfile::Builder::new()
            .prefix("gatebench-")
            .tempdir_in(&parent)
            .map_err(|e| Error::io("create a temporary folder in", &parent, e))?;
        let path = dir.keep();
        if !keep {
            live_roots()
                .lock()
                .map_err(|_| Error::Internal("work root registry poisoned".into()))?
                .push(path.clone());
        }
        Ok(WorkRoot { path, keep })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn keep(&self) -> bool {
        self.keep
    }

    /// The folder for one trial of one fixture.
    pub fn trial_dir(&self, fixture_id: &str, trial: u32) -> PathBuf {
        self.path.join(format!("{fixture_id}.t{trial}"))
    }
}

impl Drop for WorkRoot {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.path);
            if let Ok(mut roots) = live_roots().lock() {
                roots.retain(|r| r != &self.path);
            }
        }
    }
}
