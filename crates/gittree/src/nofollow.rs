//! Files of a repository reached without following a symbolic link: each folder on the way opened
//! relative to the one before with `O_NOFOLLOW`, from a folder the caller trusts. A repository
//! judged is written by others (a verifier, a fixer, a fixture's loop command): a folder of it
//! replaced by a link to somewhere else must not take a write (or a read of what the caller acts
//! on) out of it.
//!
//! Through rustix, as the harness's removal and the gate's view walk folders by descriptor.
//! `openat2` with `RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH` would say the same in one call, but it
//! needs Linux 5.6, and gatebench also runs where Landlock (5.13) is missing.

use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, CWD};
use rustix::io::Errno;

/// The components of `rel`, each a plain name: an absolute path, `..`, `.` or an empty path is
/// refused (the caller builds these paths; a bad one is a bug, reported as an error).
fn names(rel: &Path) -> io::Result<Vec<&OsStr>> {
    let mut out = Vec::new();
    for component in rel.components() {
        match component {
            Component::Normal(name) => out.push(name),
            _ => {
                return Err(io::Error::other(format!(
                    "{} is not a plain relative path",
                    rel.display()
                )))
            }
        }
    }
    if out.is_empty() {
        return Err(io::Error::other("an empty path"));
    }
    Ok(out)
}

fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// Opens `root` itself (a folder of the caller's, which may be reached through links in its own
/// path), then each folder of `dirs` below it without following a link. A component that is a
/// link is `ELOOP`/`ENOTDIR`, turned into an error naming it.
fn open_dirs(root: &Path, dirs: &[&OsStr], create: bool) -> io::Result<OwnedFd> {
    let mut fd = rustix::fs::openat(CWD, root, dir_flags(), Mode::empty())?;
    let mut walked = root.to_path_buf();
    for name in dirs {
        walked.push(name);
        let opened = match rustix::fs::openat(&fd, *name, dir_flags(), Mode::empty()) {
            Err(Errno::NOENT) if create => {
                match rustix::fs::mkdirat(&fd, *name, Mode::from_raw_mode(0o755)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(e.into()),
                }
                rustix::fs::openat(&fd, *name, dir_flags(), Mode::empty())
            }
            other => other,
        };
        fd = opened.map_err(|e| named(&walked, e))?;
    }
    Ok(fd)
}

fn named(path: &Path, e: Errno) -> io::Error {
    match e {
        Errno::LOOP | Errno::NOTDIR => io::Error::other(format!(
            "{} is a symbolic link or not a folder: never followed",
            path.display()
        )),
        e => io::Error::new(
            io::Error::from(e).kind(),
            format!("{}: {e}", path.display()),
        ),
    }
}

/// What [`read`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    Absent,
    /// A regular file's bytes (at most the limit asked for, plus one byte to tell it was longer).
    File(Vec<u8>),
    /// Something else at the path, or on the way to it: a link, a folder, a FIFO, a device.
    Other(String),
}

/// Reads the regular file `rel` below `root` without following a link anywhere below `root` and
/// without blocking (a FIFO is `Other`, never opened for reading), at most `limit + 1` bytes.
pub fn read(root: &Path, rel: &Path, limit: u64) -> io::Result<Found> {
    let names = names(rel)?;
    let (file, dirs) = names.split_last().expect("names is never empty");
    let dir = match open_dirs(root, dirs, false) {
        Ok(dir) => dir,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Found::Absent),
        Err(e) => return Ok(Found::Other(e.to_string())),
    };
    let file = std::ffi::CString::new(file.as_bytes()).map_err(io::Error::other)?;
    read_at(dir.as_fd(), &file, limit)
}

/// Writes `bytes` as the file `rel` below `root`, atomically: a new file created beside it
/// (`O_EXCL | O_NOFOLLOW`, mode `mode`), then renamed over it. The folders on the way are opened
/// without following a link, created when `create_dirs` says so and missing; whatever is at the
/// final name (a file, a link) is replaced, never written through.
pub fn write_atomic(
    root: &Path,
    rel: &Path,
    bytes: &[u8],
    mode: u32,
    create_dirs: bool,
) -> io::Result<()> {
    use std::io::Write;
    let names = names(rel)?;
    let (file, dirs) = names.split_last().expect("names is never empty");
    let dir = open_dirs(root, dirs, create_dirs)?;
    let mut attempt = 0u32;
    let (tmp_name, fd) = loop {
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(file);
        tmp_name.push(format!(".{}.{attempt}.tmp", std::process::id()));
        match rustix::fs::openat(
            &dir,
            tmp_name.as_os_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(mode),
        ) {
            Ok(fd) => break (tmp_name, fd),
            Err(Errno::EXIST) if attempt < 100 => attempt += 1,
            Err(e) => return Err(e.into()),
        }
    };
    let written = (|| {
        // The mode asked for, whatever the umask took from it.
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode))?;
        let mut out = std::fs::File::from(fd);
        out.write_all(bytes)?;
        rustix::fs::renameat(&dir, tmp_name.as_os_str(), &dir, *file)?;
        Ok(())
    })();
    if written.is_err() {
        let _ = rustix::fs::unlinkat(&dir, tmp_name.as_os_str(), AtFlags::empty());
    }
    written
}

/// Removes the file (or link) `rel` below `root`, never following a link on the way; an absent
/// one is no error, a folder is.
pub fn remove_file(root: &Path, rel: &Path) -> io::Result<()> {
    let names = names(rel)?;
    let (file, dirs) = names.split_last().expect("names is never empty");
    let dir = match open_dirs(root, dirs, false) {
        Ok(dir) => dir,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    match rustix::fs::unlinkat(&dir, *file, AtFlags::empty()) {
        Ok(()) | Err(Errno::NOENT) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Every entry below the folder `rel` of `root` that is not a regular file or a folder (a link, a
/// FIFO, a socket, a device), as paths relative to `root`; folders opened without following a
/// link. An absent folder has none; a folder that is a link is one.
pub fn special_entries(root: &Path, rel: &Path) -> io::Result<Vec<String>> {
    let mut found = Vec::new();
    walk(root, rel, &mut |path, _, _, kind| {
        if kind != FileType::RegularFile {
            found.push(path.to_owned());
        }
        Ok(())
    })?;
    Ok(found)
}

/// Calls `visit` with every entry below the folder `rel` of `root` that is not a folder (its path
/// relative to `root`, its folder's descriptor, its name and its kind, never following a link),
/// folders first opened without following one. An absent folder has none; a folder that is a
/// link (or not a folder) is visited as one entry of kind `Symlink` (or what it is).
pub fn walk(root: &Path, rel: &Path, visit: &mut Visit<'_>) -> io::Result<()> {
    let names = names(rel)?;
    let (last, dirs) = names.split_last().expect("names is never empty");
    let parent = match open_dirs(root, dirs, false) {
        Ok(dir) => dir,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let last_c = std::ffi::CString::new(last.as_bytes()).map_err(io::Error::other)?;
    match rustix::fs::openat(&parent, last_c.as_c_str(), dir_flags(), Mode::empty()) {
        Ok(fd) => visit_dir(fd, &rel.to_string_lossy(), visit),
        Err(Errno::NOENT) => Ok(()),
        Err(Errno::LOOP | Errno::NOTDIR) => {
            let stat = rustix::fs::statat(&parent, last_c.as_c_str(), AtFlags::SYMLINK_NOFOLLOW)?;
            visit(
                &rel.to_string_lossy(),
                parent.as_fd(),
                &last_c,
                FileType::from_raw_mode(stat.st_mode),
            )
        }
        Err(e) => Err(e.into()),
    }
}

type Visit<'a> =
    dyn FnMut(&str, std::os::fd::BorrowedFd<'_>, &std::ffi::CStr, FileType) -> io::Result<()> + 'a;

fn visit_dir(fd: OwnedFd, prefix: &str, visit: &mut Visit<'_>) -> io::Result<()> {
    let mut dir = rustix::fs::Dir::new(fd)?;
    let mut children = Vec::new();
    while let Some(entry) = dir.read() {
        let entry = entry?;
        let name = entry.file_name();
        if name == c"." || name == c".." {
            continue;
        }
        children.push((name.to_owned(), entry.file_type()));
    }
    let parent = dir.fd()?;
    for (name, mut kind) in children {
        let path = format!(
            "{prefix}/{}",
            String::from_utf8_lossy(OsStr::from_bytes(name.to_bytes()).as_bytes())
        );
        if kind == FileType::Unknown {
            kind = FileType::from_raw_mode(
                rustix::fs::statat(parent, &*name, AtFlags::SYMLINK_NOFOLLOW)?.st_mode,
            );
        }
        if kind == FileType::Directory {
            let sub = rustix::fs::openat(parent, &*name, dir_flags(), Mode::empty())?;
            visit_dir(sub, &path, visit)?;
        } else {
            visit(&path, parent, &name, kind)?;
        }
    }
    Ok(())
}

/// Reads the regular file `name` of the folder `dir` (never a link, never blocking), at most
/// `limit + 1` bytes; `Other` when it is not a regular file.
pub fn read_at(
    dir: std::os::fd::BorrowedFd<'_>,
    name: &std::ffi::CStr,
    limit: u64,
) -> io::Result<Found> {
    use std::io::Read;
    let fd = match rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok(Found::Absent),
        Err(Errno::LOOP) => return Ok(Found::Other("a symbolic link".into())),
        Err(e) => return Err(e.into()),
    };
    let stat = rustix::fs::fstat(&fd)?;
    let kind = FileType::from_raw_mode(stat.st_mode);
    if kind != FileType::RegularFile {
        return Ok(Found::Other(format!("not a regular file ({kind:?})")));
    }
    let mut bytes = Vec::new();
    std::fs::File::from(fd)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok(Found::File(bytes))
}

/// Whether the descriptor-relative path exists as anything (a link not followed).
pub fn exists(root: &Path, rel: &Path) -> bool {
    let Ok(names) = names(rel) else {
        return false;
    };
    let (file, dirs) = names.split_last().expect("names is never empty");
    open_dirs(root, dirs, false)
        .map(|dir| rustix::fs::statat(dir.as_fd(), *file, AtFlags::SYMLINK_NOFOLLOW).is_ok())
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_through_a_linked_folder_is_refused_and_a_link_at_the_name_is_replaced() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("docs")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("docs/state")).unwrap();
        let err = write_atomic(
            root.path(),
            Path::new("docs/state/x.json"),
            b"{}",
            0o644,
            true,
        )
        .unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);

        // A link at the file's own name is replaced by the file, its target left alone.
        std::fs::write(outside.path().join("target"), "keep").unwrap();
        std::os::unix::fs::symlink(outside.path().join("target"), root.path().join("docs/f"))
            .unwrap();
        write_atomic(root.path(), Path::new("docs/f"), b"new", 0o644, false).unwrap();
        assert_eq!(
            std::fs::read_to_string(outside.path().join("target")).unwrap(),
            "keep"
        );
        assert_eq!(
            std::fs::read_to_string(root.path().join("docs/f")).unwrap(),
            "new"
        );
        assert!(!root.path().join("docs/f").is_symlink());

        // Folders are made where missing.
        write_atomic(root.path(), Path::new("a/b/c"), b"c", 0o600, true).unwrap();
        assert_eq!(std::fs::read(root.path().join("a/b/c")).unwrap(), b"c");
    }

    #[test]
    fn a_read_never_follows_a_link_and_never_opens_a_fifo() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.path().join("l")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("d")).unwrap();
        rustix::fs::mknodat(
            CWD,
            root.path().join("fifo"),
            FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        std::fs::write(root.path().join("f"), "0123456789").unwrap();
        assert!(matches!(
            read(root.path(), Path::new("l"), 10).unwrap(),
            Found::Other(_)
        ));
        assert!(matches!(
            read(root.path(), Path::new("d/secret"), 10).unwrap(),
            Found::Other(_)
        ));
        assert!(matches!(
            read(root.path(), Path::new("fifo"), 10).unwrap(),
            Found::Other(_)
        ));
        assert_eq!(
            read(root.path(), Path::new("f"), 3).unwrap(),
            Found::File(b"0123".to_vec())
        );
        assert_eq!(
            read(root.path(), Path::new("none/f"), 3).unwrap(),
            Found::Absent
        );
        let mut specials = special_entries(root.path().parent().unwrap(), {
            Path::new(root.path().file_name().unwrap())
        })
        .unwrap();
        specials.sort();
        assert_eq!(specials.len(), 3, "{specials:?}");
    }
}
