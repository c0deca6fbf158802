//! Scope detection as the verify pipeline (docs/CONCEPTS.md#verify-scope) defines it: staged changes
//! first, then unstaged (and untracked) ones, then the branch's commits against the merge base, or
//! the mode the caller asks for; each included file with its changed line ranges, every other
//! changed file excluded with its reason.

use std::collections::BTreeMap;
use std::path::Path;

use git2::{Delta, Diff, DiffDelta, DiffOptions, FileMode, Oid, Patch, Repository};

use gatebench_gittree as gittree;
use gatebench_report::{ExcludedFile, ScopeFile};

use crate::repo::{RepoView, SnapshotFile};

/// Which changes a run verifies (docs/CONCEPTS.md#verify-scope, `--scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ScopeMode {
    Staged,
    Unstaged,
    Branch,
}

impl ScopeMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ScopeMode::Staged => "staged",
            ScopeMode::Unstaged => "unstaged",
            ScopeMode::Branch => "branch",
        }
    }

    pub fn from_name(name: &str) -> Option<ScopeMode> {
        [ScopeMode::Staged, ScopeMode::Unstaged, ScopeMode::Branch]
            .into_iter()
            .find(|mode| mode.as_str() == name)
    }

    /// Why a file changed only in this set is left out of another mode's scope.
    fn exclusion_reason(self, selected: ScopeMode) -> String {
        let what = match self {
            ScopeMode::Staged => "staged change",
            ScopeMode::Unstaged => "unstaged or untracked change",
            ScopeMode::Branch => "committed on the branch",
        };
        format!("{what}; outside the selected {} scope", selected.as_str())
    }
}

/// The scope a run verifies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetectedScope {
    pub mode: ScopeMode,
    pub included: Vec<ScopeFile>,
    pub excluded: Vec<ExcludedFile>,
}

/// One changed file of one of the three change sets, with the new side's changed line ranges.
pub type ChangeSet = BTreeMap<String, (String, Vec<String>)>;

/// Detects the scope of the repository `view` read against its merge base: the `requested`
/// mode, else staged when the index differs from HEAD, else unstaged when the work tree differs
/// from the index (untracked files count), else branch. `Err` says what git could not read.
///
/// The work tree's changes against the index come from the files the view read
/// ([`unstaged_from_snapshot`]) where those settle them, else from libgit2's diff; the repository
/// is the one open for the view, so its index and the objects it read are not read again.
pub fn detect(view: &RepoView, requested: Option<ScopeMode>) -> Result<DetectedScope, String> {
    let (repo, workdir) = (view.git(), view.workdir());
    let head_tree = repo
        .head()
        .and_then(|head| head.peel_to_tree())
        .map_err(|e| e.message().to_owned())?;
    let base_tree = Oid::from_str(&view.merge_base)
        .and_then(|oid| repo.find_commit(oid))
        .and_then(|commit| commit.tree())
        .map_err(|e| e.message().to_owned())?;
    let outside = Outside::new(repo);
    let mut staged = changed_between_blobs(
        repo,
        workdir,
        &outside,
        &repo
            .diff_tree_to_index(Some(&head_tree), None, Some(&mut zero_context()))
            .map_err(|e| e.message().to_owned())?,
    )?;
    let mut unstaged = match snapshot_changes(view, &outside) {
        Some(unstaged) => unstaged?,
        None => unstaged_by_libgit2(view)?,
    };
    let mut branch = changed_between_blobs(
        repo,
        workdir,
        &outside,
        &repo
            .diff_tree_to_tree(
                Some(&base_tree),
                Some(&head_tree),
                Some(&mut zero_context()),
            )
            .map_err(|e| e.message().to_owned())?,
    )?;
    // The loop's machine state is never part of what is judged: it neither joins the scope nor
    // chooses its mode (an untracked state file would make every run after the first unstaged).
    for set in [&mut staged, &mut unstaged, &mut branch] {
        set.retain(|path, _| !gittree::in_loop_state(path));
    }
    let mode = requested.unwrap_or(if !staged.is_empty() {
        ScopeMode::Staged
    } else if !unstaged.is_empty() {
        ScopeMode::Unstaged
    } else {
        ScopeMode::Branch
    });
    let sets = [
        (ScopeMode::Staged, &staged),
        (ScopeMode::Unstaged, &unstaged),
        (ScopeMode::Branch, &branch),
    ];
    let mut included = Vec::new();
    let mut excluded: BTreeMap<String, String> = BTreeMap::new();
    for (set_mode, set) in sets {
        for (path, (status, lines)) in set.iter() {
            if set_mode == mode {
                included.push(ScopeFile {
                    path: path.clone(),
                    status: status.clone(),
                    lines: lines.clone(),
                });
            } else {
                excluded
                    .entry(path.clone())
                    .or_insert_with(|| set_mode.exclusion_reason(mode));
            }
        }
    }
    included.sort_by(|a, b| a.path.cmp(&b.path));
    excluded.retain(|path, _| !included.iter().any(|file| &file.path == path));
    let mut excluded: Vec<ExcludedFile> = excluded
        .into_iter()
        .map(|(path, reason)| ExcludedFile { path, reason })
        .collect();
    excluded.push(ExcludedFile {
        path: "ALL_OTHER_FILES".to_owned(),
        reason: "outside selected scope".to_owned(),
    });
    Ok(DetectedScope {
        mode,
        included,
        excluded,
    })
}

fn zero_context() -> DiffOptions {
    let mut options = DiffOptions::new();
    options.context_lines(0);
    options
}

/// The work tree's changes against the index (untracked files added, ignored ones not, the
/// loop's state folder left out) from libgit2's diff, which walks the work tree: one walk for
/// both the tracked files' changes and the untracked files (a separate `git status` walked it
/// again). The reference [`unstaged_from_snapshot`] is tested against, and what it falls back to.
pub fn unstaged_by_libgit2(view: &RepoView) -> Result<ChangeSet, String> {
    let (repo, workdir) = (view.git(), view.workdir());
    let workdir_diff = repo
        .diff_index_to_workdir(
            None,
            Some(
                zero_context()
                    .include_untracked(true)
                    .recurse_untracked_dirs(true)
                    .include_ignored(false),
            ),
        )
        .map_err(|e| e.message().to_owned())?;
    let untracked: Vec<String> = workdir_diff
        .deltas()
        .filter(|delta| delta.status() == Delta::Untracked)
        .filter_map(|delta| delta.new_file().path()?.to_str().map(str::to_owned))
        .collect();
    let mut unstaged = changed(&workdir_diff)?;
    for path in untracked {
        let lines = match std::fs::read(workdir.join(&path)) {
            Ok(bytes) => whole_file(&bytes),
            Err(error) => {
                crate::fault::note_io(&format!("read {path}"), &error);
                Vec::new()
            }
        };
        unstaged.insert(path, ("added".to_owned(), lines));
    }
    unstaged.retain(|path, _| !gittree::in_loop_state(path));
    Ok(unstaged)
}

/// The work tree's changes against the index, as [`unstaged_by_libgit2`] finds them, from the
/// files the view read (their blob ids, executable bits and bytes) and the index's entries,
/// without walking the work tree again. `None` where those do not settle what libgit2 would
/// say, and its diff must be taken:
/// - the walk found a symlink, a special file, a nested repository, a name that is not UTF-8 or
///   a `.gitattributes` ([`RepoView::snapshot`]);
/// - an index entry is not a plain file at stage 0 (a conflict, a submodule, a symlink, an
///   intent-to-add, skip-worktree or assume-unchanged entry), or is an attributes file;
/// - an attributes file outside the work tree could apply ([`attributes_outside_trees`]);
/// - the configuration makes git filter or compare files otherwise (`core.autocrlf`,
///   `core.eol`, `core.filemode` off, `core.ignorecase` on).
///
/// Unfiltered, a tracked file changed when its bytes' blob id or its executable bit differs from
/// its entry's (libgit2 trusts a matching stat cache; the bytes are read anyway here), and its
/// hunks are the patch of the entry's blob and the bytes, as [`changed_between_blobs`] takes
/// them. The test that every bundled fixture's scope is the same both ways is in the harness
/// (`src/repo/materialize.rs`).
pub fn unstaged_from_snapshot(view: &RepoView) -> Option<Result<ChangeSet, String>> {
    snapshot_changes(view, &Outside::new(view.git()))
}

/// [`unstaged_from_snapshot`], with the answer on attributes outside the trees shared.
fn snapshot_changes(view: &RepoView, outside: &Outside<'_>) -> Option<Result<ChangeSet, String>> {
    const INTENT_TO_ADD: u16 = 1 << 13;
    const SKIP_WORKTREE: u16 = 1 << 14;
    const ASSUME_VALID: u16 = 0x8000;
    let snapshot: BTreeMap<&str, SnapshotFile<'_>> =
        view.snapshot()?.map(|file| (file.path, file)).collect();
    let repo = view.git();
    let index = repo.index().ok()?;
    let mut entries = Vec::with_capacity(index.len());
    for entry in index.iter() {
        let stage = (entry.flags >> 12) & 0x3;
        let executable = match entry.mode {
            0o100644 => false,
            0o100755 => true,
            _ => return None,
        };
        if stage != 0
            || entry.flags & ASSUME_VALID != 0
            || entry.flags_extended & (INTENT_TO_ADD | SKIP_WORKTREE) != 0
        {
            return None;
        }
        let path = String::from_utf8(entry.path).ok()?;
        if path == ".gitattributes" || path.ends_with("/.gitattributes") {
            return None;
        }
        // The snapshot leaves the loop's state folder out, tracked or not.
        if !gittree::in_loop_state(&path) {
            entries.push((path, entry.id, executable));
        }
    }
    if outside.may_apply() || config_may_filter(repo) {
        return None;
    }
    let mut files = ChangeSet::new();
    for (path, id, executable) in &entries {
        let Some(file) = snapshot.get(path.as_str()) else {
            files.insert(path.clone(), ("deleted".to_owned(), Vec::new()));
            continue;
        };
        if file.id == *id && file.executable == *executable {
            continue;
        }
        // A change of mode alone has no hunk.
        let hunks = if file.id == *id {
            Ok(Vec::new())
        } else {
            repo.find_blob(*id)
                .map_err(|e| e.message().to_owned())
                .and_then(|blob| hunks_of(blob.content(), file.bytes))
        };
        match hunks {
            Ok(lines) => files.insert(path.clone(), ("modified".to_owned(), lines)),
            Err(error) => return Some(Err(error)),
        };
    }
    let tracked: std::collections::HashSet<&str> =
        entries.iter().map(|(path, _, _)| path.as_str()).collect();
    for (path, file) in snapshot {
        if !tracked.contains(path) {
            files.insert(
                path.to_owned(),
                ("added".to_owned(), whole_file(file.bytes)),
            );
        }
    }
    Some(Ok(files))
}

/// Whether the repository's configuration makes git filter what it hashes, or compare work-tree
/// files otherwise than by bytes and executable bit. A value git would not parse counts as yes.
fn config_may_filter(repo: &Repository) -> bool {
    let Ok(config) = repo.config() else {
        return true;
    };
    let value = |key: &str| config.get_string(key).ok();
    let is = |key: &str, want: bool| {
        value(key).is_some_and(|value| {
            let value = value.to_ascii_lowercase();
            let truthy = ["true", "yes", "on", "1"].contains(&value.as_str());
            let falsy = ["false", "no", "off", "0", ""].contains(&value.as_str());
            if want {
                !falsy
            } else {
                !truthy
            }
        })
    };
    is("core.autocrlf", true)
        || value("core.eol").is_some()
        || is("core.filemode", false)
        || is("core.ignorecase", true)
}

/// The new side's changed line ranges of a patch of two buffers (zero lines of context).
fn hunks_of(old: &[u8], new: &[u8]) -> Result<Vec<String>, String> {
    let patch = Patch::from_buffers(old, None, new, None, Some(&mut zero_context()))
        .map_err(|e| e.message().to_owned())?;
    let mut lines = Vec::new();
    for index in 0..patch.num_hunks() {
        let (hunk, _) = patch.hunk(index).map_err(|e| e.message().to_owned())?;
        push_range(&mut lines, hunk.new_start(), hunk.new_lines());
    }
    Ok(lines)
}

/// The files a diff changes, with their status and no line ranges yet.
fn changed_files(diff: &Diff<'_>) -> ChangeSet {
    let mut files: ChangeSet = BTreeMap::new();
    for delta in diff.deltas() {
        let status = match delta.status() {
            Delta::Added | Delta::Untracked | Delta::Copied => "added",
            Delta::Deleted => "deleted",
            _ => "modified",
        };
        let file = if delta.status() == Delta::Deleted {
            delta.old_file()
        } else {
            delta.new_file()
        };
        if let Some(path) = file.path().and_then(|path| path.to_str()) {
            files.insert(path.to_owned(), (status.to_owned(), Vec::new()));
        }
    }
    files
}

/// A hunk's new-side line range added to `lines` (`START-END`, or `START` for one line).
fn push_range(lines: &mut Vec<String>, start: u32, count: u32) {
    match count {
        0 => {}
        1 => lines.push(start.to_string()),
        _ => lines.push(format!("{start}-{}", start + count - 1)),
    }
}

/// [`changed`] for a diff between two trees or a tree and the index: each file's hunks computed
/// from its two blobs alone, when no git attribute can apply to the diff's files
/// ([`attributes_may_apply`]) and none is a submodule; otherwise [`changed`].
///
/// A repository's diff looks up the `diff` attribute of every file it patches, and that lookup
/// resolves the file's full path in the work tree one link at a time: most of the scope's cost on
/// a branch of a few dozen files. Where no attribute is set the driver is libgit2's automatic one
/// either way (binary by content), and blobs are compared unfiltered in both, so the hunks are
/// the same; `attribute_files_fall_back_to_the_attributed_diff` and the scope tests check both
/// paths against each other. A file the diff adds is one hunk of all its lines: counted without a
/// patch when libgit2 would take it for text ([`plainly_text`]). A patch of two buffers hashes both
/// with SHA-1 before it diffs them; the patches were 5.7% of a Loom run's profile.
fn changed_between_blobs(
    repo: &Repository,
    workdir: &Path,
    outside: &Outside<'_>,
    diff: &Diff<'_>,
) -> Result<ChangeSet, String> {
    let is_submodule = |delta: &DiffDelta<'_>| {
        delta.old_file().mode() == FileMode::Commit || delta.new_file().mode() == FileMode::Commit
    };
    if diff.deltas().any(|delta| is_submodule(&delta))
        || attributes_may_apply(repo, workdir, outside, diff)
    {
        return changed(diff);
    }
    let mut files = changed_files(diff);
    let blob = |id: Oid| -> Result<Option<git2::Blob<'_>>, String> {
        if id.is_zero() {
            return Ok(None);
        }
        repo.find_blob(id)
            .map(Some)
            .map_err(|e| e.message().to_owned())
    };
    for delta in diff.deltas() {
        let Some((_, lines)) = delta
            .new_file()
            .path()
            .and_then(|path| path.to_str())
            .and_then(|path| files.get_mut(path))
        else {
            continue;
        };
        let (old, new) = (blob(delta.old_file().id())?, blob(delta.new_file().id())?);
        let regular = matches!(
            delta.new_file().mode(),
            FileMode::Blob | FileMode::BlobExecutable
        );
        if let (None, Some(new), true) = (&old, &new, regular) {
            if plainly_text(new.content()) {
                // A file the branch adds is one hunk, all of its lines, in any diff.
                lines.extend(whole_file(new.content()));
                continue;
            }
        }
        // From the blobs' bytes, not the blobs: a patch of blobs knows their repository and looks
        // up the attribute it is meant to skip (measured: 39,000 `readlink` more over the Loom
        // scenario).
        lines.extend(hunks_of(
            old.as_ref().map_or(&[][..], |blob| blob.content()),
            new.as_ref().map_or(&[][..], |blob| blob.content()),
        )?);
    }
    Ok(files)
}

/// Whether a git attribute could apply to a file of `diff`: an attributes file exists that
/// libgit2 would read for one of its paths (`.gitattributes` in a folder on the path, in the work
/// tree or the index; `info/attributes`; `core.attributesFile`, or the XDG or system default
/// file, looked for even where libgit2 is told not to read them). Erring towards yes only costs
/// time: the caller then takes libgit2's attributed diff.
fn attributes_may_apply(
    repo: &Repository,
    workdir: &Path,
    outside: &Outside<'_>,
    diff: &Diff<'_>,
) -> bool {
    const NAME: &str = ".gitattributes";
    let mut folders = std::collections::BTreeSet::new();
    for delta in diff.deltas() {
        for file in [delta.old_file(), delta.new_file()] {
            let Some(mut path) = file.path().and_then(|path| path.to_str()) else {
                return true;
            };
            while let Some((parent, _)) = path.rsplit_once('/') {
                folders.insert(parent);
                path = parent;
            }
            folders.insert("");
        }
    }
    if folders.is_empty() {
        return false;
    }
    let exists = |path: &Path| path.symlink_metadata().is_ok();
    if folders
        .iter()
        .any(|folder| exists(&workdir.join(folder).join(NAME)))
    {
        return true;
    }
    let indexed = repo.index().map_or(true, |index| {
        index
            .iter()
            .any(|entry| entry.path == NAME.as_bytes() || entry.path.ends_with(b"/.gitattributes"))
    });
    indexed || outside.may_apply()
}

/// [`attributes_outside_trees`] of one repository, asked at most once: a scope detection needs
/// the answer for the staged diff, the branch diff and the snapshot, and each asking reads the
/// configuration and looks for four files.
struct Outside<'r> {
    repo: &'r Repository,
    answer: std::cell::OnceCell<bool>,
}

impl<'r> Outside<'r> {
    fn new(repo: &'r Repository) -> Self {
        Outside {
            repo,
            answer: std::cell::OnceCell::new(),
        }
    }

    fn may_apply(&self) -> bool {
        *self
            .answer
            .get_or_init(|| attributes_outside_trees(self.repo))
    }
}

/// Whether an attributes file that is in neither the work tree nor the index could apply:
/// `info/attributes`, `core.attributesFile`, or the XDG or system default file (looked for even
/// where libgit2 is told not to read them).
fn attributes_outside_trees(repo: &Repository) -> bool {
    let exists = |path: &Path| path.symlink_metadata().is_ok();
    let configured = repo.config().map_or(true, |config| {
        config.get_path("core.attributesfile").is_ok()
    });
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|dir| !dir.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".config")))
        .map(|dir| dir.join("git").join("attributes"));
    configured
        || exists(&repo.path().join("info").join("attributes"))
        || exists(&repo.commondir().join("info").join("attributes"))
        || xdg.is_some_and(|file| exists(&file))
        || exists(Path::new("/etc/gitattributes"))
}

/// The files a diff changes, with their status and the new side's changed line ranges
/// (`START-END`, or `START` for one line), from libgit2's diff of the repository.
fn changed(diff: &Diff<'_>) -> Result<ChangeSet, String> {
    let mut files = changed_files(diff);
    diff.foreach(
        &mut |_, _| true,
        None,
        Some(&mut |delta, hunk| {
            let path = delta
                .new_file()
                .path()
                .and_then(|path| path.to_str())
                .map(str::to_owned);
            if let Some((_, lines)) = path.and_then(|path| files.get_mut(&path)) {
                push_range(lines, hunk.new_start(), hunk.new_lines());
            }
            true
        }),
        None,
    )
    .map_err(|e| e.message().to_owned())?;
    Ok(files)
}

/// Whether libgit2's automatic diff driver takes `bytes` for text: it takes a file for binary
/// when its first 8,000 bytes hold a NUL, or when it is larger than 512 MiB (its default
/// `max_size`). A NUL anywhere is left to libgit2's own patch.
fn plainly_text(bytes: &[u8]) -> bool {
    bytes.len() < 512 << 20 && memchr::memchr(0, bytes).is_none()
}

/// The line range of a whole new file.
fn whole_file(bytes: &[u8]) -> Vec<String> {
    let lines = bytes.split(|byte| *byte == b'\n').count()
        - usize::from(bytes.ends_with(b"\n") || bytes.is_empty());
    match lines {
        0 => Vec::new(),
        1 => vec!["1".to_owned()],
        n => vec![format!("1-{n}")],
    }
}

#[cfg(test)]
mod tests;
