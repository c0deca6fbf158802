//! A run's folders on disk: the hidden objects folder its trials write to (locked while the run
//! lives, swept when a killed run left it), the staging folder its outputs are written into and
//! published from by one rename (`rename_noreplace`), the run id reserved, and the reports folder
//! probed before any trial. Each folder an interrupt must remove is registered with
//! `run/interrupt.rs`.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::output::outputs;
use crate::output::store::results::RunResults;
use crate::run::interrupt::{self, Folder, Registration, Stage};

/// The lock file of an objects folder (`.objects-XXXXXX.lock` beside `.objects-XXXXXX`): held
/// (`flock`) by the run writing into the folder, for as long as it runs.
fn objects_lock_of(dir: &Path) -> PathBuf {
    let mut name = dir.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Removes the objects folders under `reports_dir` left by runs that were killed (SIGKILL, a
/// crash: nothing of theirs ran to remove them): a folder whose lock file no process holds. A
/// live run holds its lock, so its folder is never touched; a folder without a lock file (an
/// older gatebench's) is left, and so is a lock file being taken this instant (it is created
/// before its folder, then locked; only a lock taken here is a dead run's). Returns the folders
/// removed.
pub fn remove_stale_objects(reports_dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(reports_dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(stem) = name
            .strip_prefix(".objects-")
            .and_then(|n| n.strip_suffix(".lock"))
        else {
            continue;
        };
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let lock = entry.path();
        let dir = reports_dir.join(format!(".objects-{stem}"));
        if let Some(_held) = crate::repo::workdir::try_lock(&lock) {
            let gone = match std::fs::symlink_metadata(&dir) {
                Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&dir).is_ok(),
                Ok(_) => false,
                Err(_) => true,
            };
            if gone {
                let _ = std::fs::remove_file(&lock);
                if dir != lock {
                    removed.push(dir);
                }
            }
        }
    }
    removed
}

/// An objects folder as the interrupt handler removes it: its lock file first, the folder, then
/// the (still empty) folders created for it, deepest first: a run that fails or is interrupted
/// leaves nothing.
fn objects_folder(dir: &Path, created: &[PathBuf]) -> Folder {
    Folder {
        path: dir.to_path_buf(),
        stage: Stage::Outputs,
        files: vec![objects_lock_of(dir)],
        created: created.to_vec(),
    }
}

/// The hidden folder (`reports/.objects-XXXXXX`) finished trials' objects are written to while a
/// run goes on; moved into the run's staging folder at the end, removed if the run fails. Its
/// lock file (`.objects-XXXXXX.lock`) is held while the run lasts: a run killed before it could
/// remove the folder leaves it unlocked, and the next run removes it (`remove_stale_objects`).
pub(crate) struct ObjectsTemp {
    folder: Option<(PathBuf, Vec<PathBuf>)>,
    /// Held, never read: dropped (unlocked) with the folder's owner.
    _lock: Option<std::fs::File>,
    /// Dropped after `Drop::drop` removed the folder: the handler removes it until then.
    registration: Option<Registration>,
}

impl ObjectsTemp {
    pub(crate) fn create(reports_dir: &Path) -> Result<ObjectsTemp> {
        let created: Vec<PathBuf> = reports_dir
            .ancestors()
            .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
            .map(Path::to_path_buf)
            .collect();
        std::fs::create_dir_all(reports_dir).map_err(|e| Error::io("create", reports_dir, e))?;
        remove_stale_objects(reports_dir);
        // Created and registered with the interrupt handler at once (`interrupt::create`).
        let registered = interrupt::create(|| {
            // The lock file first (a fresh name), locked, and only then its folder: a folder is
            // never seen without a lock held for it by the run that made it.
            loop {
                let lock_path = tempfile::Builder::new()
                    .prefix(".objects-")
                    .suffix(".lock")
                    .tempfile_in(reports_dir)
                    .map_err(|e| Error::io("create a file in", reports_dir, e))?
                    .into_temp_path()
                    .keep()
                    .map_err(|e| Error::io("create a file in", reports_dir, e.error))?;
                let dir = lock_path.with_extension("");
                // Another run sweeping took it the instant it was made (and removes it): another
                // name.
                let Some(lock) = crate::repo::workdir::try_lock(&lock_path) else {
                    continue;
                };
                match std::fs::create_dir(&dir) {
                    Ok(()) => {
                        let folder = objects_folder(&dir, &created);
                        return Ok(((dir, lock), Some(folder)));
                    }
                    Err(e) => {
                        let _ = std::fs::remove_file(&lock_path);
                        return Err(Error::io("create", &dir, e));
                    }
                }
            }
        })?;
        let ((dir, lock), registration) = registered.into_parts();
        Ok(ObjectsTemp {
            folder: Some((dir, created)),
            _lock: Some(lock),
            registration,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        self.folder
            .as_ref()
            .map_or(Path::new(""), |(d, _)| d.as_path())
    }

    /// Renames the folder to `to` (same file system: both under the reports folder).
    pub(crate) fn move_to(mut self, to: &Path) -> Result<()> {
        let (from, created) = self.folder.take().unwrap_or_default();
        let moved = std::fs::rename(&from, to).map_err(|e| Error::io("rename into", to, e));
        self.registration.take();
        if moved.is_err() {
            objects_folder(&from, &created).remove();
        } else {
            let _ = std::fs::remove_file(objects_lock_of(&from));
        }
        moved
    }
}

impl Drop for ObjectsTemp {
    fn drop(&mut self) {
        if let Some((dir, created)) = self.folder.take() {
            objects_folder(&dir, &created).remove();
        }
    }
}

/// A run's outputs are written into a hidden staging folder, then renamed into place. The folder
/// is registered with the interrupt handler (`run/interrupt.rs`), and removed when dropped unless
/// published.
pub struct Staging {
    dir: PathBuf,
    /// Dropped after `Drop::drop` removed the folder, or when it is published.
    registration: Option<Registration>,
}

impl Staging {
    /// Registers `dir`, reserved under the outputs lock ([`interrupt::lock_outputs`]).
    pub fn register(dir: PathBuf) -> Staging {
        let registration = interrupt::register(Folder::at(Stage::Outputs, &dir));
        Staging {
            dir,
            registration: Some(registration),
        }
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Renames the complete staging folder to `dir` (which must not exist).
    pub fn publish(mut self, dir: &Path) -> Result<()> {
        rename_noreplace(&self.dir, dir).map_err(|e| Error::io("rename into", dir, e))?;
        self.registration.take();
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        // Published: the folder is gone from here. Failed: nothing half-written stays.
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Writes a run that is already complete (`merge`, `replay`) under `reports_dir`, all or nothing
/// like `run`: a free id is reserved (and set in `results`), the outputs staged, then renamed.
pub fn write_run(reports_dir: &Path, results: &mut RunResults) -> Result<PathBuf> {
    write_run_with(reports_dir, results, None)
}

/// [`write_run`], and with `views` the per-trial logs (`trials/`) as `run` writes them.
pub fn write_run_with(
    reports_dir: &Path,
    results: &mut RunResults,
    views: Option<&crate::output::store::trial_logs::Views>,
) -> Result<PathBuf> {
    let _lock = interrupt::lock_outputs();
    let (run_id, staging) = reserve_run_dir(reports_dir, &results.run_id)?;
    let staging = Staging::register(staging);
    results.run_id = run_id;
    let dir = reports_dir.join(&results.run_id);
    outputs::write_all_with(staging.path(), results, views)?;
    staging.publish(&dir)?;
    results.objects = Some(crate::output::store::objects::Store::new(
        dir.join(crate::output::store::objects::DIR),
    ));
    Ok(dir)
}

/// `rename(2)` that fails rather than replace an existing (even empty) folder.
pub fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    };
    let (from, to) = (c(from)?, c(to)?);
    // SAFETY: both are valid NUL-terminated paths that outlive the call.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The staging folder of run `id`: hidden (runs are listed by their id, `output/runs.rs`).
fn staging_name(id: &str) -> String {
    format!(".{id}.partial")
}

/// Checks, before any trial runs, that files can be created in `dir`. Folders it had to create
/// for the check are removed again (when still empty): an interrupted run leaves nothing.
pub fn probe_writable(dir: &Path) -> Result<()> {
    let unwritable = |e: std::io::Error| {
        Error::invalid(
            dir,
            format!("the reports folder cannot be written ({e}); nothing was run"),
        )
    };
    let missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
        .collect();
    // Under the outputs lock: the interrupt handler takes it before it exits, so it never ends
    // the process between the probe's creation and its removal.
    let _outputs = interrupt::lock_outputs();
    std::fs::create_dir_all(dir).map_err(unwritable)?;
    let probed = tempfile::Builder::new()
        .prefix(".gatebench-probe")
        .tempfile_in(dir)
        .map(drop)
        .map_err(unwritable);
    for created in missing {
        // Fails harmlessly when something was written there meanwhile.
        let _ = std::fs::remove_dir(created);
    }
    probed
}

/// Reserves the run's name under `reports_dir`: `id` itself, or `id-2`, `id-3`, ... when a run of
/// the same second and process (or a shard of it) already took it. Creating the hidden staging
/// folder `.<id>.partial` is the reservation; the outputs are written there and renamed to
/// `<reports_dir>/<id>` when complete, so concurrent runs never share a folder and no run folder
/// is ever seen half-written. Returns the id and the staging folder.
pub fn reserve_run_dir(reports_dir: &Path, id: &str) -> Result<(String, PathBuf)> {
    std::fs::create_dir_all(reports_dir).map_err(|e| Error::io("create", reports_dir, e))?;
    for n in 1..1000 {
        let candidate = if n == 1 {
            id.to_owned()
        } else {
            format!("{id}-{n}")
        };
        if reports_dir.join(&candidate).exists() {
            continue;
        }
        let staging = reports_dir.join(staging_name(&candidate));
        match std::fs::create_dir(&staging) {
            Ok(()) => return Ok((candidate, staging)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io("create", staging, e)),
        }
    }
    Err(Error::Internal(format!(
        "no free run folder name for {id} under {}",
        reports_dir.display()
    )))
}
