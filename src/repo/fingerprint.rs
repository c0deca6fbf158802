//! The read-only check: a fingerprint of a repository (HEAD, every ref, the index entries, every
//! file of `.git`, and the work tree including untracked files that are not ignored), taken before
//! and after each verification round. What differs is what the pipeline changed: a verifier must
//! not fix what it judges.
//!
//! The index is compared by its entries (path, mode, blob id, stage), not its bytes: `git status`
//! refreshes the index's stat cache and rewrites the file without changing what it says, and a
//! read-only verifier may well run it.
//!
//! `.git` is walked whole, without following a link (keys `.git/<path>`): the configuration,
//! `info/exclude`, `shallow`, hooks, refs, logs and objects by content, so an object deleted,
//! added or a pack corrupted is a change. A file under `objects/` is hashed once a trial while its
//! identity (inode, size, modification and change times) stays the same: git never rewrites an
//! object file in place, any write gives it a new change time, which no process can set back,
//! and hashing every pack twice a round would double what the walk reads. (Its times alone are
//! no key: git and libgit2 touch an object they would write again, "freshening" it.) A link, FIFO, socket or device in `.git` is recorded by its kind, and
//! libgit2 is then not asked for HEAD, the refs or the index (it would follow the link or block
//! on the FIFO).
//!
//! Which untracked files are ignored is not the repository's to say unnoticed: the repository is
//! opened pinned (`gatebench_gittree::pinned`: an empty configuration, so no `core.excludesFile`;
//! `.git/info/exclude` is one of `.git`'s files), and every `.gitignore` the walk reaches is an
//! entry even when a rule ignores it: a new folder whose `.gitignore` ignores itself (`*`) is a
//! change. Ignored folders are still not walked: a verifier builds and tests, and its outputs
//! (`build/`, `__pycache__/`, the loop's state folder) land where the repository's own rules,
//! as they were before the round, say they may.

use std::collections::BTreeMap;
use std::ffi::{CStr, CString};
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use gatebench_gittree::pinned::Pinned;
use git2::Repository;
use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};
use sha2::{Digest, Sha256};

/// What a repository holds, by key (`HEAD`, `refs/...`, `index:<path>`, `<path>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoFingerprint {
    entries: BTreeMap<String, String>,
}

impl RepoFingerprint {
    /// The keys whose value differs between `self` (before) and `after`, sorted.
    pub fn changed(&self, after: &RepoFingerprint) -> Vec<String> {
        let mut keys: Vec<String> = self
            .entries
            .iter()
            .filter(|(k, v)| after.entries.get(*k) != Some(*v))
            .map(|(k, _)| k.clone())
            .chain(
                after
                    .entries
                    .keys()
                    .filter(|k| !self.entries.contains_key(*k))
                    .cloned(),
            )
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }
}

/// Fingerprints the repository whose work tree is `work_dir` (and whose `.git` is there), pinned
/// as it is now.
pub fn take(work_dir: &Path) -> Result<RepoFingerprint, String> {
    let pinned = Pinned::now(work_dir, Path::new(".git")).map_err(|e| e.to_string())?;
    Fingerprinter::open(&pinned, work_dir)?.take()
}

/// A repository opened once for every fingerprint of a trial. Each [`Fingerprinter::take`] reads
/// HEAD, the refs, the index and the work tree from disk again; what is shared is the open (the
/// repository's folders found, its configuration read), a fifth of a fingerprint's cost in a
/// profile of Loom trials.
pub struct Fingerprinter {
    repo: Repository,
    work_dir: PathBuf,
    /// The folder whose `.git` is walked: the work tree, or the main repository of a linked
    /// worktree.
    root: PathBuf,
    /// The hash of each object file read so far, by its identity.
    objects: ObjectHashes,
}

/// Object files' hashes by (device, inode, size, modification time, change time).
type ObjectHashes = std::cell::RefCell<std::collections::HashMap<[i64; 7], String>>;

impl Fingerprinter {
    /// Opens the repository as `pinned` fixed it (`Pinned::open`: its own configuration never
    /// read), with `work_dir` its work tree.
    pub fn open(pinned: &Pinned, work_dir: &Path) -> Result<Fingerprinter, String> {
        let repo = pinned
            .open(work_dir)
            .map_err(|e| format!("open the repository: {e}"))?;
        Ok(Fingerprinter {
            repo,
            work_dir: work_dir.to_path_buf(),
            root: pinned.root.clone(),
            objects: ObjectHashes::default(),
        })
    }

    /// `.git`'s entries (keys `.git/<path>`), read from the disk whatever the fingerprint; whether
    /// libgit2 may read it (no link, FIFO, socket or device in it).
    fn git_entries(
        &self,
        entries: &mut BTreeMap<String, String>,
        budget: &Budget,
    ) -> Result<bool, String> {
        let mut block = vec![0u8; 64 * 1024];
        match crate::repo::remove::open_dir(rustix::fs::CWD, self.root.join(".git")) {
            Ok(dir) => walk_git(dir, ".git", entries, &mut block, &self.objects, budget),
            Err(e) => {
                let what = match rustix::fs::readlinkat(
                    rustix::fs::CWD,
                    self.root.join(".git"),
                    Vec::new(),
                ) {
                    Ok(target) => format!("link {}", target.to_string_lossy()),
                    Err(_) => format!("unreadable {}", std::io::Error::from(e)),
                };
                entries.insert(".git".to_owned(), what);
                Ok(false)
            }
        }
    }

    /// The repository as it is on disk now.
    pub fn take(&self) -> Result<RepoFingerprint, String> {
        let repo = &self.repo;
        let mut entries = BTreeMap::new();
        let budget = Budget::new();
        if !self.git_entries(&mut entries, &budget)? {
            // libgit2 would follow a link to anywhere or block on a FIFO: the refs and the index
            // are not read. The entries of `.git` already differ.
            entries.insert(
                "HEAD".to_owned(),
                "unreadable: .git holds a link or a special file".to_owned(),
            );
            self.walk_work_tree(&Tracked::default(), false, &mut entries, &budget)?;
            return Ok(RepoFingerprint { entries });
        }
        let head = match repo.head() {
            Ok(h) => format!(
                "{} {}",
                h.name().unwrap_or("?"),
                h.target().map(|t| t.to_string()).unwrap_or_default()
            ),
            Err(e) => format!("unreadable: {}", e.message()),
        };
        entries.insert("HEAD".to_owned(), head);
        let refs = repo
            .references()
            .map_err(|e| format!("list the refs: {e}"))?;
        for r in refs.flatten() {
            let target = r
                .target()
                .map(|t| t.to_string())
                .or_else(|| r.symbolic_target().ok().flatten().map(str::to_owned))
                .unwrap_or_default();
            if let Ok(name) = r.name() {
                entries.insert(name.to_owned(), target);
            }
        }
        let mut index = repo.index().map_err(|e| format!("read the index: {e}"))?;
        // The repository keeps the index it first read: read it again, whatever its stat data
        // says (a rewrite within the same clock tick and of the same size would look unchanged).
        index
            .read(true)
            .map_err(|e| format!("read the index: {e}"))?;
        let mut tracked = Tracked::default();
        for e in index.iter() {
            let path = String::from_utf8_lossy(&e.path).into_owned();
            let stage = (e.flags >> 12) & 0x3;
            entries.insert(
                format!("index:{path}"),
                format!("{:o} {} {stage}", e.mode, e.id),
            );
            let mut dir = path.as_str();
            while let Some((parent, _)) = dir.rsplit_once('/') {
                tracked.dirs.insert(parent.to_owned());
                dir = parent;
            }
            tracked.files.insert(path);
        }
        self.walk_work_tree(&tracked, true, &mut entries, &budget)?;
        Ok(RepoFingerprint { entries })
    }

    /// The work tree's entries into `entries` (`ask_ignored`: whether libgit2 may be asked which
    /// untracked paths are ignored), and the read limit's entry when it was reached.
    fn walk_work_tree(
        &self,
        tracked: &Tracked,
        ask_ignored: bool,
        entries: &mut BTreeMap<String, String>,
        budget: &Budget,
    ) -> Result<(), String> {
        // One read buffer for every file of the walk (zeroing 64 KiB a file was 1% of a loop
        // trial's samples).
        let mut block = vec![0u8; 64 * 1024];
        // The work tree itself may be reached through a link, as a path is; a folder found in
        // it is opened without following one (`remove::open_dir`).
        let root = std::fs::File::open(&self.work_dir)
            .and_then(|f| Ok(Dir::new(f)?))
            .map_err(|e| format!("read {}: {e}", self.work_dir.display()))?;
        let walked = Walk {
            repo: &self.repo,
            tracked,
            skip_git: self.root == self.work_dir,
            ask_ignored,
            budget,
        };
        walked.walk(root, Path::new(""), entries, &mut block)?;
        budget.note(entries);
        Ok(())
    }
}

/// What the materializer has just written into a repository, enough to fingerprint it without
/// reading it back: the branch HEAD is on, every ref, the index's entries (regular files, stage
/// 0) and the work tree's files. Only for a repository written whole by gatebench (no linked
/// worktree, no index written by libgit2), where the materializer's test checks it against
/// [`Fingerprinter::take`] for every bundled fixture.
#[derive(Debug, Clone)]
pub struct Written {
    /// The ref HEAD points at: one of `refs`.
    pub head: String,
    pub refs: Vec<(String, git2::Oid)>,
    pub index: Vec<(String, git2::Oid)>,
}

impl Fingerprinter {
    /// The fingerprint [`Fingerprinter::take`] would read from a repository as `written` left it,
    /// with `work_tree` its files (path, content), computed in memory: untracked files are
    /// checked against the repository's ignore rules as `take` checks them, nothing else is read.
    pub fn as_written<'a>(
        &self,
        written: &Written,
        work_tree: impl Iterator<Item = (&'a str, &'a [u8])>,
    ) -> Result<RepoFingerprint, String> {
        let mut entries = BTreeMap::new();
        // `.git` is read: it is a handful of files, and what libgit2 wrote into it is not known.
        self.git_entries(&mut entries, &Budget::new())?;
        for (name, id) in &written.refs {
            entries.insert(name.clone(), id.to_string());
            if *name == written.head {
                entries.insert("HEAD".to_owned(), format!("{name} {id}"));
            }
        }
        let mut tracked = std::collections::HashSet::new();
        for (path, id) in &written.index {
            let mode = gatebench_gittree::MODE_FILE;
            entries.insert(format!("index:{path}"), format!("{mode:o} {id} 0"));
            tracked.insert(path.as_str());
        }
        for (path, content) in work_tree {
            if !tracked.contains(path) {
                // A `.gitignore` is an entry unless the folder it is in is ignored (the walk never
                // enters one), as `take` records it.
                let asked = match path.rsplit_once('/') {
                    Some((folder, ".gitignore")) => Some(format!("{folder}/")),
                    None if path == ".gitignore" => None,
                    _ => Some(path.to_owned()),
                };
                let ignored = match asked {
                    Some(asked) => self
                        .repo
                        .is_path_ignored(&asked)
                        .map_err(|e| format!("check whether {path} is ignored: {e}"))?,
                    None => false,
                };
                if ignored {
                    continue;
                }
            }
            let hex = gatebench_gittree::hex(&Sha256::digest(content));
            entries.insert(path.to_owned(), format!("file {hex}"));
        }
        Ok(RepoFingerprint { entries })
    }
}

/// What the index tracks: files, and every folder that holds one. Tracked paths are never
/// ignored, so only the others need libgit2's (slower) ignore lookup.
#[derive(Default)]
struct Tracked {
    files: std::collections::HashSet<String>,
    dirs: std::collections::HashSet<String>,
}

/// Lists the folder `dir`: its entries' names and kinds, sorted by name, `.` and `..` left out; an
/// entry whose kind its file system does not list is asked, without following a link (and left
/// out when it cannot be).
fn listing(dir: &mut Dir) -> Vec<(CString, FileType)> {
    let mut children: Vec<(CString, FileType)> = Vec::new();
    while let Some(entry) = dir.read() {
        // An entry that cannot be read is skipped, as the walk over std's listing skipped it.
        let Ok(entry) = entry else {
            continue;
        };
        let name = entry.file_name();
        if name == c"." || name == c".." {
            continue;
        }
        children.push((name.to_owned(), entry.file_type()));
    }
    children.sort_by(|a, b| a.0.cmp(&b.0));
    children
}

fn kind_of(parent: BorrowedFd<'_>, name: &CStr, listed: FileType) -> Option<FileType> {
    match listed {
        FileType::Unknown => rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW)
            .ok()
            .map(|stat| FileType::from_raw_mode(stat.st_mode)),
        kind => Some(kind),
    }
}

/// What one entry that is not a folder is recorded as: a link by its target (never followed), a
/// regular file by its content and executable bit, anything else by its kind (a FIFO, a socket
/// or a device is never opened: opening a FIFO blocks until someone writes, and reading a device
/// may never end).
fn leaf(
    parent: BorrowedFd<'_>,
    name: &CStr,
    kind: FileType,
    block: &mut [u8],
    budget: &Budget,
) -> String {
    match kind {
        FileType::Symlink => {
            let target = rustix::fs::readlinkat(parent, name, Vec::new())
                .map(|t| t.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("link {target}")
        }
        FileType::RegularFile => match hash_regular(parent, name, block, budget) {
            Ok(Hashed::Read(hex, executable)) => {
                format!("file {}{hex}", if executable { "x " } else { "" })
            }
            Ok(Hashed::Unread(size, ctime)) => format!("file unread {size} {ctime}"),
            Err(e) => format!("unreadable {e}"),
        },
        other => format!("special {}", special_kind(other)),
    }
}

/// How the work tree is walked.
struct Walk<'a> {
    repo: &'a Repository,
    tracked: &'a Tracked,
    /// Whether the work tree's top `.git` is the git dir (walked on its own, by `walk_git`), not
    /// a linked worktree's `.git` file (an entry like any other).
    skip_git: bool,
    /// Whether libgit2 may be asked which untracked paths are ignored (not when `.git` holds a
    /// link or a special file: everything is then an entry).
    ask_ignored: bool,
    /// What the fingerprint may still read.
    budget: &'a Budget,
}

impl Walk<'_> {
    /// Fingerprints the folder `dir` lists (`rel` below the work tree) into `entries`. The walk
    /// goes through descriptors, each folder listed from its own and each entry opened relative
    /// to it (no lookup of every folder on a full path, no C directory stream, as `remove.rs` and
    /// the gate's view do); an entry's kind is the one its folder lists.
    fn walk(
        &self,
        dir: Dir,
        rel: &Path,
        entries: &mut BTreeMap<String, String>,
        block: &mut [u8],
    ) -> Result<(), String> {
        self.walk_folder(dir, rel, self.ask_ignored, entries, block)
    }

    /// [`walk`](Self::walk) of one folder; `ask_ignored`: whether libgit2 may be asked about its
    /// entries (every `.gitignore` it would read for them, this folder's and its parents', is a
    /// regular file).
    fn walk_folder(
        &self,
        mut dir: Dir,
        rel: &Path,
        ask_ignored: bool,
        entries: &mut BTreeMap<String, String>,
        block: &mut [u8],
    ) -> Result<(), String> {
        let listed = |e: std::io::Error| format!("read {}: {e}", rel.display());
        let children = listing(&mut dir);
        let parent = dir.fd().map_err(|e| listed(e.into()))?;
        // libgit2 reads this folder's `.gitignore` to answer for its entries, following a link
        // and blocking on a FIFO: unless it is a regular file (or absent), it is not asked here.
        let ask_ignored = ask_ignored
            && children
                .iter()
                .find(|(name, _)| name.as_c_str() == c".gitignore")
                .is_none_or(|(name, kind)| {
                    kind_of(parent, name, *kind) == Some(FileType::RegularFile)
                });
        for (name, kind) in children {
            let name_os = std::ffi::OsStr::from_bytes(name.to_bytes());
            if self.skip_git && rel.as_os_str().is_empty() && name_os == ".git" {
                continue;
            }
            let Some(kind) = kind_of(parent, &name, kind) else {
                continue;
            };
            let path = rel.join(name_os);
            let key = path.to_string_lossy().into_owned();
            let known = if kind == FileType::Directory {
                self.tracked.dirs.contains(&key)
            } else {
                // A `.gitignore` is always an entry: a rule that ignores its own file (a new
                // folder holding `.gitignore` with `*`) would otherwise hide the folder unseen.
                // So is a link: libgit2 follows it to ask whether a folder rule (`state/`)
                // matches, where git takes a link for a file (a link replacing an ignored folder
                // is a change).
                name_os == ".gitignore"
                    || kind == FileType::Symlink
                    || self.tracked.files.contains(&key)
            };
            if !known && ask_ignored && self.repo.is_path_ignored(&path).unwrap_or(false) {
                continue;
            }
            if kind == FileType::Directory {
                let sub = crate::repo::remove::open_dir(parent, &*name)
                    .map_err(|e| format!("read {}: {}", path.display(), std::io::Error::from(e)))?;
                self.walk_folder(sub, &path, ask_ignored, entries, block)?;
            } else {
                entries.insert(key, leaf(parent, &name, kind, block, self.budget));
            }
        }
        Ok(())
    }
}

/// Fingerprints everything in the git dir folder `dir` (`rel`, `.git` at the top) into
/// `entries`, never following a link; whether it holds only regular files and folders.
fn walk_git(
    mut dir: Dir,
    rel: &str,
    entries: &mut BTreeMap<String, String>,
    block: &mut [u8],
    objects: &ObjectHashes,
    budget: &Budget,
) -> Result<bool, String> {
    let children = listing(&mut dir);
    let parent = dir
        .fd()
        .map_err(|e| format!("read {rel}: {}", std::io::Error::from(e)))?;
    let mut plain = true;
    for (name, kind) in children {
        let Some(kind) = kind_of(parent, &name, kind) else {
            continue;
        };
        let key = format!("{rel}/{}", name.to_string_lossy());
        match kind {
            FileType::Directory => {
                let sub = crate::repo::remove::open_dir(parent, &*name)
                    .map_err(|e| format!("read {key}: {}", std::io::Error::from(e)))?;
                plain &= walk_git(sub, &key, entries, block, objects, budget)?;
            }
            // The index is compared by its entries (`index:<path>`), not its bytes: `git status`
            // rewrites its stat cache. The main checkout's and each linked worktree's.
            FileType::RegularFile if is_index(&key) => {}
            FileType::RegularFile if key.starts_with(".git/objects/") => {
                let value = match rustix::fs::statat(parent, &*name, AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(st) => {
                        let identity = [
                            st.st_dev as i64,
                            st.st_ino as i64,
                            st.st_size,
                            st.st_mtime,
                            st.st_mtime_nsec as i64,
                            st.st_ctime,
                            st.st_ctime_nsec as i64,
                        ];
                        let known = objects.borrow().get(&identity).cloned();
                        known.unwrap_or_else(|| {
                            let value = leaf(parent, &name, FileType::RegularFile, block, budget);
                            objects.borrow_mut().insert(identity, value.clone());
                            value
                        })
                    }
                    Err(e) => format!("unreadable {}", std::io::Error::from(e)),
                };
                entries.insert(key, value);
            }
            kind => {
                plain &= kind == FileType::RegularFile;
                entries.insert(key, leaf(parent, &name, kind, block, budget));
            }
        }
    }
    Ok(plain)
}

/// Whether a key of `.git` is an index: the main checkout's, or a linked worktree's.
fn is_index(key: &str) -> bool {
    key == ".git/index"
        || key
            .strip_prefix(".git/worktrees/")
            .and_then(|rest| rest.split_once('/'))
            .is_some_and(|(_, file)| file == "index")
}

/// The sha256 of a regular file, read in blocks (bounded memory), and whether it is executable;
/// over the read limits ([`Budget`]), its size and change time, unread. Opened without following
/// a link and without blocking, and checked to be a regular file on the open descriptor: a file
/// swapped for a FIFO after the directory was listed is not read either.
fn hash_regular(
    parent: BorrowedFd<'_>,
    name: &CStr,
    block: &mut [u8],
    budget: &Budget,
) -> std::io::Result<Hashed> {
    let fd = rustix::fs::openat(
        parent,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let stat = rustix::fs::fstat(&fd)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Err(std::io::Error::other("not a regular file"));
    }
    let size = stat.st_size as u64;
    if size > MAX_READ_FILE_BYTES || size > budget.left.get() {
        budget
            .exhausted
            .set(budget.exhausted.get() | (size <= MAX_READ_FILE_BYTES));
        let ctime = format!("{}.{:09}", stat.st_ctime, stat.st_ctime_nsec);
        return Ok(Hashed::Unread(size, ctime));
    }
    budget.left.set(budget.left.get() - size);
    let mut hasher = Sha256::new();
    let mut read: u64 = 0;
    // Once the size the descriptor was opened at is read, a read to learn of the end costs a
    // system call and tells nothing more: a file still growing differs between two fingerprints
    // either way.
    while read < size {
        match rustix::io::read(&fd, &mut *block) {
            Ok(0) => break,
            Ok(n) => {
                hasher.update(&block[..n]);
                read += n as u64;
            }
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let executable = stat.st_mode & 0o111 != 0;
    Ok(Hashed::Read(
        gatebench_gittree::hex(&hasher.finalize()),
        executable,
    ))
}

/// A regular file's fingerprint: its sha256 and executable bit, or, over the read limits, its size
/// and change time (`ctime`: set by the kernel on every write, no process can set it back).
enum Hashed {
    Read(String, bool),
    Unread(u64, String),
}

/// The largest file the fingerprint reads: larger ones are fingerprinted by their size and change
/// time, unread. No fixture file, and no file a fix commits, comes near it (16 MiB), so where such
/// a file is, the pipeline put it, and it is a change whatever its content: reading a sparse file
/// of a terabyte would otherwise take hours, with no timeout.
pub const MAX_READ_FILE_BYTES: u64 = 64 << 20;
/// The most bytes one fingerprint reads in all (`.git` and the work tree); past it, files are
/// fingerprinted unread as above, and an entry says the limit was reached (so the fingerprint
/// differs from any a fixture or a fix can give: neither comes near it).
pub const MAX_READ_TREE_BYTES: u64 = 2 << 30;

/// What one fingerprint has read so far, against [`MAX_READ_TREE_BYTES`].
struct Budget {
    left: std::cell::Cell<u64>,
    exhausted: std::cell::Cell<bool>,
}

impl Budget {
    fn new() -> Budget {
        Budget {
            left: std::cell::Cell::new(MAX_READ_TREE_BYTES),
            exhausted: std::cell::Cell::new(false),
        }
    }

    /// The entry that says the limit was reached, when it was.
    fn note(&self, entries: &mut BTreeMap<String, String>) {
        if self.exhausted.get() {
            // Not a path (it has no slash and starts with `!`, which no entry of the walk does).
            entries.insert(
                "!read-limit".into(),
                format!("more than {MAX_READ_TREE_BYTES} bytes read"),
            );
        }
    }
}

fn special_kind(kind: FileType) -> &'static str {
    match kind {
        FileType::Fifo => "fifo",
        FileType::Socket => "socket",
        FileType::BlockDevice => "block-device",
        FileType::CharacterDevice => "char-device",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests;
