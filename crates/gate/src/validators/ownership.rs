//! `diff-within-ownership`: every file changed against the merge base (committed, staged,
//! unstaged or untracked) is owned by a task or approved as a scope change.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::finding::{GateFinding, ValidatorId};
use crate::load::FeatureLedger;
use crate::repo::RepoView;
use gatebench_gittree::in_ledger;

/// A glob as the ledger writes it; a pattern ending in `/` owns the whole folder. `*` does not
/// cross `/`; `**` does.
fn glob_pattern(pattern: &str) -> String {
    match pattern.strip_suffix('/') {
        Some(folder) => format!("{folder}/**"),
        None => pattern.to_owned(),
    }
}

/// `diff-within-ownership`. Paths under `specs/` (the ledger itself) are exempt. A glob that does
/// not compile is a `ledger-schema` finding at the task or approval that holds it.
pub fn diff_within_ownership(repo: &RepoView, features: &[FeatureLedger]) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    let mut builder = GlobSetBuilder::new();
    let mut add = |pattern: &str,
                   path: &str,
                   line: Option<u64>,
                   findings: &mut Vec<GateFinding>| {
        match GlobBuilder::new(&glob_pattern(pattern))
            .literal_separator(true)
            .build()
        {
            Ok(glob) => {
                builder.add(glob);
            }
            Err(error) => findings.push(
                GateFinding::new(
                    ValidatorId::LedgerSchema,
                    format!("`{pattern}` is not a valid glob"),
                    format!("{path}: `{pattern}` is not a valid glob ({error}). Fix the pattern."),
                )
                .at(path, line),
            ),
        }
    };
    for feature in features {
        for task in feature.tasks.values() {
            let Some(front) = &task.front else { continue };
            for pattern in &front.owns {
                add(
                    pattern,
                    &task.file.path,
                    task.file.line_of(pattern),
                    &mut findings,
                );
            }
        }
        for approval in feature.approvals.values().flatten() {
            for pattern in &approval.value.scope_changes {
                let line = approval.file.line_of(pattern);
                add(pattern, &approval.file.path, line, &mut findings);
            }
        }
    }
    let owned = builder.build().unwrap_or_else(|_| GlobSet::empty());
    for change in &repo.changes {
        if in_ledger(&change.path) || owned.is_match(&change.path) {
            continue;
        }
        let status = change.status.as_str();
        findings.push(
            GateFinding::new(
                ValidatorId::DiffWithinOwnership,
                format!(
                    "{} was {status} outside every task's ownership",
                    change.path
                ),
                format!(
                    "{} is {status} against the merge base, but no task's `owns` covers it and no \
                     approval lists it in `scope_changes`. Revert the change, assign it to the \
                     task that needs it, or record an approved scope change.",
                    change.path
                ),
            )
            .at(&change.path, None),
        );
    }
    findings
}
