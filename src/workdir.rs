//! Where materialized repositories live: one temporary root per run under a folder the user can
//! choose (tmpfs makes materialization several times faster), removed at the end and on Ctrl-C,
//! unless the user asked to keep it.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::error::{Error, Result};

fn live_roots() -> &'static Mutex<Vec<PathBuf>> {
    static ROOTS: OnceLock<Mutex<Vec<PathBuf>>> = OnceLock::new();
    ROOTS.get_or_init(|| Mutex::new(Vec::new()))
}

/// Removes every root still registered. Called by the Ctrl-C handler before the process exits.
pub fn remove_live_roots() {
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
