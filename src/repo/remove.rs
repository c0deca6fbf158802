//! Removing a trial's repository once it is scored: every folder read and emptied through its own
//! descriptor, `std::fs::remove_dir_all`'s walk with fewer system calls.
//!
//! The standard library turns each folder's descriptor into a C directory stream
//! (`fdopendir`), which asks for the descriptor's status and flags and sets its close-on-exec flag
//! again: three system calls a folder that tell nothing here. A repository of twenty folders
//! paid sixty of them a trial (docs/PERFORMANCE.md, "Scale", thirteenth section). rustix's
//! directory stream reads `getdents64` from the descriptor it is given.
//!
//! What is removed is what `remove_dir_all` removes: the folder and everything below it, a
//! symlink removed and never followed (a folder is opened with `O_NOFOLLOW`, and an entry's kind
//! is the one its folder lists), an entry already gone taken as removed.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::path::Path;

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags, CWD};
use rustix::io::Errno;

/// Removes the folder at `path` and everything in it. A path that is absent is no error; a
/// symlink is unlinked, not followed, as `remove_dir_all` does, and so is a file (which
/// `remove_dir_all` refuses: a trial's leftover goes either way).
pub fn remove_tree(path: &Path) -> io::Result<()> {
    match open_dir(CWD, path) {
        Ok(dir) => {
            empty(dir)?;
            gone_is_ok(rustix::fs::unlinkat(CWD, path, AtFlags::REMOVEDIR))
        }
        Err(Errno::NOENT) => Ok(()),
        Err(Errno::NOTDIR | Errno::LOOP) => {
            gone_is_ok(rustix::fs::unlinkat(CWD, path, AtFlags::empty()))
        }
        Err(e) => Err(e.into()),
    }
}

/// Opens the folder `path` (relative to `at`) for listing, never through a symlink.
pub(crate) fn open_dir<P: rustix::path::Arg>(at: impl AsFd, path: P) -> rustix::io::Result<Dir> {
    let fd = rustix::fs::openat(
        at,
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Dir::new(fd)
}

/// Removes everything in the folder `dir` reads, depth first.
fn empty(mut dir: Dir) -> io::Result<()> {
    // The names are read before anything is removed: removing entries while the stream is read
    // leaves it to the file system whether an entry is listed again or skipped.
    let mut entries: Vec<(std::ffi::CString, FileType)> = Vec::new();
    while let Some(entry) = dir.read() {
        let entry = entry?;
        let name = entry.file_name();
        if name == c"." || name == c".." {
            continue;
        }
        entries.push((name.to_owned(), entry.file_type()));
    }
    let fd = dir.fd()?;
    for (name, kind) in &entries {
        remove_entry(fd, name, *kind)?;
    }
    Ok(())
}

fn remove_entry(parent: BorrowedFd<'_>, name: &CStr, kind: FileType) -> io::Result<()> {
    let is_dir = match kind {
        FileType::Directory => true,
        // A file system that does not say the kind in its listing: asked, without following.
        FileType::Unknown => match rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => FileType::from_raw_mode(stat.st_mode) == FileType::Directory,
            Err(Errno::NOENT) => return Ok(()),
            Err(e) => return Err(e.into()),
        },
        _ => false,
    };
    if is_dir {
        match open_dir(parent, name) {
            Ok(dir) => empty(dir)?,
            Err(Errno::NOENT) => return Ok(()),
            Err(e) => return Err(e.into()),
        }
        gone_is_ok(rustix::fs::unlinkat(parent, name, AtFlags::REMOVEDIR))
    } else {
        gone_is_ok(rustix::fs::unlinkat(parent, name, AtFlags::empty()))
    }
}

fn gone_is_ok(result: rustix::io::Result<()>) -> io::Result<()> {
    match result {
        Ok(()) | Err(Errno::NOENT) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_of_files_folders_and_links_is_removed_and_a_link_is_not_followed() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("keep.txt"), "kept").unwrap();
        let tree = root.path().join("repo");
        std::fs::create_dir_all(tree.join("a/b/c")).unwrap();
        std::fs::create_dir_all(tree.join(".git/objects/pack")).unwrap();
        std::fs::write(tree.join("a/one.txt"), "1").unwrap();
        std::fs::write(tree.join("a/b/c/two.txt"), "2").unwrap();
        std::fs::write(tree.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), tree.join("a/link-to-dir")).unwrap();
        std::os::unix::fs::symlink("missing", tree.join("dangling")).unwrap();
        let fifo = std::ffi::CString::new(tree.join("fifo").to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        // Enough entries in one folder that its listing takes more than one read.
        for i in 0..300 {
            std::fs::write(
                tree.join(format!("a/b/file-{i:03}-with-a-longer-name.txt")),
                "x",
            )
            .unwrap();
        }
        remove_tree(&tree).unwrap();
        assert!(!tree.exists() && tree.symlink_metadata().is_err());
        assert_eq!(
            std::fs::read_to_string(outside.path().join("keep.txt")).unwrap(),
            "kept"
        );
        assert!(root.path().exists());
    }

    #[test]
    fn an_absent_path_is_no_error_and_a_file_or_a_link_is_unlinked() {
        let root = tempfile::tempdir().unwrap();
        remove_tree(&root.path().join("absent")).unwrap();
        let file = root.path().join("file");
        std::fs::write(&file, "x").unwrap();
        remove_tree(&file).unwrap();
        assert!(!file.exists());
        let target = root.path().join("target");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("inside"), "x").unwrap();
        let link = root.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        remove_tree(&link).unwrap();
        assert!(link.symlink_metadata().is_err());
        assert!(
            target.join("inside").exists(),
            "the link's target is left alone"
        );
    }

    #[test]
    fn a_path_through_a_file_is_an_error() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let err = remove_tree(&file.join("child")).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOTDIR));
        assert!(file.exists());
    }
}
