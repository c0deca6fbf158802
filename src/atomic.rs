//! Files written atomically: a temporary file in the same folder, then a rename, so that a reader
//! never sees half a file.

use std::path::Path;

use serde::Serialize;

use crate::error::{Error, Result};

/// Writes `value` as pretty JSON to `path` atomically: a temporary file in the same folder, then a
/// rename, so that a reader never sees half a file.
pub fn write_json_atomic<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::Internal(format!("serializing {}: {e}", path.display())))?;
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

/// Writes `value` as compact JSON to `path` atomically, serialized straight into the file (no
/// copy of the whole text in memory): for large records (`results.json`).
pub fn write_json_compact_atomic<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    write_atomic_with(path, |w| {
        serde_json::to_writer(&mut *w, value).map_err(std::io::Error::other)?;
        w.write_all(b"\n")
    })
}

/// Writes `path` atomically with what `write` writes into a buffered temporary file.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| Error::io("create a temporary file in", dir, e))?;
    let written = {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, tmp.as_file_mut());
        write(&mut out).and_then(|()| out.flush())
    };
    written.map_err(|e| Error::io("write", tmp.path().to_path_buf(), e))?;
    publish(tmp, path)
}

/// Writes `bytes` to `path` atomically, creating its folder if needed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    write_atomic_into_existing(path, bytes)
}

/// Writes `bytes` to `path` atomically, in a folder that must already exist: a folder removed
/// meanwhile (by an interrupt) is an error, never created again.
pub fn write_atomic_into_existing(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| Error::io("create a temporary file in", dir, e))?;
    std::io::Write::write_all(&mut tmp, bytes)
        .map_err(|e| Error::io("write", tmp.path().to_path_buf(), e))?;
    publish(tmp, path)
}

/// Makes a complete temporary file readable by others and renames it to `path`.
fn publish(tmp: tempfile::NamedTempFile, path: &Path) -> Result<()> {
    // Temporary files are created 0600; reports are artifacts others read (CI uploads, reviewers).
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))
            .map_err(|e| Error::io("set permissions of", tmp.path().to_path_buf(), e))?;
    }
    tmp.persist(path)
        .map_err(|e| Error::io("rename into", path, e.error))?;
    Ok(())
}
