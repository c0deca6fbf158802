//! Cleanup on Ctrl-C (SIGINT, SIGTERM, SIGHUP), in one place: a run registers each folder an
//! interrupt must remove (the work root of temporary repositories, the hidden objects folder,
//! a run's or a matrix's staging folder) and marks each trial in flight; on a signal,
//! [`on_signal`] stops new trials, kills the verifiers' process groups, waits (bounded) for the
//! trials writing now, removes every registered folder and exits with code 130. Outputs are
//! written and published under one lock ([`lock_outputs`]) the handler takes too, so an interrupt
//! finds either a complete run folder or a staging folder it removes, never half a run.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::exit_code;

/// Set by the handler before it removes anything: no trial starts and no folder is created
/// through [`create`] after it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// Trials writing into the work root now ([`begin_trial`]).
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
/// Held while outputs are written and published, and by the handler from its removal of the
/// outputs' folders until the process exits.
static OUTPUTS: Mutex<()> = Mutex::new(());
/// Every folder the handler removes, by registration number.
static FOLDERS: Mutex<Vec<(u64, Folder)>> = Mutex::new(Vec::new());
static NEXT: AtomicU64 = AtomicU64::new(0);
/// Whether the handler has removed everything, and the main thread's wait for it.
static CLEANED: Mutex<bool> = Mutex::new(false);
static CLEANED_CHANGED: Condvar = Condvar::new();

/// How long the handler waits for the trials writing into the work root to finish (a trial
/// writing while its folder is removed would leave files behind).
const GRACE: Duration = Duration::from_secs(5);

/// When the handler removes a folder: a work root before it takes the outputs lock (the trials
/// are stopped), an output folder under it (none is being published then).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    WorkRoot,
    Outputs,
}

/// A folder the handler removes, with what goes with it: files beside it (a lock file) and the
/// folders created for it, removed (when empty) after it, deepest first.
#[derive(Debug, Clone)]
pub struct Folder {
    pub path: PathBuf,
    pub stage: Stage,
    pub files: Vec<PathBuf>,
    pub created: Vec<PathBuf>,
}

impl Folder {
    /// Just the folder, removed at `stage`.
    pub fn at(stage: Stage, path: &Path) -> Folder {
        Folder {
            path: path.to_path_buf(),
            stage,
            files: Vec::new(),
            created: Vec::new(),
        }
    }

    /// Removes the folder and what goes with it, trying again for up to a second while it is not
    /// yet gone: a process killed an instant ago, or a trial past its grace, may still add a file
    /// while the folder is removed (`remove_dir_all` then fails with the folder not empty).
    pub fn remove(&self) {
        for file in &self.files {
            let _ = std::fs::remove_file(file);
        }
        for _ in 0..100 {
            if std::fs::remove_dir_all(&self.path).is_ok() || !self.path.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        for dir in &self.created {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// A folder registered with the handler until this is dropped.
#[derive(Debug)]
pub struct Registration(u64);

impl Drop for Registration {
    fn drop(&mut self) {
        folders().retain(|(n, _)| *n != self.0);
    }
}

/// A value holding a folder the handler removes, and the folder's registration. The value is
/// dropped first (its own `Drop` removes the folder), then the registration: no moment when the
/// folder exists and the handler would not remove it.
#[derive(Debug)]
pub struct Registered<T> {
    value: T,
    registration: Option<Registration>,
}

impl<T> Registered<T> {
    /// The value and its registration apart, for a value that holds the registration itself
    /// (and drops it after removing its folder).
    pub fn into_parts(self) -> (T, Option<Registration>) {
        (self.value, self.registration)
    }
}

impl<T> std::ops::Deref for Registered<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

fn folders() -> MutexGuard<'static, Vec<(u64, Folder)>> {
    FOLDERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `make`, which makes what holds a folder the handler must remove (`None`: nothing to
/// remove, such as a work root kept with `--keep`), and registers that folder, all under the
/// registry's lock and after checking for an interrupt (the handler sets the flag before it takes
/// the lock): the handler either removes the folder or runs before it exists, never between its
/// creation and its registration. After an interrupt, `Error::Interrupted` and nothing created.
pub fn create<T>(make: impl FnOnce() -> Result<(T, Option<Folder>)>) -> Result<Registered<T>> {
    let mut registry = folders();
    if interrupted() {
        return Err(Error::Interrupted);
    }
    let (value, folder) = make()?;
    Ok(Registered {
        value,
        registration: folder.map(|folder| push(&mut registry, folder)),
    })
}

/// Registers a folder that already exists: a staging folder reserved under the outputs lock
/// ([`lock_outputs`]), after the caller checked for an interrupt under it. Never refused: a
/// handler that started since is still before its removal of output folders (it waits for the
/// lock), so it removes this one.
pub fn register(folder: Folder) -> Registration {
    push(&mut folders(), folder)
}

fn push(registry: &mut Vec<(u64, Folder)>, folder: Folder) -> Registration {
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    registry.push((n, folder));
    Registration(n)
}

/// Whether the run was interrupted.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Held while a trial writes into the work root; see [`begin_trial`].
#[derive(Debug)]
pub struct TrialGuard(());

impl Drop for TrialGuard {
    fn drop(&mut self) {
        IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Marks a trial as started, or returns `None` once the run was interrupted: no trial may start
/// writing into a root that the handler is about to remove.
pub fn begin_trial() -> Option<TrialGuard> {
    IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
    let guard = TrialGuard(());
    (!interrupted()).then_some(guard)
}

/// Takes the outputs lock, held while a run's outputs are written and published: the handler
/// takes it too, so an interrupt waits for a complete run folder or removes the staging one.
pub fn lock_outputs() -> MutexGuard<'static, ()> {
    OUTPUTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Installs [`on_signal`] as the handler of SIGINT, SIGTERM and SIGHUP (once a process).
pub fn install() {
    let _ = ctrlc::set_handler(on_signal);
}

/// What a signal does: new trials stopped, the verifiers' process groups killed, the trials
/// writing now given [`GRACE`] to finish, the work roots removed; then, under the outputs lock
/// (held until the process exits, so no output is written after), every output folder in
/// progress removed. Ends the process with exit code 130.
pub fn on_signal() {
    gatebench_process::kill_live_groups();
    INTERRUPTED.store(true, Ordering::SeqCst);
    let start = Instant::now();
    while IN_FLIGHT.load(Ordering::SeqCst) > 0 && start.elapsed() < GRACE {
        std::thread::sleep(Duration::from_millis(5));
    }
    remove(Stage::WorkRoot);
    let _outputs = lock_outputs();
    remove(Stage::Outputs);
    {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "\ninterrupted: temporary repositories removed"
        );
    }
    *CLEANED.lock().unwrap_or_else(|e| e.into_inner()) = true;
    CLEANED_CHANGED.notify_all();
    std::process::exit(exit_code::INTERRUPTED);
}

/// Removes the registered folders of `stage`, leaving them registered (the process is ending).
fn remove(stage: Stage) {
    for (_, folder) in folders().iter().filter(|(_, f)| f.stage == stage) {
        folder.remove();
    }
}

/// Waits, at most `limit`, until the handler has removed everything (it then ends the process):
/// for the main thread, which sees the run stop with `Error::Interrupted` while the handler is
/// still removing folders and must not end the process before it has.
pub fn wait_for_cleanup(limit: Duration) {
    let cleaned = CLEANED.lock().unwrap_or_else(|e| e.into_inner());
    let _ = CLEANED_CHANGED.wait_timeout_while(cleaned, limit, |done| !*done);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registered(path: &Path) -> bool {
        folders().iter().any(|(_, f)| f.path == path)
    }

    #[test]
    fn a_folder_is_registered_until_its_holder_is_dropped() {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("root");
        let held = create(|| {
            std::fs::create_dir(&dir).unwrap();
            Ok(("held", Some(Folder::at(Stage::WorkRoot, &dir))))
        })
        .unwrap();
        assert_eq!(*held, "held");
        assert!(registered(&dir));
        drop(held);
        assert!(!registered(&dir));
        let kept = create(|| Ok(((), None))).unwrap();
        let staging = register(Folder::at(Stage::Outputs, &dir));
        assert!(registered(&dir));
        drop((kept, staging));
        assert!(!registered(&dir));
    }

    #[test]
    fn removing_a_folder_removes_its_files_and_the_folders_made_for_it() {
        let parent = tempfile::tempdir().unwrap();
        let made = parent.path().join("reports");
        let dir = made.join(".objects-x");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/file"), "x").unwrap();
        let lock = made.join(".objects-x.lock");
        std::fs::write(&lock, "").unwrap();
        let folder = Folder {
            path: dir.clone(),
            stage: Stage::Outputs,
            files: vec![lock.clone()],
            created: vec![made.clone()],
        };
        folder.remove();
        assert!(!lock.exists() && !dir.exists() && !made.exists());
        // Gone already: nothing to do, nothing waited for.
        let start = Instant::now();
        folder.remove();
        assert!(start.elapsed() < Duration::from_millis(500));
    }
}
