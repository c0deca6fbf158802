//! Materializing a fixture into a real git repository, in-process with libgit2 and
//! deterministically: fixed author, committer and times, so that a fixture gives the same commit
//! and tree ids on every run and every machine.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use git2::{IndexEntry, IndexTime, ObjectType, Oid, Repository};

use crate::corpus::loader::placeholder::{self, Known, Stage};
use crate::corpus::{Blob, Composed, Files, Fixture};
use crate::error::{Error, Result};
use crate::repo::fingerprint::{Fingerprinter, RepoFingerprint, Written};
use crate::repo::pack::Pack;
use gatebench_gittree as gittree;
use gatebench_gittree::pinned::Pinned;

/// The branch the base layer is committed on.
pub const BASE_BRANCH: &str = "main";
/// The feature branch that holds the head layer and the fixes; HEAD points at it.
pub const FEATURE_BRANCH: &str = "feature";
/// 2026-01-01T00:00:00Z: the time of the base commit; later commits are a minute apart.
const EPOCH: i64 = 1_767_225_600;

/// A fixture built into a repository.
#[derive(Debug)]
pub struct Materialized {
    /// Where the pipeline runs: the repository's work tree (or the linked worktree).
    pub work_dir: PathBuf,
    /// The main repository (equal to `work_dir` unless the fixture uses a linked worktree).
    pub repo_dir: PathBuf,
    /// Commit ids by layer: `base`, `head`, `fix1`, ...
    pub commits: BTreeMap<String, String>,
    known: Known,
    /// What was written, for the first round's fingerprint (`None` once a fix is applied, and for
    /// a linked worktree or a staged layer, which libgit2 writes).
    written: Option<Written>,
    /// The files in the work tree now, as filled, and as the fixture wrote them.
    current: Files,
    current_raw: Files,
    /// The objects gatebench's packs hold: a fix's pack leaves them out.
    packed: HashSet<Oid>,
    /// The repository as materialized: its git dir and the files that steer libgit2's open
    /// (`.git/config` first). Every later open of the repository (the fingerprints, a fix, a
    /// fixer's commit, the in-process gate) goes through it: what a verifier or a fixer wrote
    /// into `.git` never chooses the work tree, the objects or the configuration gatebench uses.
    pub pinned: Pinned,
}

/// The bytes of a commit object as gatebench makes every commit: author and committer
/// `gatebench <gatebench@invalid>`, `minute` minutes after [`EPOCH`], UTC. One definition, for the
/// pack the materializer writes and for the commits of fixes alike.
fn commit_object(tree: Oid, parent: Option<Oid>, minute: i64, message: &str) -> Vec<u8> {
    let time = EPOCH + 60 * minute;
    let mut out = format!("tree {tree}\n");
    if let Some(parent) = parent {
        out.push_str(&format!("parent {parent}\n"));
    }
    out.push_str(&format!(
        "author gatebench <gatebench@invalid> {time} +0000\n\
         committer gatebench <gatebench@invalid> {time} +0000\n\n{message}"
    ));
    out.into_bytes()
}

fn index_entry(path: &str, id: Oid) -> IndexEntry {
    IndexEntry {
        ctime: IndexTime::new(0, 0),
        mtime: IndexTime::new(0, 0),
        dev: 0,
        ino: 0,
        mode: gittree::MODE_FILE,
        uid: 0,
        gid: 0,
        file_size: 0,
        id,
        flags: path.len().min(0xfff) as u16,
        flags_extended: 0,
        path: path.as_bytes().to_vec(),
    }
}

/// A layer's files stored as objects: the root tree, and each file's blob id in path order.
struct Stored<'a> {
    tree: Oid,
    blobs: Vec<(&'a str, Oid)>,
}

/// Stores `files` as blobs and trees through `store` (the pack being built, or a fix's pack of
/// the objects no pack holds yet), which returns each object's id.
fn store_tree<'a>(
    files: &'a Files,
    store: &mut dyn FnMut(ObjectType, &[u8]) -> Result<Oid>,
) -> Result<Stored<'a>> {
    let mut blobs = Vec::with_capacity(files.len());
    for (path, content) in files {
        blobs.push((path.as_str(), store(ObjectType::Blob, content)?));
    }
    let tree = gittree::build_trees(blobs.iter().copied(), &mut |bytes| {
        store(ObjectType::Tree, bytes)
    })?;
    Ok(Stored { tree, blobs })
}

/// Stores `files` in `pack`, which keeps each object once: most files are the same in every layer.
fn pack_tree<'a>(pack: &mut Pack, files: &'a Files) -> Stored<'a> {
    let stored = store_tree(files, &mut |kind, bytes| Ok(pack.insert(kind, bytes)));
    stored.expect("adding to a pack in memory cannot fail")
}

/// The files of tree `tree` in `repo` (path -> content).
pub fn tree_files(repo: &Repository, tree: Oid) -> Result<Files> {
    let tree = repo
        .find_tree(tree)
        .map_err(|e| Error::git("find a tree", e))?;
    let mut files = Files::new();
    let mut failed = None;
    let walked = tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
        if entry.kind() != Some(ObjectType::Blob) {
            return git2::TreeWalkResult::Ok;
        }
        match repo.find_blob(entry.id()) {
            Ok(blob) => {
                let name = String::from_utf8_lossy(entry.name_bytes());
                files.insert(format!("{dir}{name}"), Blob::from(blob.content()));
                git2::TreeWalkResult::Ok
            }
            Err(e) => {
                failed = Some(e);
                git2::TreeWalkResult::Abort
            }
        }
    });
    if let Some(e) = failed {
        return Err(Error::git("read a blob", e));
    }
    walked.map_err(|e| Error::git("walk a tree", e))?;
    Ok(files)
}

/// Writes a commit of `tree` on `branch` of `repo`, as [`commit_object`] makes it.
fn commit(
    repo: &Repository,
    branch: &str,
    tree: Oid,
    parent: Option<Oid>,
    minute: i64,
    message: &str,
) -> Result<Oid> {
    let odb = repo
        .odb()
        .map_err(|e| Error::git("open the object database", e))?;
    let id = odb
        .write(
            ObjectType::Commit,
            &commit_object(tree, parent, minute, message),
        )
        .map_err(|e| Error::git(format!("commit on {branch}"), e))?;
    move_branch(repo, branch, id, message)?;
    Ok(id)
}

/// Points `branch` of `repo` at commit `id`, with the commit's `message` in its reflog.
fn move_branch(repo: &Repository, branch: &str, id: Oid, message: &str) -> Result<()> {
    repo.reference(
        &format!("refs/heads/{branch}"),
        id,
        true,
        message.trim_end(),
    )
    .map_err(|e| Error::git(format!("move {branch}"), e))?;
    Ok(())
}

/// The minimal repository git and libgit2 recognize, around objects already written: `HEAD` on
/// `head_branch`, the configuration `git init` writes, and one loose ref per branch.
fn init_git_dir(git_dir: &Path, head_branch: &str, branches: &[(&str, Oid)]) -> Result<()> {
    let heads = git_dir.join("refs/heads");
    std::fs::create_dir_all(&heads).map_err(|e| Error::io("create", &heads, e))?;
    let files = [
        (
            git_dir.join("config"),
            "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\
             \tlogallrefupdates = true\n"
                .to_owned(),
        ),
        (
            git_dir.join("HEAD"),
            format!("ref: refs/heads/{head_branch}\n"),
        ),
    ];
    let refs = branches
        .iter()
        .map(|(name, id)| (heads.join(name), format!("{id}\n")));
    for (path, content) in files.into_iter().chain(refs) {
        std::fs::write(&path, content).map_err(|e| Error::io("write", &path, e))?;
    }
    Ok(())
}

/// Fills the placeholders of a layer. `previous` is the layer before it, as written (raw) and as
/// filled: a file this layer carries over byte for byte keeps its filled content.
fn resolve(
    fixture: &Fixture,
    stage: Stage,
    files: &Files,
    previous: Option<(&Files, &Files)>,
    known: &Known,
) -> Result<Files> {
    let carried: Files = match previous {
        Some((raw, filled)) => files
            .iter()
            .filter(|(path, content)| raw.get(*path) == Some(*content))
            .filter_map(|(path, _)| filled.get(path).map(|c| (path.clone(), c.clone())))
            .collect(),
        None => Files::new(),
    };
    placeholder::resolve(files, &carried, known).map_err(|message| {
        Error::invalid(
            &fixture.file,
            format!("layer `{}`: {message}", stage.name()),
        )
    })
}

/// Builds `fixture` into a new repository at `dir` (which must not exist or be empty).
///
/// The base and head commits, their trees and blobs are hashed in memory and written as one pack
/// ([`Pack`]); the repository around them is the few files git needs. The work tree and an index
/// that matches it (stat data included, so git sees it clean) come next; the staged and unstaged
/// layers and the linked worktree go through libgit2. The fixture is composed first (see
/// [`materialize_composed`] for trees composed already).
pub fn materialize(fixture: &Fixture, dir: &Path) -> Result<Materialized> {
    materialize_composed(fixture, &*fixture.compose()?, dir)
}

/// [`materialize`] with the fixture's trees given (`fixture.compose()`).
pub fn materialize_composed(
    fixture: &Fixture,
    trees: &Composed,
    dir: &Path,
) -> Result<Materialized> {
    let mut known = Known::default();
    let mut commits = BTreeMap::new();
    let mut pack = Pack::new();

    let states = &trees.states;
    let base = resolve(fixture, Stage::Base, &states.base, None, &known)?;
    let (base_tree, base_commit) = commit_layer(&mut pack, &mut known, &base, None);
    commits.insert("base".to_owned(), base_commit.to_string());

    let head = resolve(
        fixture,
        Stage::Head,
        &states.head,
        Some((&states.base, &base)),
        &known,
    )?;
    let (head_tree, head_commit) = commit_layer(&mut pack, &mut known, &head, Some(base_commit));
    commits.insert("head".to_owned(), head_commit.to_string());

    let git_dir = dir.join(".git");
    // A linked worktree takes the feature branch; the main checkout then stays on `main`.
    let checked_out = if fixture.worktree {
        BASE_BRANCH
    } else {
        FEATURE_BRANCH
    };
    init_git_dir(
        &git_dir,
        checked_out,
        &[(BASE_BRANCH, base_commit), (FEATURE_BRANCH, head_commit)],
    )?;
    let packed: HashSet<Oid> = pack.ids().collect();
    pack.write(&git_dir.join("objects"))?;

    let work_dir = if fixture.worktree {
        checkout(&git_dir, dir, &base, &base_tree.blobs)?;
        add_worktree(dir)?
    } else {
        checkout(&git_dir, dir, &head, &head_tree.blobs)?;
        dir.to_path_buf()
    };
    let written = (!fixture.worktree && states.staged.is_none())
        .then(|| written_at_head(&head_tree, base_commit, head_commit));
    let mut current = head;
    let mut current_raw = &states.head;

    if let Some(staged_raw) = &states.staged {
        let staged = resolve(
            fixture,
            Stage::Staged,
            staged_raw,
            Some((current_raw, &current)),
            &known,
        )?;
        sync_work_tree(&work_dir, &current, &staged)?;
        stage(&work_dir, &current, &staged)?;
        let source = gittree::source_tree_id(staged.iter().map(|(p, c)| (p.as_str(), &**c)));
        known.source_trees.insert(Stage::Staged, source.to_string());
        let diff = known.diff_sha256_of(
            staged
                .iter()
                .map(|(p, c)| (p.as_str(), gittree::blob_id(c))),
        );
        known.diff_sha256s.insert(Stage::Staged, diff);
        current = staged;
        current_raw = staged_raw;
    }
    if let Some(unstaged_raw) = &states.unstaged {
        let unstaged = resolve(
            fixture,
            Stage::Unstaged,
            unstaged_raw,
            Some((current_raw, &current)),
            &known,
        )?;
        sync_work_tree(&work_dir, &current, &unstaged)?;
        current = unstaged;
        current_raw = unstaged_raw;
    }

    Ok(Materialized {
        pinned: pin(dir, fixture.worktree)?,
        work_dir,
        repo_dir: dir.to_path_buf(),
        commits,
        known,
        written,
        current_raw: current_raw.clone(),
        current,
        packed,
    })
}

/// The repository just written at `dir` pinned as it is (its own `.git`, or for a linked
/// worktree, the worktree's folder in it).
fn pin(dir: &Path, worktree: bool) -> Result<Pinned> {
    let git_dir = if worktree {
        Path::new(".git/worktrees").join(FEATURE_BRANCH)
    } else {
        PathBuf::from(".git")
    };
    Pinned::now(dir, &git_dir)
        .map_err(|e| Error::Internal(format!("the repository just written cannot be pinned: {e}")))
}

/// A committed layer's `files` (resolved) stored in `pack` with its commit, and its ids recorded:
/// the base (no `parent`, at minute 0) or the head (on the base, a minute later).
fn commit_layer<'f>(
    pack: &mut Pack,
    known: &mut Known,
    files: &'f Files,
    parent: Option<Oid>,
) -> (Stored<'f>, Oid) {
    let (stage, minute, message) = match parent {
        None => (Stage::Base, 0, "base\n"),
        Some(_) => (Stage::Head, 1, "feature\n"),
    };
    let stored = pack_tree(pack, files);
    let commit = pack.insert(
        ObjectType::Commit,
        &commit_object(stored.tree, parent, minute, message),
    );
    record(known, stage, commit, &stored);
    (stored, commit)
}

/// The feature branch checked out in a linked worktree beside `dir` (`<dir>-worktree`), whose
/// folder is returned.
fn add_worktree(dir: &Path) -> Result<PathBuf> {
    let repo = Repository::open(dir).map_err(|e| Error::git("open the repository", e))?;
    let wt_dir = dir.with_file_name(format!(
        "{}-worktree",
        dir.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    ));
    let branch = repo
        .find_reference(&format!("refs/heads/{FEATURE_BRANCH}"))
        .map_err(|e| Error::git("find the feature branch", e))?;
    let mut wt_opts = git2::WorktreeAddOptions::new();
    wt_opts.reference(Some(&branch));
    repo.worktree("feature", &wt_dir, Some(&wt_opts))
        .map_err(|e| Error::git("add a linked worktree", e))?;
    Ok(wt_dir)
}

/// What the materializer wrote when the head is checked out as committed: the feature branch,
/// both branches' commits, and the head tree's blobs as the index.
fn written_at_head(head_tree: &Stored<'_>, base_commit: Oid, head_commit: Oid) -> Written {
    let feature = format!("refs/heads/{FEATURE_BRANCH}");
    Written {
        head: feature.clone(),
        refs: vec![
            (feature, head_commit),
            (format!("refs/heads/{BASE_BRANCH}"), base_commit),
        ],
        index: head_tree
            .blobs
            .iter()
            .map(|(path, id)| ((*path).to_owned(), *id))
            .collect(),
    }
}

/// The index of the work tree at `work_dir` moved from `current` to `staged`: paths removed,
/// changed or new files added (from the work tree, already written).
fn stage(work_dir: &Path, current: &Files, staged: &Files) -> Result<()> {
    let wt_repo = Repository::open(work_dir).map_err(|e| Error::git("open the work tree", e))?;
    let mut index = wt_repo
        .index()
        .map_err(|e| Error::git("read the index", e))?;
    for path in current.keys().filter(|p| !staged.contains_key(*p)) {
        index
            .remove_path(Path::new(path))
            .map_err(|e| Error::git(format!("unstage {path}"), e))?;
    }
    for (path, content) in staged {
        if current.get(path) != Some(content) {
            index
                .add_path(Path::new(path))
                .map_err(|e| Error::git(format!("stage {path}"), e))?;
        }
    }
    index.write().map_err(|e| Error::git("write the index", e))
}

/// Records a committed layer's ids for the placeholders of later layers.
fn record(known: &mut Known, stage: Stage, commit: Oid, stored: &Stored) {
    known.commits.insert(stage, commit.to_string());
    known.trees.insert(stage, stored.tree.to_string());
    let source = gittree::source_tree_id_of_blobs(stored.blobs.iter().copied());
    known.source_trees.insert(stage, source.to_string());
    if stage == Stage::Base {
        known.base_blobs = Some(
            stored
                .blobs
                .iter()
                .map(|(path, oid)| ((*path).to_owned(), *oid))
                .collect(),
        );
    }
    let diff = known.diff_sha256_of(stored.blobs.iter().copied());
    known.diff_sha256s.insert(stage, diff);
}

/// Writes `files` into an empty work tree and an index that matches them, from the blob ids the
/// objects were stored under (`blobs`). The index entries carry each file's stat data, so git sees
/// a clean work tree without re-reading the files.
///
/// The files are dated at the base commit: written in the same clock tick as the index, they
/// would be "racily clean" (git cannot trust stat data as new as the index itself), and every
/// `git status` or libgit2 diff against the work tree would read and hash each file again.
fn checkout(git_dir: &Path, dir: &Path, files: &Files, blobs: &[(&str, Oid)]) -> Result<()> {
    let written = std::time::UNIX_EPOCH + std::time::Duration::from_secs(EPOCH as u64);
    let mut index =
        git2::Index::open(&git_dir.join("index")).map_err(|e| Error::git("create the index", e))?;
    // `blobs` holds one entry per file, in the same path order (`store_tree`): each file is staged
    // with the stat data of the descriptor it was written through.
    let mut blobs = blobs.iter();
    write_files(dir, files.iter(), Some(written), |path, target, file| {
        let Some(&(blob_path, id)) = blobs.next().filter(|(p, _)| *p == path) else {
            return Err(Error::Internal(format!(
                "the index of `{path}` has no blob id in order"
            )));
        };
        let meta = file.metadata().map_err(|e| Error::io("stat", target, e))?;
        index
            .add(&stat_entry(blob_path, id, &meta))
            .map_err(|e| Error::git(format!("stage {path}"), e))
    })?;
    index.write().map_err(|e| Error::git("write the index", e))
}

fn stat_entry(path: &str, id: Oid, meta: &std::fs::Metadata) -> IndexEntry {
    use std::os::unix::fs::MetadataExt;
    // The index stores 32-bit stat fields; truncation is what git itself does.
    let mut entry = index_entry(path, id);
    entry.ctime = IndexTime::new(meta.ctime() as i32, meta.ctime_nsec() as u32);
    entry.mtime = IndexTime::new(meta.mtime() as i32, meta.mtime_nsec() as u32);
    entry.dev = meta.dev() as u32;
    entry.ino = meta.ino() as u32;
    entry.uid = meta.uid();
    entry.gid = meta.gid();
    entry.file_size = meta.len() as u32;
    entry
}

/// Writes files into the work tree, with `modified` as their modification time when given, and
/// hands each written file (its path, full path and open descriptor) to `on_written`. A folder is
/// created once for each run of consecutive files in it (`files` come sorted by path), not once
/// per file.
fn write_files<'a>(
    dir: &Path,
    files: impl Iterator<Item = (&'a String, &'a Blob)>,
    modified: Option<std::time::SystemTime>,
    mut on_written: impl FnMut(&str, &Path, &std::fs::File) -> Result<()>,
) -> Result<()> {
    use std::io::Write;
    let mut created: Option<PathBuf> = None;
    for (path, content) in files {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            if created.as_deref() != Some(parent) {
                std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
                created = Some(parent.to_path_buf());
            }
        }
        let mut file =
            std::fs::File::create(&target).map_err(|e| Error::io("write", &target, e))?;
        file.write_all(content)
            .map_err(|e| Error::io("write", &target, e))?;
        if let Some(modified) = modified {
            file.set_modified(modified)
                .map_err(|e| Error::io("set the time of", &target, e))?;
        }
        on_written(path, &target, &file)?;
    }
    Ok(())
}

/// Makes the work tree hold `to` instead of `from`: changed files written, removed ones deleted.
/// After a round the work tree is what the verifier left: every folder on the way is opened
/// without following a link (a folder replaced by a link to the fixtures, or anywhere, is an
/// error, never written through), and a link at a file's own name is replaced, not followed.
fn sync_work_tree(dir: &Path, from: &Files, to: &Files) -> Result<()> {
    use gatebench_gittree::nofollow;
    for path in from.keys().filter(|p| !to.contains_key(*p)) {
        nofollow::remove_file(dir, Path::new(path))
            .map_err(|e| Error::io("delete", dir.join(path), e))?;
    }
    for (path, content) in to.iter().filter(|(p, c)| from.get(*p) != Some(*c)) {
        nofollow::write_atomic(dir, Path::new(path), content, 0o644, true)
            .map_err(|e| Error::io("write", dir.join(path), e))?;
    }
    Ok(())
}

impl Materialized {
    /// The repository as materialized, for a harness operation: `.git`'s control files put back
    /// as they were written (the read-only check has recorded any change by now), then opened
    /// pinned, with the work tree gatebench made as its work tree.
    fn open_pinned(&self) -> Result<Repository> {
        let refuse =
            |e: String| Error::Internal(format!("the repository cannot be opened as written: {e}"));
        self.pinned.restore().map_err(|e| refuse(e.to_string()))?;
        // libgit2 reads the work tree's ignore and attribute files following a link and blocks
        // on a FIFO: a fix is not committed over one.
        let unsafe_rules = gatebench_gittree::pinned::rule_files_not_regular(&self.work_dir)
            .map_err(|e| refuse(e.to_string()))?;
        if !unsafe_rules.is_empty() {
            return Err(refuse(format!(
                "{} not a regular file (libgit2 would follow it or block on it)",
                unsafe_rules.join(", ")
            )));
        }
        self.pinned
            .open(&self.work_dir)
            .map_err(|e| refuse(e.to_string()))
    }
}

impl Materialized {
    /// The repository's fingerprint as materialized, computed from what was written rather than
    /// read back (`Fingerprinter::as_written`); `None` when it must be read, after a fix or for a
    /// repository libgit2 wrote part of.
    pub fn fingerprint_as_written(
        &self,
        fingerprinter: &Fingerprinter,
    ) -> Option<std::result::Result<RepoFingerprint, String>> {
        let written = self.written.as_ref()?;
        let files = self.current.iter().map(|(p, c)| (p.as_str(), &**c));
        Some(fingerprinter.as_written(written, files))
    }

    /// Applies a scripted fix: the work tree becomes `files` (placeholders filled) and everything is
    /// committed on the feature branch, as `git add -A && git commit` would (ignored files are not).
    pub fn apply_fix(&mut self, fixture: &Fixture, number: u32, files: &Files) -> Result<String> {
        let stage = Stage::Fix(number);
        let resolved = resolve(
            fixture,
            stage,
            files,
            Some((&self.current_raw, &self.current)),
            &self.known,
        )?;
        self.written = None;
        sync_work_tree(&self.work_dir, &self.current, &resolved)?;
        let repo = self.open_pinned()?;
        let mut index = repo.index().map_err(|e| Error::git("read the index", e))?;
        // As `git add -A` would: a tracked file is committed whatever the ignore rules say; an
        // untracked file the repository ignores stays in the work tree, uncommitted. (Asking
        // libgit2 about every file was a quarter of a fix's cost.)
        let mut committed = Files::new();
        for (path, content) in &resolved {
            let tracked = index.get_path(Path::new(path), 0).is_some();
            let ignored = !tracked
                && repo
                    .is_path_ignored(path)
                    .map_err(|e| Error::git(format!("check whether {path} is ignored"), e))?;
            if !ignored {
                committed.insert(path.clone(), content.clone());
            }
        }
        // The fix's objects go into a pack of their own, as the materializer's go into its pack:
        // libgit2 writes each loose object through a temporary file, a link and a zlib stream,
        // hashed with collision-detecting SHA-1 (half of a fix's cost in a profile). An object a pack
        // of gatebench's already holds is not stored again.
        let mut pack = Pack::new();
        let packed = &self.packed;
        let stored = store_tree(&committed, &mut |kind, bytes| {
            let id = gittree::object_id(kind, bytes);
            if !packed.contains(&id) {
                pack.insert(kind, bytes);
            }
            Ok(id)
        })?;
        let parent = repo
            .head()
            .and_then(|h| h.peel_to_commit())
            .map_err(|e| Error::git("read HEAD", e))?
            .id();
        let message = format!("fix {number}\n");
        let id = pack.insert(
            ObjectType::Commit,
            &commit_object(stored.tree, Some(parent), 1 + number as i64, &message),
        );
        self.packed.extend(pack.ids());
        pack.write(&repo.commondir().join("objects"))?;
        move_branch(&repo, FEATURE_BRANCH, id, &message)?;
        let tree_obj = repo
            .find_tree(stored.tree)
            .map_err(|e| Error::git("find a tree", e))?;
        index
            .read_tree(&tree_obj)
            .map_err(|e| Error::git("reset the index", e))?;
        index
            .write()
            .map_err(|e| Error::git("write the index", e))?;
        record(&mut self.known, stage, id, &stored);
        self.commits.insert(stage.name(), id.to_string());
        self.current = resolved;
        self.current_raw = files.clone();
        Ok(id.to_string())
    }

    /// Commits the work tree as it is now on the feature branch, as `git add -A && git commit`
    /// would (`.gitignore` respected), with the fixed author and time of fix `number`: how an
    /// external fixer's changes are recorded: the commit's id and its diff against the tree
    /// before it. `None` when the tree is unchanged.
    pub fn commit_work_tree(&mut self, number: u32) -> Result<Option<(String, String)>> {
        self.written = None;
        let repo = self.open_pinned()?;
        let mut index = repo.index().map_err(|e| Error::git("read the index", e))?;
        // Measured before libgit2 reads a byte: it reads (and filters) each file whole, so a
        // fixer's 2 GiB file aborted the run and an 8 GiB one crashed it. Over a bound, the fix
        // is the trial's error.
        check_fix_size(&repo, &index, &self.work_dir)?;
        index
            .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .map_err(|e| Error::git("stage the work tree", e))?;
        index
            .update_all(["*"], None)
            .map_err(|e| Error::git("stage deletions", e))?;
        index
            .write()
            .map_err(|e| Error::git("write the index", e))?;
        let tree = index
            .write_tree()
            .map_err(|e| Error::git("write a tree", e))?;
        let head = repo
            .head()
            .and_then(|h| h.peel_to_commit())
            .map_err(|e| Error::git("read HEAD", e))?;
        if head.tree_id() == tree {
            return Ok(None);
        }
        let id = commit(
            &repo,
            FEATURE_BRANCH,
            tree,
            Some(head.id()),
            1 + number as i64,
            &format!("fix {number}\n"),
        )?;
        let files = tree_files(&repo, tree)?;
        let stored = Stored {
            tree,
            blobs: files
                .iter()
                .map(|(path, content)| (path.as_str(), gittree::blob_id(content)))
                .collect(),
        };
        let stage = Stage::Fix(number);
        record(&mut self.known, stage, id, &stored);
        self.commits.insert(stage.name(), id.to_string());
        let diff = crate::corpus::model::files::diff(&self.current, &files);
        self.current_raw = files.clone();
        self.current = files;
        Ok(Some((id.to_string(), diff)))
    }
}

/// The largest file a fixer's commit may hold: the largest a fixture may hold.
pub const MAX_FIX_FILE_BYTES: u64 = crate::corpus::loader::compose::MAX_FILE_BYTES;
/// The most bytes a fixer's work tree may hold, counted over what `git add -A` would stage.
pub const MAX_FIX_TREE_BYTES: u64 = 1 << 30;
/// The most files a fixer's work tree may hold, counted as the bytes are.
pub const MAX_FIX_TREE_FILES: usize = 100_000;

/// Refuses a work tree `git add -A` would stage more of than a fixture could hold: a regular file
/// over [`MAX_FIX_FILE_BYTES`], more than [`MAX_FIX_TREE_BYTES`] or [`MAX_FIX_TREE_FILES`] in all.
/// Sizes come from `lstat` (nothing is read, no link followed); what the repository ignores and
/// does not track is not counted, as `add_all` does not stage it.
fn check_fix_size(repo: &Repository, index: &git2::Index, work_dir: &Path) -> Result<()> {
    let mut tracked: HashSet<Vec<u8>> = HashSet::new();
    for e in index.iter() {
        let mut path = e.path.as_slice();
        tracked.insert(path.to_vec());
        while let Some(slash) = path.iter().rposition(|b| *b == b'/') {
            path = &path[..slash];
            if !tracked.insert(path.to_vec()) {
                break;
            }
        }
    }
    let over = |what: String| {
        Error::invalid(
            work_dir,
            format!("the fixer left {what}: the fix is not committed"),
        )
    };
    let (mut bytes, mut files) = (0u64, 0usize);
    let mut pending: Vec<PathBuf> = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        let listing = std::fs::read_dir(work_dir.join(&rel))
            .map_err(|e| Error::io("read", work_dir.join(&rel), e))?;
        for entry in listing {
            let entry = entry.map_err(|e| Error::io("read", work_dir.join(&rel), e))?;
            let path = rel.join(entry.file_name());
            if rel.as_os_str().is_empty() && entry.file_name() == ".git" {
                continue;
            }
            use std::os::unix::ffi::OsStrExt;
            let known = tracked.contains(path.as_os_str().as_bytes());
            if !known && repo.is_path_ignored(&path).unwrap_or(false) {
                continue;
            }
            let meta = entry
                .metadata()
                .map_err(|e| Error::io("stat", work_dir.join(&path), e))?;
            if meta.is_dir() {
                pending.push(path);
                continue;
            }
            files += 1;
            bytes += meta.len();
            if meta.is_file() && meta.len() > MAX_FIX_FILE_BYTES {
                return Err(over(format!(
                    "`{}` of {} bytes, over the limit of {MAX_FIX_FILE_BYTES} bytes a file",
                    path.display(),
                    meta.len()
                )));
            }
            if bytes > MAX_FIX_TREE_BYTES {
                return Err(over(format!(
                    "more than {MAX_FIX_TREE_BYTES} bytes in its work tree"
                )));
            }
            if files > MAX_FIX_TREE_FILES {
                return Err(over(format!(
                    "more than {MAX_FIX_TREE_FILES} files in its work tree"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
