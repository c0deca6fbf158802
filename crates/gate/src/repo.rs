//! Git and work-tree access for the gate: HEAD, the base ref and merge base, what changed against
//! the merge base (committed, staged, unstaged and untracked), the current source tree, and whether
//! the repository is a linked worktree. Everything is read in-process with git2.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Component, Path, PathBuf};

use git2::{ObjectType, Oid, Repository, TreeWalkMode, TreeWalkResult};

use gatebench_gittree as gittree;
use gatebench_gittree::pinned::Pinned;

/// How a file differs between the merge base and the work tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeStatus {
    Added,
    Modified,
    Deleted,
}

impl ChangeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeStatus::Added => "added",
            ChangeStatus::Modified => "modified",
            ChangeStatus::Deleted => "deleted",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    pub status: ChangeStatus,
}

/// A problem of the environment: the gate cannot judge anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvError {
    /// A stable code for `error.code`.
    pub code: &'static str,
    pub message: String,
    /// HEAD, when it was resolved before the failure.
    pub head_sha: Option<String>,
}

impl EnvError {
    fn new(code: &'static str, message: String, head_sha: Option<String>) -> EnvError {
        EnvError {
            code,
            message,
            head_sha,
        }
    }
}

/// What the gate knows about the repository it judges.
pub struct RepoView {
    workdir: PathBuf,
    pub head_sha: String,
    pub merge_base: String,
    /// Files that differ between the merge base and the work tree, sorted by path.
    pub changes: Vec<Change>,
    /// The tree id of the work tree's files outside `specs/` (see `gittree::source_tree_id`).
    pub source_tree: String,
    /// `sha256:<hex>` of the change from the merge base to the work tree, outside `specs/` (see
    /// `gittree::diff_sha256`): the other binding a receipt may record
    /// (docs/CONCEPTS.md#loom-evidence-binding).
    pub diff_sha256: String,
    /// Whether the git dir differs from the common dir (docs/CONCEPTS.md#loom-worktree-detection).
    pub linked_worktree: bool,
    /// Files that differ between the merge base and HEAD's commit: `git diff BASE...HEAD`.
    pub committed_changes: Vec<Change>,
    /// The branch HEAD is on, `None` when detached.
    pub branch: Option<String>,
    /// The merge base's bytes of every file `changes` lists as modified or deleted, by path.
    pub base_contents: BTreeMap<String, Vec<u8>>,
    /// Every file of the work tree view (tracked, and untracked unless ignored) with its bytes as
    /// they were when the view was read: the gate judges one snapshot (`changes` and
    /// `source_tree` were computed from these bytes), and reads each file from the disk once.
    contents: BTreeMap<String, Snapped>,
    /// Whether the walk found only what [`snapshot`](Self::snapshot) promises: regular files and
    /// folders with UTF-8 names, no symlink, no special file, no nested repository and no
    /// `.gitattributes` anywhere it looked.
    plain: bool,
    /// The repository as opened for the view: scope detection diffs through it, so the index is
    /// read and the objects the view read are cached once per view.
    git: Repository,
}

impl RepoView {
    /// Opens the repository whose work tree is `repo_dir` as git would and reads everything the
    /// gate needs ([`open_with`](Self::open_with) without a pinned repository).
    pub fn open(repo_dir: &Path, base_ref: &str) -> Result<RepoView, EnvError> {
        RepoView::open_with(repo_dir, base_ref, None)
    }

    /// Opens the repository whose work tree is `repo_dir` (as `pinned` fixed it when given: see
    /// [`open_repository`]) and reads everything the gate needs.
    pub fn open_with(
        repo_dir: &Path,
        base_ref: &str,
        pinned: Option<&Pinned>,
    ) -> Result<RepoView, EnvError> {
        let repo = open_repository(repo_dir, pinned).map_err(|error| {
            EnvError::new(
                // A pinned repository is refused when its `.git` was changed.
                if pinned.is_some() {
                    "repository-unusable"
                } else {
                    "not-a-git-repository"
                },
                match pinned {
                    Some(_) => format!("{} cannot be opened: {error}", repo_dir.display()),
                    None => format!("{} is not a git repository: {error}", repo_dir.display()),
                },
                None,
            )
        })?;
        let Some(workdir) = repo.workdir().map(Path::to_path_buf) else {
            return Err(EnvError::new(
                "bare-repository",
                format!(
                    "{} is a bare repository: there is no work tree to judge",
                    repo_dir.display()
                ),
                None,
            ));
        };
        let head = repo
            .head()
            .and_then(|head| head.peel_to_commit())
            .map(|commit| commit.id())
            .map_err(|error| {
                EnvError::new(
                    "head-unresolved",
                    format!("HEAD does not name a commit: {}", error.message()),
                    None,
                )
            })?;
        let head_sha = head.to_string();
        let base = repo
            .revparse_single(base_ref)
            .and_then(|object| object.peel_to_commit())
            .map(|commit| commit.id())
            .map_err(|error| {
                EnvError::new(
                    "base-ref-not-found",
                    format!(
                        "base ref `{base_ref}` does not name a commit: {}",
                        error.message()
                    ),
                    Some(head_sha.clone()),
                )
            })?;
        let merge_base = repo.merge_base(base, head).map_err(|error| {
            EnvError::new(
                "no-merge-base",
                format!(
                    "HEAD {head_sha} and base ref `{base_ref}` have no merge base: {}",
                    error.message()
                ),
                Some(head_sha.clone()),
            )
        })?;
        let unreadable =
            |error: String| EnvError::new("worktree-unreadable", error, Some(head_sha.clone()));
        // The loop's machine state is never part of what is judged (gittree::LOOP_STATE_DIR).
        let mut base_files = tree_blobs(&repo, merge_base).map_err(&unreadable)?;
        base_files.retain(|path, _| !gittree::in_loop_state(path));
        let mut head_files = tree_blobs(&repo, head).map_err(&unreadable)?;
        head_files.retain(|path, _| !gittree::in_loop_state(path));
        let tracked = index_paths(&repo).map_err(&unreadable)?;
        let walked =
            work_tree_files(&repo, &workdir, &tracked, pinned.is_some()).map_err(&unreadable)?;
        let mut files = walked.files;
        files.retain(|path, _| !gittree::in_loop_state(path));
        let linked_worktree = is_linked_worktree(&repo);
        let branch = repo
            .head()
            .ok()
            .filter(|head| head.is_branch())
            .and_then(|head| head.shorthand().ok().map(str::to_owned));
        let mut committed_changes = Vec::new();
        for (path, blob) in &head_files {
            match base_files.get(path) {
                None => committed_changes.push(Change {
                    path: path.clone(),
                    status: ChangeStatus::Added,
                }),
                Some(base_blob) if base_blob != blob => committed_changes.push(Change {
                    path: path.clone(),
                    status: ChangeStatus::Modified,
                }),
                Some(_) => {}
            }
        }
        for path in base_files.keys() {
            if !head_files.contains_key(path) {
                committed_changes.push(Change {
                    path: path.clone(),
                    status: ChangeStatus::Deleted,
                });
            }
        }
        committed_changes.sort_by(|a, b| a.path.cmp(&b.path));

        let mut changes = Vec::new();
        for (path, file) in &files {
            match base_files.get(path) {
                None => changes.push(Change {
                    path: path.clone(),
                    status: ChangeStatus::Added,
                }),
                Some(blob) if *blob != file.id => changes.push(Change {
                    path: path.clone(),
                    status: ChangeStatus::Modified,
                }),
                Some(_) => {}
            }
        }
        for path in base_files.keys() {
            if !files.contains_key(path) {
                changes.push(Change {
                    path: path.clone(),
                    status: ChangeStatus::Deleted,
                });
            }
        }
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        let mut base_contents = BTreeMap::new();
        for change in &changes {
            if change.status == ChangeStatus::Added {
                continue;
            }
            if let Some(blob) = base_files
                .get(&change.path)
                .and_then(|oid| repo.find_blob(*oid).ok())
            {
                base_contents.insert(change.path.clone(), blob.content().to_vec());
            }
        }

        // Each file hashed once, as it was read: the changes, the source tree id, the diff and
        // scope detection are all built from its blob id.
        let current_blobs: Vec<(&str, Oid)> = files
            .iter()
            .map(|(path, file)| (path.as_str(), file.id))
            .collect();
        let source_tree =
            gittree::source_tree_id_of_blobs(current_blobs.iter().copied()).to_string();
        let diff_sha256 = gittree::diff_sha256(
            base_files.iter().map(|(path, oid)| (path.as_str(), *oid)),
            current_blobs.iter().copied(),
        );

        Ok(RepoView {
            workdir,
            head_sha,
            merge_base: merge_base.to_string(),
            changes,
            source_tree,
            diff_sha256,
            linked_worktree,
            committed_changes,
            branch,
            base_contents,
            contents: files,
            plain: walked.plain,
            git: repo,
        })
    }

    /// The files of the work tree view (the loop's state folder left out) as the view read them,
    /// for scope detection's diff of the index to the work tree: `None` unless the walk found only
    /// regular files and folders with UTF-8 names (no symlink, special file, nested repository or
    /// `.gitattributes`), the only kind of tree whose diff the file's bytes and executable bit
    /// settle alone.
    pub fn snapshot(&self) -> Option<impl Iterator<Item = SnapshotFile<'_>>> {
        self.plain.then(|| {
            self.contents.iter().map(|(path, file)| SnapshotFile {
                path,
                bytes: &file.bytes,
                id: file.id,
                executable: file.executable,
            })
        })
    }

    /// The repository the view was read from.
    pub fn git(&self) -> &Repository {
        &self.git
    }

    /// Every file of the work tree view (tracked, and untracked unless ignored), sorted.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.contents.keys().map(String::as_str)
    }

    /// The work tree the view was read from.
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// The absolute path of a repository path, or `None` when the path is not a plain relative
    /// path inside the repository (absolute, `..`, empty).
    pub fn resolve(&self, path: &str) -> Option<PathBuf> {
        if !is_plain_relative(path) {
            return None;
        }
        Some(self.workdir.join(path))
    }

    /// The bytes of a repository path in the work tree, when it is a readable file: from the
    /// view's snapshot for a file of [`files`](Self::files), from the disk for any other (an
    /// ignored file, the loop's state folder). A snapshot's bytes are borrowed, not copied: the
    /// validators read most files more than once.
    pub fn read(&self, path: &str) -> Option<Cow<'_, [u8]>> {
        if let Some(file) = self.contents.get(path) {
            return Some(Cow::Borrowed(&file.bytes));
        }
        let full = self.resolve(path)?;
        if !full.is_file() {
            return None;
        }
        match fs::read(full) {
            Ok(bytes) => Some(Cow::Owned(bytes)),
            Err(error) => {
                crate::fault::note_io(&format!("read {path}"), &error);
                None
            }
        }
    }

    /// Whether a repository path is a file in the work tree (one of [`files`](Self::files), or any
    /// other on the disk).
    pub fn is_file(&self, path: &str) -> bool {
        self.contents.contains_key(path) || self.resolve(path).is_some_and(|full| full.is_file())
    }

    /// Whether a repository path is a directory in the work tree.
    pub fn is_dir(&self, path: &str) -> bool {
        self.resolve(path).is_some_and(|full| full.is_dir())
    }

    /// The names of the entries of a directory (repository path), sorted; empty when it is absent.
    pub fn list_dir(&self, path: &str) -> Vec<String> {
        let Some(full) = self.resolve(path) else {
            return Vec::new();
        };
        let entries = match fs::read_dir(full) {
            Ok(entries) => entries,
            Err(error) => {
                crate::fault::note_io(&format!("list {path}"), &error);
                return Vec::new();
            }
        };
        let mut names: Vec<String> = entries
            .filter_map(|entry| entry.ok())
            .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
            .collect();
        names.sort();
        names
    }
}

/// Opens the repository whose work tree is `repo_dir`. Pinned (a trial repository): the git dir,
/// work tree and configuration its maker fixed, refused when its `.git` says otherwise
/// (`gatebench_gittree::pinned`). Not pinned (`gatebench gate` on one's own repository): as git
/// opens it, its configuration honoured.
pub fn open_repository(repo_dir: &Path, pinned: Option<&Pinned>) -> Result<Repository, String> {
    match pinned {
        // An error the machine caused on the way (out of descriptors or memory) keeps its number
        // in its text (`... (os error 24)`), and is noted as such.
        Some(pinned) => pinned
            .open(repo_dir)
            .map_err(|e| e.to_string())
            .inspect_err(|e| {
                crate::fault::note_text("open the repository", e);
            }),
        // A failure the machine causes (out of descriptors or memory) is noted as such (`fault`).
        None => Repository::open(repo_dir).map_err(|e| {
            crate::fault::note_git("open the repository", &e);
            e.message().to_owned()
        }),
    }
}

/// The paths that differ between the trees of two commits of the repository at `repo_dir`
/// (the loop's state folder left out), sorted. An error says which commit could not be read.
pub fn changes_between(
    repo_dir: &Path,
    pinned: Option<&Pinned>,
    from: &str,
    to: &str,
) -> Result<Vec<String>, String> {
    let repo = open_repository(repo_dir, pinned)?;
    let blobs = |sha: &str| -> Result<BTreeMap<String, Oid>, String> {
        let oid = Oid::from_str(sha).map_err(|_| format!("`{sha}` is not a commit id"))?;
        tree_blobs(&repo, oid)
    };
    let old = blobs(from)?;
    let new = blobs(to)?;
    let mut paths: BTreeSet<String> = BTreeSet::new();
    for (path, blob) in &new {
        if old.get(path) != Some(blob) {
            paths.insert(path.clone());
        }
    }
    paths.extend(old.keys().filter(|path| !new.contains_key(*path)).cloned());
    Ok(paths
        .into_iter()
        .filter(|path| !gittree::in_loop_state(path))
        .collect())
}

/// Whether `path` is a non-empty relative path with `/` separators and no `..`, `.` or root.
pub fn is_plain_relative(path: &str) -> bool {
    if path.is_empty() || path.contains('\\') || path.starts_with('/') {
        return false;
    }
    Path::new(path)
        .components()
        .all(|component| matches!(component, Component::Normal(_)))
}

/// Whether the repository's git dir is not its common dir: a linked worktree
/// (docs/CONCEPTS.md#loom-worktree-detection). Being "inside a work tree" says nothing about this; a
/// plain clone is inside one too.
pub fn is_linked_worktree(repo: &Repository) -> bool {
    // libgit2 sets the common dir to the git dir itself when there is no `commondir` file: the
    // same path needs no resolving (a dozen system calls, one per component of each).
    if repo.path() == repo.commondir() {
        return false;
    }
    let git_dir = fs::canonicalize(repo.path()).unwrap_or_else(|_| repo.path().to_path_buf());
    let common_dir =
        fs::canonicalize(repo.commondir()).unwrap_or_else(|_| repo.commondir().to_path_buf());
    git_dir != common_dir
}

/// Every blob of a commit's tree, by repository path.
fn tree_blobs(repo: &Repository, commit: Oid) -> Result<BTreeMap<String, Oid>, String> {
    let tree = repo
        .find_commit(commit)
        .and_then(|commit| commit.tree())
        .map_err(|error| {
            crate::fault::note_git("read a tree", &error);
            format!("failed to read the tree of {commit}: {}", error.message())
        })?;
    let mut blobs = BTreeMap::new();
    tree.walk(TreeWalkMode::PreOrder, |root, entry| {
        if entry.kind() == Some(ObjectType::Blob) {
            if let Ok(name) = entry.name() {
                blobs.insert(format!("{root}{name}"), entry.id());
            }
        }
        TreeWalkResult::Ok
    })
    .map_err(|error| format!("failed to walk the tree of {commit}: {}", error.message()))?;
    Ok(blobs)
}

/// The paths in the index (tracked files are part of the work tree even when an ignore rule
/// matches them).
fn index_paths(repo: &Repository) -> Result<BTreeSet<String>, String> {
    let index = repo.index().map_err(|error| {
        crate::fault::note_git("read the index", &error);
        format!("failed to read the index: {}", error.message())
    })?;
    Ok(index
        .iter()
        .filter_map(|entry| String::from_utf8(entry.path).ok())
        .collect())
}

/// A file of the work tree as the view read it.
struct Snapped {
    bytes: Vec<u8>,
    /// Its git blob id.
    id: Oid,
    /// Whether its owner may execute it (git's `100755`).
    executable: bool,
}

/// A file of [`RepoView::snapshot`].
#[derive(Debug, Clone, Copy)]
pub struct SnapshotFile<'a> {
    pub path: &'a str,
    pub bytes: &'a [u8],
    /// Its git blob id.
    pub id: Oid,
    /// Whether its owner may execute it (git's `100755`).
    pub executable: bool,
}

/// What a walk of the work tree found.
struct Walked {
    files: BTreeMap<String, Snapped>,
    /// No symlink, special file, nested `.git`, non-UTF-8 name or `.gitattributes` was seen.
    plain: bool,
}

/// Every file of the work tree that git would see: tracked files and untracked files that no
/// ignore rule matches, without `.git`.
///
/// Walked through folder descriptors (rustix): each folder is opened relative to its parent and
/// listed from its descriptor, each file opened relative to its folder. `std::fs::read_dir` asks
/// for every folder's status once more, and opening a file by its full path has the kernel look
/// up every folder on the way again (docs/PERFORMANCE.md, "Scale", thirteenth section). Folders
/// are walked depth first, so as many descriptors are open as the tree is deep.
///
/// `strict` (a pinned, trial repository): a `.gitignore`, `.gitattributes` or `.gitmodules` that is
/// not a regular file is an error before libgit2 is asked anything about its folder (it reads them
/// following a link and blocks on a FIFO: a loop command planting one would stall the gate).
fn work_tree_files(
    repo: &Repository,
    workdir: &Path,
    tracked: &BTreeSet<String>,
    strict: bool,
) -> Result<Walked, String> {
    let root = open_folder(rustix::fs::CWD, workdir)
        .map_err(|error| env(format!("failed to list {}", workdir.display()), error))?;
    let mut walk = Walk {
        repo,
        tracked,
        workdir,
        files: BTreeMap::new(),
        plain: true,
        strict,
    };
    walk.folder(root, "")?;
    Ok(Walked {
        files: walk.files,
        plain: walk.plain,
    })
}

/// An error of the work tree's walk, as its text, noted when it is the machine's
/// (`fault::note_io`): the walk failing then is no fact about the repository.
fn env(what: String, error: rustix::io::Errno) -> String {
    crate::fault::note_io(&what, &error.into());
    format!("{what}: {error}")
}

fn open_folder<P: rustix::path::Arg>(
    at: impl std::os::fd::AsFd,
    path: P,
) -> rustix::io::Result<rustix::fs::Dir> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::openat(
        at,
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    rustix::fs::Dir::new(fd)
}

/// [`work_tree_files`]'s walk: what it found so far.
struct Walk<'a> {
    repo: &'a Repository,
    tracked: &'a BTreeSet<String>,
    workdir: &'a Path,
    files: BTreeMap<String, Snapped>,
    plain: bool,
    strict: bool,
}

impl Walk<'_> {
    /// The folder `dir` lists, whose repository path is `prefix` (empty, or ending in `/`).
    fn folder(&mut self, mut dir: rustix::fs::Dir, prefix: &str) -> Result<(), String> {
        use rustix::fs::FileType;
        let listing = || format!("failed to list {}", self.workdir.join(prefix).display());
        let mut entries = Vec::new();
        while let Some(entry) = dir.read() {
            let entry = entry.map_err(|error| env(listing(), error))?;
            let name = entry.file_name();
            if name != c"." && name != c".." {
                entries.push((name.to_owned(), entry.file_type()));
            }
        }
        let fd = dir.fd().map_err(|error| env(listing(), error))?;
        if self.strict {
            for (raw, kind) in &entries {
                let rule = gatebench_gittree::pinned::RULE_FILES
                    .iter()
                    .any(|r| raw.to_bytes() == r.as_bytes());
                if !rule {
                    continue;
                }
                let kind = match *kind {
                    FileType::Unknown => {
                        rustix::fs::statat(fd, raw, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
                            .map(|stat| FileType::from_raw_mode(stat.st_mode))
                            .unwrap_or(FileType::Unknown)
                    }
                    kind => kind,
                };
                if kind != FileType::RegularFile {
                    return Err(format!(
                        "{prefix}{} is not a regular file: libgit2 would follow it or block on it",
                        raw.to_string_lossy()
                    ));
                }
            }
        }
        for (raw, mut kind) in entries {
            let Some(name) = raw.to_str().ok().map(str::to_owned) else {
                self.plain = false;
                continue;
            };
            if name == ".git" {
                // Below the top, a nested repository: git lists it as one entry.
                self.plain &= prefix.is_empty();
                continue;
            }
            // An attributes file may filter what git hashes, ignored or not.
            self.plain &= name != ".gitattributes";
            let path = format!("{prefix}{name}");
            if kind == FileType::Unknown {
                // A file system that does not say the kind in its listing: asked, unfollowed.
                let stat = rustix::fs::statat(fd, &raw, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
                    .map_err(|error| env(format!("failed to stat {path}"), error))?;
                kind = FileType::from_raw_mode(stat.st_mode);
            }
            self.plain &= kind == FileType::Directory || kind == FileType::RegularFile;
            // Tracked paths are never ignored: libgit2's ignore lookup (a tenth of a Loom
            // trial's CPU when asked of every path) is only asked about the others.
            let ignored = || self.repo.is_path_ignored(&path).unwrap_or(false);
            if kind == FileType::Directory {
                let dir_prefix = format!("{path}/");
                let holds_tracked = self
                    .tracked
                    .range(dir_prefix.clone()..)
                    .next()
                    .is_some_and(|first| first.starts_with(&dir_prefix));
                if holds_tracked || !ignored() {
                    let child = open_folder(fd, &raw)
                        .map_err(|error| env(format!("failed to list {path}"), error))?;
                    self.folder(child, &dir_prefix)?;
                }
            } else if self.tracked.contains(&path) || !ignored() {
                // The listing's kind says a regular file is one; a symlink is followed.
                let regular = kind == FileType::RegularFile
                    || (kind == FileType::Symlink
                        && rustix::fs::statat(fd, &raw, rustix::fs::AtFlags::empty()).is_ok_and(
                            |stat| FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile,
                        ));
                if regular {
                    if let Some(file) = read_regular(fd, &raw).map_err(|error| {
                        let what = format!("failed to read {path}");
                        crate::fault::note_io(&what, &error);
                        format!("{what}: {error}")
                    })? {
                        self.files.insert(path, file);
                    }
                }
            }
        }
        Ok(())
    }
}

/// The file `name` of the folder `dir`: opened (following a symlink, without blocking should it
/// have become a FIFO since it was listed), its size asked, and that many bytes read, the mode
/// kept; `None` when it is no longer a regular file. Through `take`: `File::read_to_end` would ask
/// for the size and position again, and read once more to learn of the end, a system call that
/// tells nothing a size taken on the open descriptor did not (a file still being written is no
/// snapshot either way).
fn read_regular(
    dir: std::os::fd::BorrowedFd<'_>,
    name: &std::ffi::CStr,
) -> std::io::Result<Option<Snapped>> {
    use rustix::fs::{Mode, OFlags};
    use std::io::Read;
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY,
        Mode::empty(),
    )?;
    let stat = rustix::fs::fstat(&fd)?;
    if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile {
        return Ok(None);
    }
    let size = stat.st_size as u64;
    let mut bytes = Vec::with_capacity(size as usize);
    std::fs::File::from(fd).take(size).read_to_end(&mut bytes)?;
    let id = gittree::blob_id(&bytes);
    let executable = stat.st_mode & 0o100 != 0;
    Ok(Some(Snapped {
        bytes,
        id,
        executable,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Golden;

    #[test]
    fn the_walk_follows_a_link_to_a_file_and_never_opens_a_fifo() {
        let built = Golden::new().build();
        built.write("docs/deep/er/note.md", "deep\n");
        std::os::unix::fs::symlink("README.md", built.path().join("link.md")).unwrap();
        std::os::unix::fs::symlink("docs", built.path().join("link-to-folder")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            built.path().join("pipe"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        // Opening the FIFO for reading would block this test until a writer came.
        let view = RepoView::open(built.path(), "main").unwrap();
        let files: Vec<&str> = view.files().collect();
        assert!(files.contains(&"docs/deep/er/note.md"), "{files:?}");
        assert_eq!(
            view.read("docs/deep/er/note.md").unwrap().as_ref(),
            b"deep\n"
        );
        assert_eq!(
            view.read("link.md").unwrap().as_ref(),
            std::fs::read(built.path().join("README.md")).unwrap()
        );
        assert!(!files.contains(&"pipe"));
        assert!(
            !files.iter().any(|f| f.starts_with("link-to-folder")),
            "{files:?}"
        );
        // What is not a plain file or folder leaves the snapshot unsettled.
        assert!(view.snapshot().is_none());
    }

    /// A trial repository (pinned) whose work tree holds a FIFO as a `.gitignore` is refused
    /// before libgit2 reads it (it would block forever); a run on a thread, so that a hang fails
    /// the test instead of stalling it.
    #[test]
    fn a_pinned_view_refuses_a_fifo_gitignore_instead_of_blocking_on_it() {
        let built = Golden::new().build();
        let pinned =
            gatebench_gittree::pinned::Pinned::now(built.path(), Path::new(".git")).unwrap();
        built.write("docs/x.md", "x\n");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            built.path().join("docs/.gitignore"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        let path = built.path().to_path_buf();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let opened = RepoView::open_with(&path, "main", Some(&pinned));
            tx.send(opened.err().map(|e| e.message)).unwrap();
        });
        let refused = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("the view returned")
            .expect("the view is refused");
        assert!(
            refused.contains("docs/.gitignore is not a regular file"),
            "{refused}"
        );
    }
}
