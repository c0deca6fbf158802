//! Seed 001's scope detection: staged changes first, then unstaged (and untracked) ones, then the
//! branch's commits against the merge base, or the mode the caller asks for; each included file
//! with its changed line ranges, every other changed file excluded with its reason.

use std::collections::BTreeMap;
use std::path::Path;

use git2::{Delta, Diff, DiffOptions, Oid, Repository};

use gatebench_gittree as gittree;
use gatebench_report::{ExcludedFile, ScopeFile};

/// Which changes a run verifies (seed 001, `--scope`).
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
type ChangeSet = BTreeMap<String, (String, Vec<String>)>;

/// Detects the scope of the repository at `workdir` against `merge_base`: the `requested` mode,
/// else staged when the index differs from HEAD, else unstaged when the work tree differs from the
/// index (untracked files count), else branch. `Err` says what git could not read.
pub fn detect(
    workdir: &Path,
    merge_base: &str,
    requested: Option<ScopeMode>,
) -> Result<DetectedScope, String> {
    let repo = Repository::open(workdir).map_err(|e| e.message().to_owned())?;
    let head_tree = repo
        .head()
        .and_then(|head| head.peel_to_tree())
        .map_err(|e| e.message().to_owned())?;
    let base_tree = Oid::from_str(merge_base)
        .and_then(|oid| repo.find_commit(oid))
        .and_then(|commit| commit.tree())
        .map_err(|e| e.message().to_owned())?;
    let options = || {
        let mut options = DiffOptions::new();
        options.context_lines(0);
        options
    };
    let staged = changed(
        &repo
            .diff_tree_to_index(Some(&head_tree), None, Some(&mut options()))
            .map_err(|e| e.message().to_owned())?,
    )?;
    // One walk of the work tree for both: the tracked files' changes and the untracked files
    // that no ignore rule matches (a separate `git status` walked it again).
    let workdir_diff = repo
        .diff_index_to_workdir(
            None,
            Some(
                options()
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
        let lines = std::fs::read(workdir.join(&path))
            .map(|bytes| whole_file(&bytes))
            .unwrap_or_default();
        unstaged.insert(path, ("added".to_owned(), lines));
    }
    let branch = changed(
        &repo
            .diff_tree_to_tree(Some(&base_tree), Some(&head_tree), Some(&mut options()))
            .map_err(|e| e.message().to_owned())?,
    )?;
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
            if gittree::in_loop_state(path) {
                continue;
            }
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

/// The files a diff changes, with their status and the new side's changed line ranges
/// (`START-END`, or `START` for one line).
fn changed(diff: &Diff<'_>) -> Result<ChangeSet, String> {
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
                let (start, count) = (hunk.new_start(), hunk.new_lines());
                match count {
                    0 => {}
                    1 => lines.push(start.to_string()),
                    _ => lines.push(format!("{start}-{}", start + count - 1)),
                }
            }
            true
        }),
        None,
    )
    .map_err(|e| e.message().to_owned())?;
    Ok(files)
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
