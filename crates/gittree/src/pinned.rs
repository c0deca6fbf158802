//! A trial repository opened as the program that made it fixed it, never as the repository says.
//!
//! A verifier, a fixer or a fixture's loop command may write anything in the repository they are
//! given, `.git` included. libgit2 honours what `.git` says when it opens a repository: the work
//! tree (`core.worktree`), where the objects and refs are (`commondir`, `objects/info/alternates`),
//! which commits exist (`shallow`, `info/grafts`), extra files to read (`include.path`,
//! `core.excludesFile`, `core.attributesFile`), and it opens `.git`'s files following links and
//! blocking on a FIFO. Pointing `core.worktree` at the fixture's folder made the harness commit
//! the answer key into the repository.
//!
//! [`Pinned`] holds what its maker wrote: the git dir, and the bytes of every file libgit2 reads
//! to decide the above (or that the file must be absent), and of the repository's own ignore and
//! attribute rules (`info/exclude`, `info/attributes`), which choose what a commit holds. [`Pinned::open`] checks them, and that
//! nothing in `.git` is a link or a special file, before libgit2 reads anything; opens the git
//! dir itself (no search, no `.git` file followed); sets the work tree to the one asked for; and
//! replaces the configuration with an empty one held in memory (every setting at libgit2's
//! default: nothing read later, a `core.excludesFile` neither). [`Pinned::restore`] puts the files
//! back, for the harness between rounds, once the read-only check has seen the change.

use std::io;
use std::path::{Path, PathBuf};

use git2::{Binding, Repository, RepositoryOpenFlags};

use crate::nofollow::{self, Found};

/// The most bytes a control file is read to (a configuration is a few hundred bytes).
const CONTROL_LIMIT: u64 = 64 * 1024;

/// A repository as its maker fixed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pinned {
    /// The folder the repository lives in (its `.git` is `root/.git`): made by the harness, in a
    /// folder nothing it runs may write, so never replaced by a link. Everything below is reached
    /// from it without following one.
    pub root: PathBuf,
    /// The git dir, relative to `root`: `.git`, or `.git/worktrees/<name>` for a linked worktree.
    pub git_dir: PathBuf,
    /// Each file libgit2 reads on open, relative to `root`, with its bytes (`None`: absent).
    pub control: Vec<(PathBuf, Option<Vec<u8>>)>,
}

/// Why a repository could not be pinned, checked, restored or opened. Its text is the one a user
/// reads in a trial's error.
#[derive(Debug, thiserror::Error)]
pub enum PinnedError {
    /// A control file is neither a regular file nor absent when the repository is pinned.
    #[error("{}: {what}", path.display())]
    NotAFile { path: PathBuf, what: String },
    /// A file or folder of the repository could not be read, written or removed (`action`: what
    /// was done, e.g. `read`, `restore`).
    #[error("{action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    /// The control files differ from the pinned ones (each path, as [`Pinned::differences`]
    /// says it).
    #[error(
        "the repository's git control files were changed ({}): refused, never opened as they say",
        .0.join(", ")
    )]
    Changed(Vec<String>),
    /// libgit2 could not open the git dir; `system` is the OS error the call left, when it was
    /// one (` (os error 24)`), so that a machine fault can be told from a broken repository.
    #[error("open {}: {message}{system}", git_dir.display())]
    Open {
        git_dir: PathBuf,
        message: String,
        system: String,
    },
    #[error("set the work tree: {0}")]
    WorkTree(String),
    /// The empty configuration could not be made.
    #[error("{0}")]
    Config(String),
    #[error("replace the configuration: libgit2 error {0}")]
    SetConfig(i32),
    #[error("{} has no parent folder", .0.display())]
    NoParent(PathBuf),
}

fn io_error(
    action: &'static str,
    path: impl Into<PathBuf>,
) -> impl FnOnce(io::Error) -> PinnedError {
    let path = path.into();
    move |source| PinnedError::Io {
        action,
        path,
        source,
    }
}

/// The files that steer libgit2's open, relative to the common dir `.git` and to the git dir.
const COMMON_CONTROL: &[&str] = &[
    "config",
    "config.worktree",
    "commondir",
    "shallow",
    "info/grafts",
    "info/exclude",
    "info/attributes",
    "objects/info/alternates",
    "objects/info/http-alternates",
];
const WORKTREE_CONTROL: &[&str] = &["commondir", "gitdir", "shallow", "config.worktree"];

impl Pinned {
    /// Pins the repository in `root` as it is now, with `git_dir` (relative to `root`) its git dir:
    /// called by its maker once it is written, before anything else runs in it.
    pub fn now(root: &Path, git_dir: &Path) -> Result<Pinned, PinnedError> {
        let common = Path::new(".git");
        let mut paths: Vec<PathBuf> = COMMON_CONTROL.iter().map(|p| common.join(p)).collect();
        if git_dir != common {
            paths.extend(WORKTREE_CONTROL.iter().map(|p| git_dir.join(p)));
        }
        let mut control = Vec::with_capacity(paths.len());
        for path in paths {
            let bytes = match read(root, &path)? {
                Found::Absent => None,
                Found::File(bytes) => Some(bytes),
                Found::Other(what) => return Err(PinnedError::NotAFile { path, what }),
            };
            control.push((path, bytes));
        }
        Ok(Pinned {
            root: root.to_path_buf(),
            git_dir: git_dir.to_path_buf(),
            control,
        })
    }

    /// What differs from the pinned state: each control file changed, added or removed, and each
    /// entry of `.git` that is a link or a special file. Empty when the repository is as pinned.
    ///
    /// One walk of `.git` (never following a link) says both: each entry's kind, and the bytes of
    /// the control files met on the way (a control file not met is absent).
    pub fn differences(&self) -> Result<Vec<String>, PinnedError> {
        let mut found = Vec::new();
        let mut met = vec![false; self.control.len()];
        nofollow::walk(
            &self.root,
            Path::new(".git"),
            &mut |path, dir, name, kind| {
                if kind != rustix::fs::FileType::RegularFile {
                    found.push(format!("{path} (a link or special file)"));
                    return Ok(());
                }
                if let Some(n) = self
                    .control
                    .iter()
                    .position(|(control, _)| control.as_os_str() == std::ffi::OsStr::new(path))
                {
                    met[n] = true;
                    let same = match (
                        nofollow::read_at(dir, name, CONTROL_LIMIT)?,
                        &self.control[n].1,
                    ) {
                        (Found::File(bytes), Some(expected)) => bytes == *expected,
                        _ => false,
                    };
                    if !same {
                        found.push(path.to_owned());
                    }
                }
                Ok(())
            },
        )
        .map_err(io_error("read", ".git"))?;
        for ((path, expected), met) in self.control.iter().zip(met) {
            if !met && expected.is_some() {
                found.push(path.display().to_string());
            }
        }
        Ok(found)
    }

    /// Refuses a repository whose control files are not as pinned.
    pub fn check(&self) -> Result<(), PinnedError> {
        let differences = self.differences()?;
        if differences.is_empty() {
            Ok(())
        } else {
            Err(PinnedError::Changed(differences))
        }
    }

    /// Puts every control file back as pinned (a changed one rewritten, an added one removed,
    /// never through a link) and removes every link and special file in `.git`. For the harness,
    /// between rounds: the read-only check has recorded the change by then.
    pub fn restore(&self) -> Result<(), PinnedError> {
        if self.differences()?.is_empty() {
            return Ok(());
        }
        for (path, expected) in &self.control {
            let now = read(&self.root, path)?;
            let result = match (expected, &now) {
                (None, Found::Absent) => continue,
                (Some(bytes), Found::File(now)) if now == bytes => continue,
                (None, _) => nofollow::remove_file(&self.root, path),
                (Some(bytes), _) => nofollow::write_atomic(&self.root, path, bytes, 0o644, true),
            };
            result.map_err(io_error("restore", path))?;
        }
        for special in nofollow::special_entries(&self.root, Path::new(".git"))
            .map_err(io_error("list", ".git"))?
        {
            nofollow::remove_file(&self.root, Path::new(&special))
                .map_err(io_error("remove", &special))?;
        }
        self.check()
    }

    /// Opens the repository with `work_dir` as its work tree, once [`check`](Self::check) found it
    /// as pinned; its configuration is an empty one in memory from then on.
    pub fn open(&self, work_dir: &Path) -> Result<Repository, PinnedError> {
        self.check()?;
        let git_dir = self.root.join(&self.git_dir);
        let repo = Repository::open_ext(
            &git_dir,
            RepositoryOpenFlags::NO_SEARCH | RepositoryOpenFlags::NO_DOTGIT,
            std::iter::empty::<&std::ffi::OsStr>(),
        )
        .map_err(|e| {
            // libgit2's system errors say no number: the one the failed call left is kept, so
            // that a machine fault (out of descriptors) can be told from a broken repository.
            let system = if e.class() == git2::ErrorClass::Os {
                format!(" ({})", std::io::Error::last_os_error())
            } else {
                String::new()
            };
            PinnedError::Open {
                git_dir: git_dir.clone(),
                message: e.message().to_owned(),
                system,
            }
        })?;
        repo.set_workdir(work_dir, false)
            .map_err(|e| PinnedError::WorkTree(e.message().to_owned()))?;
        let config =
            git2::Config::new().map_err(|e| PinnedError::Config(e.message().to_owned()))?;
        // SAFETY: both pointers are live handles owned by `repo` and `config`;
        // `git_repository_set_config` takes its own reference to the configuration, so dropping
        // `config` afterwards leaves the repository's valid.
        let code = unsafe { libgit2_sys::git_repository_set_config(repo.raw(), config.raw()) };
        if code < 0 {
            return Err(PinnedError::SetConfig(code));
        }
        Ok(repo)
    }
}

/// The files libgit2 reads in a work tree to decide what a commit or a diff holds.
pub const RULE_FILES: [&str; 3] = [".gitignore", ".gitattributes", ".gitmodules"];

/// Every `.gitignore`, `.gitattributes` or `.gitmodules` in the work tree `work_dir` (`.git`
/// left out) that is not a regular file: libgit2 reads them following a link and blocks on a FIFO
/// (a FIFO as `.gitignore` stalls `is_path_ignored` and `add_all` forever). Folders are opened
/// without following a link.
pub fn rule_files_not_regular(work_dir: &Path) -> Result<Vec<String>, PinnedError> {
    let (Some(parent), Some(name)) = (work_dir.parent(), work_dir.file_name()) else {
        return Err(PinnedError::NoParent(work_dir.to_path_buf()));
    };
    let top = Path::new(name).join(".git");
    let top = top.to_string_lossy();
    let mut found = Vec::new();
    nofollow::walk(parent, Path::new(name), &mut |path, _, file, kind| {
        let rule = RULE_FILES.iter().any(|r| file.to_bytes() == r.as_bytes());
        let in_git = path.starts_with(&*top) && path[top.len()..].starts_with('/');
        if rule && !in_git && kind != rustix::fs::FileType::RegularFile {
            found.push(path.split_once('/').map_or(path, |(_, p)| p).to_owned());
        }
        Ok(())
    })
    .map_err(io_error("read", work_dir))?;
    Ok(found)
}

fn read(root: &Path, path: &Path) -> Result<Found, PinnedError> {
    nofollow::read(root, path, CONTROL_LIMIT).map_err(io_error("read", path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> (tempfile::TempDir, Pinned) {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        std::fs::write(dir.path().join("a"), "a").unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("a")).unwrap();
        index.write().unwrap();
        let pinned = Pinned::now(dir.path(), Path::new(".git")).unwrap();
        (dir, pinned)
    }

    #[test]
    fn core_worktree_and_an_excludes_file_are_not_honoured() {
        let (dir, pinned) = repo();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("answer.yaml"), "key").unwrap();
        let config = dir.path().join(".git/config");
        let mut text = std::fs::read_to_string(&config).unwrap();
        text.push_str(&format!(
            "[core]\n\tworktree = {}\n\texcludesFile = {}\n",
            elsewhere.path().display(),
            elsewhere.path().join("answer.yaml").display()
        ));
        std::fs::write(&config, text).unwrap();
        // libgit2 alone follows it.
        let honoured = Repository::open(dir.path()).unwrap();
        assert_eq!(
            honoured.workdir().unwrap().canonicalize().unwrap(),
            elsewhere.path().canonicalize().unwrap()
        );
        let refused = pinned.open(dir.path()).err().unwrap().to_string();
        assert!(refused.contains(".git/config"), "{refused}");
        pinned.restore().unwrap();
        let repo = pinned.open(dir.path()).unwrap();
        assert_eq!(repo.workdir().unwrap(), dir.path().join(""));
        assert!(repo.config().unwrap().get_string("core.worktree").is_err());
    }

    #[test]
    fn links_commondir_and_alternates_are_differences_and_restored_away() {
        let (dir, pinned) = repo();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".git/commondir"), "/elsewhere\n").unwrap();
        std::fs::write(
            dir.path().join(".git/objects/info/alternates"),
            format!("{}\n", outside.path().display()),
        )
        .unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(".git/refs/tags/out")).unwrap();
        let mut differences = pinned.differences().unwrap();
        differences.sort();
        assert_eq!(
            differences,
            [
                ".git/commondir",
                ".git/objects/info/alternates",
                ".git/refs/tags/out (a link or special file)"
            ]
        );
        pinned.restore().unwrap();
        assert!(pinned.differences().unwrap().is_empty());
        assert!(outside.path().exists());
        // A config replaced by a link is replaced back, its target untouched.
        std::fs::write(outside.path().join("t"), "target").unwrap();
        std::fs::remove_file(dir.path().join(".git/config")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("t"), dir.path().join(".git/config"))
            .unwrap();
        assert!(pinned.open(dir.path()).is_err());
        pinned.restore().unwrap();
        assert_eq!(
            std::fs::read_to_string(outside.path().join("t")).unwrap(),
            "target"
        );
        pinned.open(dir.path()).unwrap();
    }

    #[test]
    fn a_rule_file_that_is_a_fifo_or_a_link_is_found() {
        let (dir, _) = repo();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            dir.path().join("sub/.gitignore"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        std::os::unix::fs::symlink("/etc/hostname", dir.path().join(".gitattributes")).unwrap();
        std::fs::write(dir.path().join(".gitignore"), "x\n").unwrap();
        let mut found = rule_files_not_regular(dir.path()).unwrap();
        found.sort();
        assert_eq!(found, [".gitattributes", "sub/.gitignore"]);
    }
}
