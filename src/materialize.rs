//! Materializing a fixture into a real git repository, in-process with libgit2 and
//! deterministically: fixed author, committer and times, so that a fixture gives the same commit
//! and tree ids on every run and every machine.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use git2::{IndexEntry, IndexTime, Oid, Repository, RepositoryInitOptions, Signature, Time};

use crate::corpus::{Files, Fixture};
use crate::error::{Error, Result};
use crate::gittree;
use crate::placeholder::{self, Known, Stage};

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
    /// The files in the work tree now, as filled, and as the fixture wrote them.
    current: Files,
    current_raw: Files,
}

fn signature(minute: i64) -> Result<Signature<'static>> {
    Signature::new(
        "gatebench",
        "gatebench@invalid",
        &Time::new(EPOCH + 60 * minute, 0),
    )
    .map_err(|e| Error::git("make a signature", e))
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

/// Writes `files` as blobs and a tree into `repo`, returning the tree id. Blobs already in
/// `written` are not written again (most files are the same in every layer).
fn write_tree(repo: &Repository, files: &Files, written: &mut HashSet<Oid>) -> Result<Oid> {
    let mut index = git2::Index::new().map_err(|e| Error::git("create an index", e))?;
    for (path, content) in files {
        let mut id = gittree::blob_id(content);
        if !written.contains(&id) {
            id = repo
                .blob(content)
                .map_err(|e| Error::git(format!("write blob {path}"), e))?;
            written.insert(id);
        }
        index
            .add(&index_entry(path, id))
            .map_err(|e| Error::git(format!("stage {path}"), e))?;
    }
    index
        .write_tree_to(repo)
        .map_err(|e| Error::git("write a tree", e))
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

fn commit(
    repo: &Repository,
    branch: &str,
    tree: Oid,
    parent: Option<Oid>,
    minute: i64,
    message: &str,
) -> Result<Oid> {
    let sig = signature(minute)?;
    let tree = repo
        .find_tree(tree)
        .map_err(|e| Error::git("find a tree", e))?;
    let parent = match parent {
        Some(id) => Some(
            repo.find_commit(id)
                .map_err(|e| Error::git("find a commit", e))?,
        ),
        None => None,
    };
    let parents: Vec<&git2::Commit> = parent.iter().collect();
    repo.commit(
        Some(&format!("refs/heads/{branch}")),
        &sig,
        &sig,
        message,
        &tree,
        &parents,
    )
    .map_err(|e| Error::git(format!("commit on {branch}"), e))
}

/// Builds `fixture` into a new repository at `dir` (which must not exist or be empty).
pub fn materialize(fixture: &Fixture, dir: &Path) -> Result<Materialized> {
    let mut opts = RepositoryInitOptions::new();
    opts.initial_head(BASE_BRANCH);
    // No hooks or other template files: nothing in a fixture repository runs by itself.
    opts.external_template(false);
    let repo =
        Repository::init_opts(dir, &opts).map_err(|e| Error::git("initialise a repository", e))?;
    let mut known = Known::default();
    let mut commits = BTreeMap::new();

    let states = &fixture.states;
    let base = resolve(fixture, Stage::Base, &states.base, None, &known)?;
    let mut written = HashSet::new();
    let base_tree = write_tree(&repo, &base, &mut written)?;
    let base_commit = commit(&repo, BASE_BRANCH, base_tree, None, 0, "base\n")?;
    record(&mut known, Stage::Base, base_commit, base_tree, &base);
    commits.insert("base".to_owned(), base_commit.to_string());

    let head = resolve(
        fixture,
        Stage::Head,
        &states.head,
        Some((&states.base, &base)),
        &known,
    )?;
    let head_tree = write_tree(&repo, &head, &mut written)?;
    let head_commit = commit(
        &repo,
        FEATURE_BRANCH,
        head_tree,
        Some(base_commit),
        1,
        "feature\n",
    )?;
    record(&mut known, Stage::Head, head_commit, head_tree, &head);
    commits.insert("head".to_owned(), head_commit.to_string());

    let work_dir = if fixture.worktree {
        // The main checkout stays on `main`; the feature branch lives in a linked worktree.
        checkout(&repo, dir, &base)?;
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
        wt_dir
    } else {
        repo.set_head(&format!("refs/heads/{FEATURE_BRANCH}"))
            .map_err(|e| Error::git("point HEAD at the feature branch", e))?;
        checkout(&repo, dir, &head)?;
        dir.to_path_buf()
    };
    let wt_repo = Repository::open(&work_dir).map_err(|e| Error::git("open the work tree", e))?;
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
        let mut index = wt_repo
            .index()
            .map_err(|e| Error::git("read the index", e))?;
        for path in current.keys().filter(|p| !staged.contains_key(*p)) {
            index
                .remove_path(Path::new(path))
                .map_err(|e| Error::git(format!("unstage {path}"), e))?;
        }
        for (path, content) in &staged {
            if current.get(path) != Some(content) {
                index
                    .add_path(Path::new(path))
                    .map_err(|e| Error::git(format!("stage {path}"), e))?;
            }
        }
        index
            .write()
            .map_err(|e| Error::git("write the index", e))?;
        let source =
            gittree::source_tree_id(staged.iter().map(|(p, c)| (p.as_str(), c.as_slice())));
        known.source_trees.insert(Stage::Staged, source.to_string());
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
        work_dir,
        repo_dir: dir.to_path_buf(),
        commits,
        known,
        current_raw: current_raw.clone(),
        current,
    })
}

fn record(known: &mut Known, stage: Stage, commit: Oid, tree: Oid, files: &Files) {
    known.commits.insert(stage, commit.to_string());
    known.trees.insert(stage, tree.to_string());
    let source = gittree::source_tree_id(files.iter().map(|(p, c)| (p.as_str(), c.as_slice())));
    known.source_trees.insert(stage, source.to_string());
}

/// Writes `files` into an empty work tree and an index that matches them. The index entries
/// carry each file's stat data, so git sees a clean work tree without re-reading the files; their
/// blob ids are computed in memory (the blobs are already in the object database).
fn checkout(repo: &Repository, dir: &Path, files: &Files) -> Result<()> {
    write_files(dir, files.iter())?;
    let mut index = repo.index().map_err(|e| Error::git("read the index", e))?;
    for (path, content) in files {
        let target = dir.join(path);
        let meta = std::fs::metadata(&target).map_err(|e| Error::io("stat", &target, e))?;
        index
            .add(&stat_entry(path, gittree::blob_id(content), &meta))
            .map_err(|e| Error::git(format!("stage {path}"), e))?;
    }
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

fn write_files<'a>(
    dir: &Path,
    files: impl Iterator<Item = (&'a String, &'a Vec<u8>)>,
) -> Result<()> {
    for (path, content) in files {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
        }
        std::fs::write(&target, content).map_err(|e| Error::io("write", &target, e))?;
    }
    Ok(())
}

/// Makes the work tree hold `to` instead of `from`: changed files written, removed ones deleted.
fn sync_work_tree(dir: &Path, from: &Files, to: &Files) -> Result<()> {
    for path in from.keys().filter(|p| !to.contains_key(*p)) {
        let target = dir.join(path);
        std::fs::remove_file(&target).map_err(|e| Error::io("delete", &target, e))?;
    }
    write_files(dir, to.iter().filter(|(p, c)| from.get(*p) != Some(*c)))
}

impl Materialized {
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
        sync_work_tree(&self.work_dir, &self.current, &resolved)?;
        let repo =
            Repository::open(&self.work_dir).map_err(|e| Error::git("open the work tree", e))?;
        // As `git add -A` would: files the repository ignores stay in the work tree, uncommitted.
        let mut committed = Files::new();
        for (path, content) in &resolved {
            let ignored = repo
                .is_path_ignored(path)
                .map_err(|e| Error::git(format!("check whether {path} is ignored"), e))?;
            if !ignored {
                committed.insert(path.clone(), content.clone());
            }
        }
        let tree = write_tree(&repo, &committed, &mut HashSet::new())?;
        let parent = repo
            .head()
            .and_then(|h| h.peel_to_commit())
            .map_err(|e| Error::git("read HEAD", e))?
            .id();
        let id = commit(
            &repo,
            FEATURE_BRANCH,
            tree,
            Some(parent),
            1 + number as i64,
            &format!("fix {number}\n"),
        )?;
        let mut index = repo.index().map_err(|e| Error::git("read the index", e))?;
        let tree_obj = repo
            .find_tree(tree)
            .map_err(|e| Error::git("find a tree", e))?;
        index
            .read_tree(&tree_obj)
            .map_err(|e| Error::git("reset the index", e))?;
        index
            .write()
            .map_err(|e| Error::git("write the index", e))?;
        record(&mut self.known, stage, id, tree, &committed);
        self.commits.insert(stage.name(), id.to_string());
        self.current = resolved;
        self.current_raw = files.clone();
        Ok(id.to_string())
    }

    /// Commits the work tree as it is now on the feature branch, as `git add -A && git commit`
    /// would (`.gitignore` respected), with the fixed author and time of fix `number`: how an
    /// external fixer's changes are recorded. `None` when the tree is unchanged.
    pub fn commit_work_tree(&mut self, number: u32) -> Result<Option<String>> {
        let repo =
            Repository::open(&self.work_dir).map_err(|e| Error::git("open the work tree", e))?;
        let mut index = repo.index().map_err(|e| Error::git("read the index", e))?;
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
        let mut files = Files::new();
        let tree_obj = repo
            .find_tree(tree)
            .map_err(|e| Error::git("find a tree", e))?;
        tree_obj
            .walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
                if let Some(blob) = entry.to_object(&repo).ok().and_then(|o| o.into_blob().ok()) {
                    let name = entry.name().unwrap_or_default();
                    files.insert(format!("{dir}{name}"), blob.content().to_vec());
                }
                git2::TreeWalkResult::Ok
            })
            .map_err(|e| Error::git("read the committed tree", e))?;
        let stage = Stage::Fix(number);
        record(&mut self.known, stage, id, tree, &files);
        self.commits.insert(stage.name(), id.to_string());
        self.current_raw = files.clone();
        self.current = files;
        Ok(Some(id.to_string()))
    }
}
