//! Reading a file gatebench did not write (a pipeline's report, a fixer's cost file, a fixture's
//! files, a scenario, a results file, an imported repository's work tree): every such file is read
//! through this one function, the same way. Opened without blocking (a FIFO put at the path would
//! otherwise block the open forever) and without becoming the controlling terminal; its kind and
//! size checked with fstat on the open descriptor before a byte is read (a device such as
//! `/dev/zero` is refused, never read until memory runs out); read up to a bound; and, where the
//! path lies in a folder others could write to, no symbolic link followed on the way
//! ([`read_beneath`]).

use std::ffi::OsStr;
use std::fmt;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::{Component, Path};

use rustix::fs::{FileType, Mode, OFlags, CWD};

/// Whether the last component of a path may be a symbolic link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Followed: a path the user gave (a scenario on the command line may well be a link).
    Follow,
    /// Refused: a path in a folder a pipeline or fixer could write to.
    Refuse,
}

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// Nothing at the path.
    Missing,
    /// The path (or, for [`read_beneath`], a folder on the way) is a symbolic link.
    Link,
    /// The path is not a regular file: what it is.
    NotRegular(&'static str),
    /// The file holds more than the limit: its size as fstat gave it (it may have grown since).
    TooLarge { size: u64, limit: u64 },
    /// The open or a read failed.
    Io(std::io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Missing => write!(f, "the file does not exist"),
            ReadError::Link => write!(f, "the path is a symbolic link, which is not followed"),
            ReadError::NotRegular(kind) => write!(f, "{kind}: only regular files are read"),
            ReadError::TooLarge { size, limit } => {
                write!(f, "the file is {size} bytes; the limit is {limit} bytes")
            }
            ReadError::Io(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                write!(f, "the file cannot be read: permission denied")
            }
            ReadError::Io(e) => write!(f, "the file cannot be read: {e}"),
        }
    }
}

impl From<rustix::io::Errno> for ReadError {
    fn from(e: rustix::io::Errno) -> ReadError {
        match e {
            rustix::io::Errno::NOENT => ReadError::Missing,
            // O_NOFOLLOW on a link gives ELOOP; O_DIRECTORY|O_NOFOLLOW on a link gives ENOTDIR.
            rustix::io::Errno::LOOP => ReadError::Link,
            e => ReadError::Io(e.into()),
        }
    }
}

const FILE_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY)
    .union(OFlags::CLOEXEC);

/// Reads at most `limit` bytes of the regular file at `path`; `links` says whether the path itself
/// may be a symbolic link (folders on the way are resolved as usual: use [`read_beneath`] when they
/// could have been replaced by links too).
pub fn read(path: &Path, limit: u64, links: Links) -> Result<Vec<u8>, ReadError> {
    let flags = match links {
        Links::Follow => FILE_FLAGS,
        Links::Refuse => FILE_FLAGS | OFlags::NOFOLLOW,
    };
    let fd = rustix::fs::openat(CWD, path, flags, Mode::empty())?;
    read_open(fd, limit)
}

/// Reads at most `limit` bytes of the regular file `rel` below the folder `root` (which is trusted
/// and resolved as usual), following no symbolic link below `root`: each folder on the way is
/// opened from the one before it with `O_NOFOLLOW`, then the file. For a file in a folder a
/// pipeline or fixer may write to (`root` is then a folder they cannot replace): a link they put
/// anywhere on the way is refused, never followed out of the sandbox.
pub fn read_beneath(root: &Path, rel: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let mut names: Vec<&OsStr> = Vec::new();
    for component in rel.components() {
        match component {
            Component::Normal(name) => names.push(name),
            Component::CurDir => {}
            _ => {
                return Err(ReadError::Io(std::io::Error::other(
                    "the path leaves its folder",
                )))
            }
        }
    }
    let Some((file, folders)) = names.split_last() else {
        return Err(ReadError::NotRegular("a folder"));
    };
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut dir: OwnedFd = rustix::fs::openat(CWD, root, dir_flags, Mode::empty())?;
    for name in folders {
        dir = rustix::fs::openat(&dir, *name, dir_flags | OFlags::NOFOLLOW, Mode::empty())
            .map_err(|e| match e {
                // A link where a folder is expected, opened with O_DIRECTORY|O_NOFOLLOW.
                rustix::io::Errno::NOTDIR | rustix::io::Errno::LOOP => {
                    match rustix::fs::statat(&dir, *name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
                        Ok(s) if FileType::from_raw_mode(s.st_mode) == FileType::Symlink => {
                            ReadError::Link
                        }
                        _ => ReadError::NotRegular("a folder on the way is not a folder"),
                    }
                }
                e => e.into(),
            })?;
    }
    let fd = rustix::fs::openat(&dir, *file, FILE_FLAGS | OFlags::NOFOLLOW, Mode::empty())?;
    read_open(fd, limit)
}

/// What [`read`] does once the file is open: its kind and size from the descriptor, then at most
/// `limit` bytes (one more is asked for, so a file that grew past the limit is refused too).
fn read_open(fd: OwnedFd, limit: u64) -> Result<Vec<u8>, ReadError> {
    let stat = rustix::fs::fstat(&fd).map_err(|e| ReadError::Io(e.into()))?;
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => {}
        FileType::Directory => return Err(ReadError::NotRegular("a folder")),
        _ => {
            return Err(ReadError::NotRegular(
                "not a regular file (a FIFO, socket or device)",
            ))
        }
    }
    let size = stat.st_size as u64;
    if size > limit {
        return Err(ReadError::TooLarge { size, limit });
    }
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(size as usize)
        .map_err(|e| ReadError::Io(std::io::Error::other(e)))?;
    std::fs::File::from(fd)
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_read_up_to_its_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        std::fs::write(&path, b"12345").unwrap();
        assert_eq!(read(&path, 5, Links::Refuse).unwrap(), b"12345");
        assert!(matches!(
            read(&path, 4, Links::Refuse),
            Err(ReadError::TooLarge { size: 5, limit: 4 })
        ));
        assert!(matches!(
            read(&dir.path().join("none"), 4, Links::Refuse),
            Err(ReadError::Missing)
        ));
    }

    #[test]
    fn a_fifo_a_device_and_a_folder_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mkfifoat(CWD, &fifo, Mode::from_raw_mode(0o600)).unwrap();
        // Without O_NONBLOCK this open would wait for a writer forever.
        assert!(matches!(
            read(&fifo, 100, Links::Follow),
            Err(ReadError::NotRegular(_))
        ));
        assert!(matches!(
            read(Path::new("/dev/zero"), 100, Links::Follow),
            Err(ReadError::NotRegular(_))
        ));
        assert!(matches!(
            read(dir.path(), 100, Links::Follow),
            Err(ReadError::NotRegular("a folder"))
        ));
    }

    #[test]
    fn links_are_refused_at_the_end_and_on_the_way_below_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("cost.json"), b"{}").unwrap();
        std::os::unix::fs::symlink(outside.path().join("cost.json"), dir.path().join("l")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("sub")).unwrap();
        assert!(matches!(
            read(&dir.path().join("l"), 100, Links::Refuse),
            Err(ReadError::Link)
        ));
        assert_eq!(
            read(&dir.path().join("l"), 100, Links::Follow).unwrap(),
            b"{}"
        );
        assert!(matches!(
            read_beneath(dir.path(), Path::new("l"), 100),
            Err(ReadError::Link)
        ));
        // `sub/cost.json` with `sub` a link: O_NOFOLLOW on the file alone would follow `sub`.
        assert!(read(&dir.path().join("sub/cost.json"), 100, Links::Refuse).is_ok());
        assert!(matches!(
            read_beneath(dir.path(), Path::new("sub/cost.json"), 100),
            Err(ReadError::Link)
        ));
        std::fs::create_dir(dir.path().join("real")).unwrap();
        std::fs::write(dir.path().join("real/cost.json"), b"{}").unwrap();
        assert_eq!(
            read_beneath(dir.path(), Path::new("real/cost.json"), 100).unwrap(),
            b"{}"
        );
        assert!(read_beneath(dir.path(), Path::new("../x"), 100).is_err());
    }
}
