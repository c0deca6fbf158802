//! Where materialized repositories live: one temporary root per run under a folder the user can
//! choose (by default `/dev/shm` when it exists, else the system temp dir: never the project, so
//! a verifier cannot find the fixtures beside its repository), removed at the end and on Ctrl-C
//! (the run registers it with `run/interrupt.rs`), unless the user asked to keep it. A root holds a lock file locked (flock) for the run's life;
//! the next run removes the roots of runs that died (their lock is free). Trial folders are
//! named by opaque case ids, never by fixture ids.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// The lock file inside every work root, held (flock, exclusive) while its run lives.
const LOCK_FILE: &str = ".lock";
/// The prefix of every work root's folder name.
const PREFIX: &str = "gatebench-";

/// The opaque id of one trial: the first 12 hex digits of sha256 over the scenario name, the
/// fixture id and the trial index. A pipeline sees this (in `GATEBENCH_CASE` and folder names)
/// instead of the fixture id, which would name the answer; `results.json` maps it back.
pub fn case_id(scenario: &str, fixture_id: &str, trial: u32) -> String {
    let digest = Sha256::digest(format!("{scenario}\0{fixture_id}\0{trial}").as_bytes());
    gatebench_gittree::hex(&digest[..6])
}

/// The default parent of work roots: `/dev/shm` (tmpfs) when it is a writable folder, else the
/// system temp dir.
pub fn default_parent() -> PathBuf {
    let shm = Path::new("/dev/shm");
    let writable = shm.is_dir()
        && tempfile::Builder::new()
            .prefix(".gatebench-probe-")
            .tempfile_in(shm)
            .is_ok();
    if writable {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

/// Takes the lock of `dir` without waiting; `None` when another process holds it.
pub(crate) fn try_lock(lock_path: &Path) -> Option<std::fs::File> {
    use std::os::fd::AsRawFd;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path)
        .ok()?;
    // SAFETY: flock on a descriptor we own.
    let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
    locked.then_some(file)
}

/// Removes the work roots under `parent` left by runs that died (killed before they could clean
/// up): a root whose lock file nobody holds. A live run's root is locked and never touched; a
/// root without a lock file (an older gatebench, or one being created this instant) is left.
/// Returns the roots removed.
pub fn remove_dead_roots(parent: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let is_root = entry.file_name().to_string_lossy().starts_with(PREFIX)
            && entry.file_type().is_ok_and(|t| t.is_dir());
        let lock = path.join(LOCK_FILE);
        if !is_root || !lock.is_file() {
            continue;
        }
        if let Some(_held) = try_lock(&lock) {
            if std::fs::remove_dir_all(&path).is_ok() {
                removed.push(path);
            }
        }
    }
    removed
}

/// The temporary folder of one run.
#[derive(Debug)]
pub struct WorkRoot {
    path: PathBuf,
    keep: bool,
    /// Held while the run lives: the next run leaves a locked root alone.
    _lock: Option<std::fs::File>,
}

impl WorkRoot {
    /// Creates `gatebench-XXXXXX` under `parent` ([`default_parent`] when `None`), after removing
    /// the roots of dead runs there. A run creates its root through `run::interrupt::create`, so
    /// that an interrupt removes it.
    pub fn create(parent: Option<&Path>, keep: bool) -> Result<WorkRoot> {
        let parent = parent.map(Path::to_path_buf).unwrap_or_else(default_parent);
        std::fs::create_dir_all(&parent)
            .map_err(|e| Error::io("create the work dir", &parent, e))?;
        remove_dead_roots(&parent);
        let dir = tempfile::Builder::new()
            .prefix(PREFIX)
            .tempdir_in(&parent)
            .map_err(|e| Error::io("create a temporary folder in", &parent, e))?;
        let path = dir.keep();
        // A kept root gets no lock: it must survive the next run.
        let lock = if keep {
            None
        } else {
            // Locked under another name, then renamed into place: another run's sweep for dead
            // roots (`remove_dead_roots`) that sees the lock file sees it held. Locked where it
            // is, the sweep could take the lock between its creation and this run's `flock`,
            // and remove the new root (two runs starting together).
            let pending = path.join(".lock-pending");
            let lock = try_lock(&pending);
            let placed = lock.is_some() && std::fs::rename(&pending, path.join(LOCK_FILE)).is_ok();
            if !placed {
                let _ = std::fs::remove_dir_all(&path);
                return Err(Error::io(
                    "lock",
                    path.join(LOCK_FILE),
                    std::io::Error::other("the new work root could not be locked"),
                ));
            }
            lock
        };
        Ok(WorkRoot {
            path,
            keep,
            _lock: lock,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn keep(&self) -> bool {
        self.keep
    }

    /// The folder of one trial, named by its case id ([`case_id`]).
    pub fn trial_dir(&self, case_id: &str) -> PathBuf {
        self.path.join(case_id)
    }
}

impl Drop for WorkRoot {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    #[test]
    fn a_dead_runs_root_is_removed_and_a_live_ones_is_not() {
        let parent = tempfile::tempdir().unwrap();
        let live = WorkRoot::create(Some(parent.path()), false).unwrap();
        std::fs::write(live.path().join("file"), "x").unwrap();
        let dead = parent.path().join("gatebench-dead01");
        std::fs::create_dir_all(dead.join("repo")).unwrap();
        std::fs::write(dead.join(LOCK_FILE), "").unwrap();
        let unlocked_other = parent.path().join("something-else");
        std::fs::create_dir_all(&unlocked_other).unwrap();
        let removed = remove_dead_roots(parent.path());
        assert_eq!(removed, vec![dead.clone()]);
        assert!(!dead.exists());
        assert!(
            live.path().join("file").exists(),
            "a live run's root was touched"
        );
        assert!(unlocked_other.exists());
        // A second run's root creation cleans up too, and still leaves the live one.
        let second = WorkRoot::create(Some(parent.path()), false).unwrap();
        assert!(live.path().join("file").exists());
        drop(second);
    }

    #[test]
    fn runs_starting_together_never_remove_or_fail_each_others_roots() {
        let parent = tempfile::tempdir().unwrap();
        let parent = parent.path();
        let done = AtomicBool::new(false);
        std::thread::scope(|s| {
            // One thread sweeps for dead roots without pause while the others create roots.
            let sweeper = s.spawn(|| {
                while !done.load(Ordering::Relaxed) {
                    remove_dead_roots(parent);
                }
            });
            // Each creator stops at its first failure; the sweeper stops when they all have.
            let failures: Vec<String> = (0..3)
                .map(|_| {
                    s.spawn(|| {
                        for _ in 0..100 {
                            match WorkRoot::create(Some(parent), false) {
                                Ok(root) if root.path().join(LOCK_FILE).is_file() => {}
                                Ok(root) => {
                                    return Some(format!("{} lost its lock", root.path().display()))
                                }
                                Err(e) => return Some(e.to_string()),
                            }
                        }
                        None
                    })
                })
                .collect::<Vec<_>>()
                .into_iter()
                .filter_map(|c| c.join().unwrap())
                .collect();
            done.store(true, Ordering::Relaxed);
            sweeper.join().unwrap();
            assert!(failures.is_empty(), "{failures:?}");
        });
    }

    #[test]
    fn case_ids_are_opaque_stable_and_distinct() {
        let a = case_id("default", "plan-rollback-missing", 0);
        assert_eq!(a, case_id("default", "plan-rollback-missing", 0));
        assert_ne!(a, case_id("default", "plan-rollback-missing", 1));
        assert_ne!(a, case_id("other", "plan-rollback-missing", 0));
        assert_eq!(a.len(), 12);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
    }
}
