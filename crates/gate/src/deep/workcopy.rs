//! A throwaway copy of the work tree the gate judges: every file of the view written below a
//! private temporary folder (tmpfs when the machine has one), which the deep checks run and
//! change; one file at a time can be swapped for another text and put back.

use std::io::Write;
use std::path::Path;

use crate::repo::RepoView;

/// The copy; removed when dropped.
pub struct WorkCopy {
    dir: tempfile::TempDir,
}

impl WorkCopy {
    /// Every file of `repo`'s work tree view (tracked, and untracked unless ignored), copied with
    /// its executable bit. Links and other special files are not in the view, so none is copied.
    pub fn of(repo: &RepoView) -> std::io::Result<WorkCopy> {
        let shm = Path::new("/dev/shm");
        let mut builder = tempfile::Builder::new();
        builder.prefix("gatebench-deep-");
        let dir = if shm.is_dir() {
            builder.tempdir_in(shm)?
        } else {
            builder.tempdir()?
        };
        let copy = WorkCopy { dir };
        let executable: std::collections::BTreeSet<&str> = repo
            .snapshot()
            .map(|files| files.filter(|f| f.executable).map(|f| f.path).collect())
            .unwrap_or_default();
        for path in repo.files() {
            if let Some(bytes) = repo.read(path) {
                copy.write(path, &bytes, executable.contains(path))?;
            }
        }
        Ok(copy)
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `bytes` at the repository path `path` of the copy (replacing what is there).
    pub fn write(&self, path: &str, bytes: &[u8], executable: bool) -> std::io::Result<()> {
        use std::os::unix::fs::OpenOptionsExt;
        if !crate::repo::is_plain_relative(path) {
            return Err(std::io::Error::other(format!(
                "`{path}` is not a plain relative path"
            )));
        }
        let target = self.dir.path().join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        // A file the suite may have replaced by a link is removed first, never written through.
        let _ = std::fs::remove_file(&target);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(if executable { 0o755 } else { 0o644 })
            .open(&target)?;
        f.write_all(bytes)
    }
}
