//! `gatebench import`, reading the source repository: the base and head commits resolved, each
//! layer's files read with git2 (commits' trees, the index, the work tree's tracked and untracked
//! files), a file over its read limit never read whole.

use std::collections::BTreeMap;
use std::path::Path;

use git2::{ObjectType, Oid, Repository};
use globset::GlobSet;

use crate::corpus::import::{ImportOptions, Imported};
use crate::error::{Error, Result};
use gatebench_gittree as gittree;

/// The layers of `opts`: base and head, then the index (`staged`) and the work tree
/// (`unstaged`) when asked for; files that cannot be read as fixture files are recorded in
/// `imported` as left out.
pub(crate) fn read_layers(
    repo: &Repository,
    opts: &ImportOptions,
    limit: &ReadLimit<'_>,
    imported: &mut Imported,
) -> Result<Vec<Source>> {
    let head_spec = opts.head.as_deref().unwrap_or("HEAD");
    let head_commit = resolve_commit(repo, head_spec, &opts.repo)?;
    let base_commit = match &opts.base {
        Some(spec) => resolve_commit(repo, spec, &opts.repo)?,
        None => default_base(repo, head_commit, &opts.repo)?,
    };
    imported.base_commit = base_commit.to_string();
    imported.head_commit = head_commit.to_string();
    let mut sources = vec![
        committed(repo, LayerKind::Base, base_commit, limit, imported)?,
        committed(repo, LayerKind::Head, head_commit, limit, imported)?,
    ];
    if opts.staged || opts.unstaged {
        if repo.is_bare() {
            return Err(Error::invalid(
                &opts.repo,
                "a bare repository has no index or work tree: --staged and --unstaged need one",
            ));
        }
        let index = index_tree(repo, limit, imported)?;
        if opts.staged {
            sources.push(uncommitted(LayerKind::Staged, index.clone()));
        }
        if opts.unstaged {
            let work = work_tree(repo, &index, limit, imported)?;
            sources.push(uncommitted(LayerKind::Unstaged, work));
        }
    }
    Ok(sources)
}

/// How a file was stored in the source repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Plain,
    Executable,
    Symlink,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Empty when the file is over its read limit ([`ReadLimit`]): it is left out unread.
    pub(crate) content: Vec<u8>,
    pub(crate) mode: Mode,
    /// The file's size, known before its content is read.
    pub(crate) size: u64,
    /// Its git blob id (for the source tree's id, which counts files left out too).
    pub(crate) blob: Oid,
}

/// How much of a file is read: a file over the limit is left out, so it is never read whole (its
/// size comes from the object database's header or from fstat first). Files `--allow` names are
/// read up to the largest file a fixture can hold.
pub(crate) struct ReadLimit<'a> {
    pub(crate) max_file_size: u64,
    pub(crate) allow: &'a GlobSet,
}

impl ReadLimit<'_> {
    fn of(&self, path: &str) -> u64 {
        if self.allow.is_match(path) {
            crate::corpus::loader::compose::MAX_FILE_BYTES
        } else {
            self.max_file_size
        }
    }
}

pub(crate) type Tree = BTreeMap<String, Entry>;

/// Which earlier layers a layer's placeholders may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub(crate) enum LayerKind {
    Base,
    Head,
    Staged,
    Unstaged,
}

impl LayerKind {
    pub(crate) fn name(self) -> &'static str {
        self.into()
    }
}

/// One layer as read from the repository, and the ids its files may record.
pub(crate) struct Source {
    pub(crate) kind: LayerKind,
    pub(crate) files: Tree,
    /// The commit and its tree, for committed layers.
    pub(crate) commit: Option<(Oid, Oid)>,
    /// `gittree::source_tree_id` of the layer's files as they are in the repository.
    pub(crate) source_tree: String,
}

fn resolve_commit(repo: &Repository, spec: &str, dir: &Path) -> Result<Oid> {
    let object = repo
        .revparse_single(spec)
        .map_err(|e| Error::invalid(dir, format!("`{spec}` names no commit: {}", e.message())))?;
    let commit = object
        .peel_to_commit()
        .map_err(|e| Error::invalid(dir, format!("`{spec}` is not a commit: {}", e.message())))?;
    Ok(commit.id())
}

/// The merge base of the head with `main` (or `master` when there is no `main`).
fn default_base(repo: &Repository, head: Oid, dir: &Path) -> Result<Oid> {
    for branch in ["main", "master"] {
        let Ok(reference) = repo.find_branch(branch, git2::BranchType::Local) else {
            continue;
        };
        let Some(target) = reference.get().target() else {
            continue;
        };
        return repo.merge_base(head, target).map_err(|e| {
            Error::invalid(
                dir,
                format!(
                    "the head and `{branch}` have no merge base ({}); pass --base",
                    e.message()
                ),
            )
        });
    }
    Err(Error::invalid(
        dir,
        "no `main` or `master` branch to take the merge base with; pass --base REF",
    ))
}

fn mode_of(filemode: u32) -> Option<Mode> {
    match filemode & 0o170000 {
        0o100000 if filemode & 0o111 != 0 => Some(Mode::Executable),
        0o100000 => Some(Mode::Plain),
        0o120000 => Some(Mode::Symlink),
        _ => None,
    }
}

fn committed(
    repo: &Repository,
    kind: LayerKind,
    commit: Oid,
    limit: &ReadLimit<'_>,
    imported: &mut Imported,
) -> Result<Source> {
    let odb = repo
        .odb()
        .map_err(|e| Error::git("open the object database", e))?;
    let commit_obj = repo
        .find_commit(commit)
        .map_err(|e| Error::git("find a commit", e))?;
    let tree = commit_obj
        .tree()
        .map_err(|e| Error::git("read a commit's tree", e))?;
    let mut files = Tree::new();
    let mut failed = None;
    tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
        let name = String::from_utf8_lossy(entry.name_bytes());
        let path = format!("{dir}{name}");
        match entry.kind() {
            Some(ObjectType::Tree) => return git2::TreeWalkResult::Ok,
            Some(ObjectType::Blob) => {}
            _ => {
                imported
                    .left_out
                    .push((path, "a submodule: fixtures hold files only".into()));
                return git2::TreeWalkResult::Ok;
            }
        }
        if std::str::from_utf8(entry.name_bytes()).is_err()
            || std::str::from_utf8(dir.as_bytes()).is_err()
        {
            imported
                .left_out
                .push((path, "a file name that is not UTF-8".into()));
            return git2::TreeWalkResult::Ok;
        }
        let mode = mode_of(entry.filemode() as u32).unwrap_or(Mode::Plain);
        match read_blob(repo, &odb, entry.id(), limit.of(&path)) {
            Ok((content, size)) => {
                files.insert(
                    path,
                    Entry {
                        content,
                        mode,
                        size,
                        blob: entry.id(),
                    },
                );
                git2::TreeWalkResult::Ok
            }
            Err(e) => {
                failed = Some(e);
                git2::TreeWalkResult::Abort
            }
        }
    })
    .map_err(|e| Error::git("walk a tree", e))?;
    if let Some(e) = failed {
        return Err(Error::git("read a blob", e));
    }
    let source_tree = source_tree_of(&files);
    Ok(Source {
        kind,
        files,
        commit: Some((commit, tree.id())),
        source_tree,
    })
}

fn uncommitted(kind: LayerKind, files: Tree) -> Source {
    let source_tree = source_tree_of(&files);
    Source {
        kind,
        files,
        commit: None,
        source_tree,
    }
}

fn source_tree_of(files: &Tree) -> String {
    gittree::source_tree_id_of_blobs(files.iter().map(|(p, e)| (p.as_str(), e.blob))).to_string()
}

/// A blob's content and size, its content only when its size (from the object's header, read
/// first) is within `limit`.
fn read_blob(
    repo: &Repository,
    odb: &git2::Odb<'_>,
    id: Oid,
    limit: u64,
) -> std::result::Result<(Vec<u8>, u64), git2::Error> {
    let (size, _) = odb.read_header(id)?;
    let size = size as u64;
    if size > limit {
        return Ok((Vec::new(), size));
    }
    Ok((repo.find_blob(id)?.content().to_vec(), size))
}

/// The files of the index (stage 0); a conflicted index is refused.
fn index_tree(repo: &Repository, limit: &ReadLimit<'_>, imported: &mut Imported) -> Result<Tree> {
    let index = repo.index().map_err(|e| Error::git("read the index", e))?;
    let odb = repo
        .odb()
        .map_err(|e| Error::git("open the object database", e))?;
    let mut files = Tree::new();
    for entry in index.iter() {
        let path = String::from_utf8_lossy(&entry.path).into_owned();
        if (entry.flags >> 12) & 0x3 != 0 {
            return Err(Error::invalid(
                repo.path(),
                format!("the index has a merge conflict at `{path}`; resolve it before importing the staged layer"),
            ));
        }
        if std::str::from_utf8(&entry.path).is_err() {
            imported
                .left_out
                .push((path, "a file name that is not UTF-8".into()));
            continue;
        }
        let Some(mode) = mode_of(entry.mode) else {
            imported
                .left_out
                .push((path, "a submodule: fixtures hold files only".into()));
            continue;
        };
        let (content, size) = read_blob(repo, &odb, entry.id, limit.of(&path))
            .map_err(|e| Error::git(format!("read the staged {path}"), e))?;
        files.insert(
            path,
            Entry {
                content,
                mode,
                size,
                blob: entry.id,
            },
        );
    }
    Ok(files)
}

/// The work tree as the gate sees it: tracked files as they are on disk (a missing one is
/// deleted), and untracked files that are not ignored.
fn work_tree(
    repo: &Repository,
    index: &Tree,
    limit: &ReadLimit<'_>,
    imported: &mut Imported,
) -> Result<Tree> {
    let workdir = repo
        .workdir()
        .ok_or_else(|| Error::invalid(repo.path(), "the repository has no work tree"))?
        .to_path_buf();
    let mut files = Tree::new();
    for path in index.keys() {
        if let Some(entry) = read_work_file(&workdir.join(path), limit.of(path))? {
            files.insert(path.clone(), entry);
        }
    }
    let mut status_opts = git2::StatusOptions::new();
    status_opts
        .include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false);
    let statuses = repo
        .statuses(Some(&mut status_opts))
        .map_err(|e| Error::git("read the work tree status", e))?;
    for status in statuses.iter() {
        if !status.status().contains(git2::Status::WT_NEW) {
            continue;
        }
        let Ok(path) = status.path() else {
            imported.left_out.push((
                String::from_utf8_lossy(status.path_bytes()).into_owned(),
                "a file name that is not UTF-8".into(),
            ));
            continue;
        };
        if let Some(entry) = read_work_file(&workdir.join(path), limit.of(path))? {
            files.insert(path.to_owned(), entry);
        }
    }
    Ok(files)
}

/// A work-tree file: a link's target, or a regular file's content when its size (fstat on the
/// open descriptor, opened without following a link or blocking) is within `limit`; over it, only
/// its blob id, hashed in blocks (`crate::input` reads what is kept). Anything else is skipped.
fn read_work_file(abs: &Path, limit: u64) -> Result<Option<Entry>> {
    use crate::input::ReadError;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    let meta = match std::fs::symlink_metadata(abs) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("stat", abs, e)),
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(abs).map_err(|e| Error::io("read the link", abs, e))?;
        let content = target.as_os_str().as_bytes().to_vec();
        return Ok(Some(Entry {
            size: content.len() as u64,
            blob: gittree::blob_id(&content),
            content,
            mode: Mode::Symlink,
        }));
    }
    if !meta.is_file() {
        return Ok(None);
    }
    let mode = if meta.permissions().mode() & 0o111 != 0 {
        Mode::Executable
    } else {
        Mode::Plain
    };
    match crate::input::read(abs, limit, crate::input::Links::Refuse) {
        Ok(content) => Ok(Some(Entry {
            size: content.len() as u64,
            blob: gittree::blob_id(&content),
            content,
            mode,
        })),
        Err(ReadError::TooLarge { .. }) => {
            let (blob, size) = blob_id_streamed(abs)?;
            Ok(Some(Entry {
                content: Vec::new(),
                mode,
                size,
                blob,
            }))
        }
        // Replaced by something else since its kind was read: skipped, as anything not a file.
        Err(ReadError::Missing | ReadError::Link | ReadError::NotRegular(_)) => Ok(None),
        Err(ReadError::Io(e)) => Err(Error::io("read", abs, e)),
    }
}

/// The git blob id of a regular file, read in blocks (bounded memory, whatever its size).
fn blob_id_streamed(abs: &Path) -> Result<(Oid, u64)> {
    use sha1::{Digest, Sha1};
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(abs)
        .map_err(|e| Error::io("read", abs, e))?;
    let size = file
        .metadata()
        .map_err(|e| Error::io("stat", abs, e))?
        .len();
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {size}\0").as_bytes());
    let mut block = vec![0u8; 64 * 1024];
    let mut file = file.take(size);
    let mut read = 0u64;
    loop {
        let n = file
            .read(&mut block)
            .map_err(|e| Error::io("read", abs, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&block[..n]);
        read += n as u64;
    }
    if read != size {
        return Err(Error::invalid(abs, "the file changed while it was read"));
    }
    Oid::from_bytes(&hasher.finalize())
        .map(|id| (id, size))
        .map_err(|e| Error::git("hash a file", e))
}
