//! `diff-within-ownership`: every file changed against the merge base (committed, staged,
//! unstaged or untracked) is owned by the task that changed it, or by some task when no task
//! claims it, or approved as a scope change.

use std::collections::BTreeMap;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

use crate::check::rules::*;
use crate::finding::GateFinding;
use crate::load::{feature_relative, quoted, FeatureLedger};
use crate::repo::{Change, RepoView};
use crate::validators::refs::parse_reference;
use gatebench_gittree::in_ledger;

/// A glob as the ledger writes it; a pattern ending in `/` owns the whole folder. `*` does not
/// cross `/`; `**` does.
fn glob_pattern(pattern: &str) -> String {
    match pattern.strip_suffix('/') {
        Some(folder) => format!("{folder}/**"),
        None => pattern.to_owned(),
    }
}

/// Compiles one ledger glob; a pattern that does not compile is a `ledger-schema` finding at the
/// file (and line) that holds it.
fn compile(
    pattern: &str,
    path: &str,
    line: Option<u64>,
    findings: &mut Vec<GateFinding>,
) -> Option<Glob> {
    match GlobBuilder::new(&glob_pattern(pattern))
        .literal_separator(true)
        .build()
    {
        Ok(glob) => Some(glob),
        Err(error) => {
            findings.push(
                GateFinding::new(
                    ledger_schema::BAD_GLOB,
                    format!("`{pattern}` is not a valid glob"),
                    format!("{path}: `{pattern}` is not a valid glob ({error}). Fix the pattern."),
                )
                .at(path, line),
            );
            None
        }
    }
}

/// A task's claim to have changed a file: its implementation receipt cites the file in an
/// `implementation_refs` or `test_refs` entry (docs/CONCEPTS.md#loom-candidate-mapping: the
/// candidate mapping of each change in the diff to an obligation).
struct Claim {
    /// The claiming task: its feature folder and id.
    task: TaskKey,
    receipt: String,
    line: Option<u64>,
}

/// Whose globs are whose: a task is named by its feature folder and id.
type TaskKey = (String, String);

/// `diff-within-ownership`. Paths under `specs/` (the ledger itself) are exempt; a path an
/// approval's `scope_changes` lists is approved. A changed file that tasks' implementation
/// receipts cite was changed by those tasks: one of them must own it (its own `owns`), the
/// ownership of another task is not enough. A changed file no receipt cites must be owned by some
/// task. A glob that does not compile is a `ledger-schema` finding at the task or approval that
/// holds it.
pub fn diff_within_ownership(repo: &RepoView, features: &[FeatureLedger]) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    let mut union = GlobSetBuilder::new();
    let mut approved = GlobSetBuilder::new();
    let mut per_task: BTreeMap<TaskKey, GlobSet> = BTreeMap::new();
    let mut owners_of_task: BTreeMap<TaskKey, Vec<String>> = BTreeMap::new();
    let mut claims: BTreeMap<String, Vec<Claim>> = BTreeMap::new();
    for feature in features {
        for task in feature.tasks.values() {
            let Some(front) = &task.front else { continue };
            let mut own = GlobSetBuilder::new();
            for pattern in &front.owns {
                let line = task.file.line_of(pattern);
                if let Some(glob) = compile(pattern, &task.file.path, line, &mut findings) {
                    union.add(glob.clone());
                    own.add(glob);
                }
            }
            let key = (feature.dir.clone(), front.id.clone());
            per_task.insert(
                key.clone(),
                own.build().unwrap_or_else(|_| GlobSet::empty()),
            );
            owners_of_task.insert(key, front.owns.clone());
        }
        for approval in feature.approvals.values().flatten() {
            for pattern in &approval.value.scope_changes {
                let line = approval.file.line_of(pattern);
                if let Some(glob) = compile(pattern, &approval.file.path, line, &mut findings) {
                    approved.add(glob);
                }
            }
        }
        record_claims(feature, &per_task, &mut claims);
    }
    let owned = union.build().unwrap_or_else(|_| GlobSet::empty());
    let approved = approved.build().unwrap_or_else(|_| GlobSet::empty());
    for change in &repo.changes {
        if in_ledger(&change.path) || approved.is_match(&change.path) {
            continue;
        }
        let status = change.status.as_str();
        match claims.get(&change.path) {
            Some(claimed) => {
                findings.extend(outside_task(change, claimed, &per_task, &owners_of_task))
            }
            _ => {
                if owned.is_match(&change.path) {
                    continue;
                }
                findings.push(
                    GateFinding::new(
                        diff_within_ownership::UNOWNED,
                        format!(
                            "{} was {status} outside every task's ownership",
                            change.path
                        ),
                        format!(
                            "{} is {status} against the merge base, but no task's `owns` covers \
                             it and no approval lists it in `scope_changes`. Revert the change, \
                             assign it to the task that needs it, or record an approved scope \
                             change.",
                            change.path
                        ),
                    )
                    .at(&change.path, None),
                );
            }
        }
    }
    findings
}
/// Which task each changed file is cited for, by the implementation receipts of `feature`.
fn record_claims(
    feature: &FeatureLedger,
    per_task: &BTreeMap<TaskKey, GlobSet>,
    claims: &mut BTreeMap<String, Vec<Claim>>,
) {
    for receipt in feature.implementations.values().flatten() {
        let task: TaskKey = (feature.dir.clone(), receipt.value.task_id.clone());
        // A receipt of a task the feature does not define is task-handoffs-pass's to report.
        if !per_task.contains_key(&task) {
            continue;
        }
        for obligation in &receipt.value.obligations {
            for cited in obligation
                .implementation_refs
                .iter()
                .chain(&obligation.test_refs)
            {
                let path = feature_relative(&parse_reference(cited).path).to_owned();
                let entry = claims.entry(path).or_default();
                if entry
                    .iter()
                    .any(|c| c.task == task && c.receipt == receipt.file.path)
                {
                    continue;
                }
                entry.push(Claim {
                    task: task.clone(),
                    receipt: receipt.file.path.clone(),
                    line: receipt.file.line_of(&quoted(cited)),
                });
            }
        }
    }
}

/// A changed file the tasks citing it do not own, unless one of them does.
fn outside_task(
    change: &Change,
    claimed: &[Claim],
    per_task: &BTreeMap<TaskKey, GlobSet>,
    owners_of_task: &BTreeMap<TaskKey, Vec<String>>,
) -> Option<GateFinding> {
    let status = change.status.as_str();
    let owns_it = claimed.iter().any(|claim| {
        per_task
            .get(&claim.task)
            .is_some_and(|set| set.is_match(&change.path))
    });
    if owns_it {
        return None;
    }
    let first = &claimed[0];
    let by: Vec<String> = claimed
        .iter()
        .map(|claim| match claim.line {
            Some(line) => format!("{} ({} line {line})", claim.task.1, claim.receipt),
            None => format!("{} ({})", claim.task.1, claim.receipt),
        })
        .collect();
    let others: Vec<String> = per_task
        .iter()
        .filter(|(_, set)| set.is_match(&change.path))
        .map(|((_, task), _)| task.clone())
        .collect();
    let owner = if others.is_empty() {
        "No task owns it".to_owned()
    } else {
        format!("Only {} owns it", others.join(", "))
    };
    let owns = owners_of_task
        .get(&first.task)
        .map(|owns| owns.join(", "))
        .unwrap_or_default();
    Some(
        GateFinding::new(
            diff_within_ownership::OUTSIDE_TASK,
            format!(
                "{} was {status} by task {}, outside that task's ownership",
                change.path, first.task.1
            ),
            format!(
                "{} is {status} against the merge base and cited as implementation by \
                     {}, but `owns` of {} is [{owns}]: the task changed a file outside \
                     its ownership. {owner}, and no approval lists it in \
                     `scope_changes`. Move the change to the task that owns the file, \
                     extend the task's ownership, or record an approved scope change.",
                change.path,
                by.join(", "),
                first.task.1,
            ),
        )
        .at(&change.path, None),
    )
}
