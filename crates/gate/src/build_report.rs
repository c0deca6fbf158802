//! Assembling the verify JSON report v1 (docs/CONCEPTS.md#verify-report-v1) from the gate's
//! findings: `findings[]` and their `issues[]` mirror, scope, triage and one skill result per check
//! group. Shared by the reference gate and the legacy checker.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use crate::finding::{GateFinding, WARNING_MAX};
use crate::repo::{EnvError, RepoView};
use crate::scope::{self, DetectedScope, ScopeMode};
use gatebench_report::{
    CustomGates, ExcludedFile, Finding, FindingLocation, Issue, IssueLocation, Overall,
    OverallResult, Report, ReportError, Scope, ScopeFile, SkillReason, SkillResult, SkillStatus,
    Status, Triage,
};

/// What every finding of this crate's gates is attributed to.
pub const SOURCE: &str = "gatebench-gate";

impl GateFinding {
    /// Most severe first, then by place, then by content: the same input gives the same order.
    fn report_order(&self, other: &GateFinding) -> Ordering {
        other
            .severity
            .cmp(&self.severity)
            .then_with(|| self.path.cmp(&other.path))
            .then_with(|| self.line.cmp(&other.line))
            .then_with(|| self.validator.cmp(other.validator))
            .then_with(|| self.requirement_id.cmp(&other.requirement_id))
            .then_with(|| self.obligation_id.cmp(&other.obligation_id))
            .then_with(|| self.title.cmp(&other.title))
            .then_with(|| self.description.cmp(&other.description))
    }
}

/// A group of checks reported as one skill in `skillResults` and `triage`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillGroup {
    pub skill: &'static str,
    /// Why the group runs (the triage reason).
    pub reason: &'static str,
    /// The validator ids the group holds, in the order they are listed in notes.
    pub validators: Vec<&'static str>,
}

/// The scope of a run that resolved HEAD and the merge base, detected as the verify pipeline
/// (docs/CONCEPTS.md#verify-scope) says (staged, then unstaged, then branch) unless the caller asked
/// for a mode.
pub fn scope_of(repo: &RepoView, base_ref: &str) -> Scope {
    scope_in_mode(repo, base_ref, None)
}

/// `scope_of` with an explicit mode (`gatebench gate --scope`).
pub fn scope_in_mode(repo: &RepoView, base_ref: &str, mode: Option<ScopeMode>) -> Scope {
    let detected = scope::detect(repo, mode).unwrap_or_else(|_| {
        // git could not diff (should not happen once RepoView opened): the work tree against the
        // merge base, as a branch scope without line ranges.
        DetectedScope {
            mode: ScopeMode::Branch,
            included: repo
                .changes
                .iter()
                .map(|change| ScopeFile {
                    path: change.path.clone(),
                    status: change.status.as_str().to_owned(),
                    lines: Vec::new(),
                })
                .collect(),
            excluded: vec![ExcludedFile {
                path: "ALL_OTHER_FILES".to_owned(),
                reason: "outside selected scope".to_owned(),
            }],
        }
    });
    Scope {
        depth: "light".to_owned(),
        mode: detected.mode.as_str().to_owned(),
        base_ref: Some(base_ref.to_owned()),
        merge_base: Some(repo.merge_base.clone()),
        head_sha: Some(repo.head_sha.clone()),
        included_files: detected.included.clone(),
        excluded_files: detected.excluded.clone(),
        files: detected.included,
        excluded: detected.excluded,
        delta_base_sha: None,
        delta_files: Vec::new(),
        extra: BTreeMap::new(),
    }
}

/// The report of a run that judged the repository: `pass` without findings, `issues-found` with.
pub fn judged(items: Vec<GateFinding>, scope: Scope, groups: &[SkillGroup]) -> Report {
    let result = if items.iter().all(|item| item.severity <= WARNING_MAX) {
        OverallResult::Pass
    } else {
        OverallResult::IssuesFound
    };
    let skill_results = groups
        .iter()
        .map(|group| {
            let mut failed: BTreeMap<&str, usize> = BTreeMap::new();
            for item in items.iter().filter(|item| item.severity > WARNING_MAX) {
                if group.validators.contains(&item.validator) {
                    *failed.entry(item.validator).or_default() += 1;
                }
            }
            let count = group.validators.len();
            let (status, notes) = if failed.is_empty() {
                (SkillStatus::Passed, format!("{count} checks, all passed"))
            } else {
                let listed: Vec<String> = group
                    .validators
                    .iter()
                    .filter_map(|id| failed.get(id).map(|n| format!("{id} ({n})")))
                    .collect();
                (
                    SkillStatus::Failed,
                    format!(
                        "{count} checks, {} failed: {}",
                        failed.len(),
                        listed.join(", ")
                    ),
                )
            };
            SkillResult {
                skill: group.skill.to_owned(),
                status,
                notes,
            }
        })
        .collect();
    assemble(
        Status::Ok,
        result,
        None,
        items,
        scope,
        run_triage(groups),
        skill_results,
    )
}

/// The report of a run that could not judge anything (e.g. no feature folder).
pub fn blocked(items: Vec<GateFinding>, scope: Scope, groups: &[SkillGroup], why: &str) -> Report {
    let skill_results = groups
        .iter()
        .map(|group| SkillResult {
            skill: group.skill.to_owned(),
            status: SkillStatus::Blocked,
            notes: why.to_owned(),
        })
        .collect();
    assemble(
        Status::Blocked,
        OverallResult::Blocked,
        None,
        items,
        scope,
        run_triage(groups),
        skill_results,
    )
}

/// The report of a run that failed for a reason of the environment: the full v1 shape, no merge
/// base, empty file lists, every skill `NOT_RUN`.
pub fn errored(error: &EnvError, base_ref: &str, groups: &[SkillGroup]) -> Report {
    let note = format!("not run: {}", error.code);
    let scope = Scope {
        depth: "light".to_owned(),
        mode: "branch".to_owned(),
        base_ref: Some(base_ref.to_owned()),
        merge_base: None,
        head_sha: error.head_sha.clone(),
        included_files: Vec::new(),
        excluded_files: Vec::new(),
        files: Vec::new(),
        excluded: Vec::new(),
        delta_base_sha: None,
        delta_files: Vec::new(),
        extra: BTreeMap::new(),
    };
    let skipped: Vec<SkillReason> = groups
        .iter()
        .map(|group| SkillReason {
            skill: group.skill.to_owned(),
            reason: format!("verification could not start: {}", error.message),
        })
        .collect();
    let triage = Triage::new(Vec::new(), skipped);
    let skill_results = groups
        .iter()
        .map(|group| SkillResult {
            skill: group.skill.to_owned(),
            status: SkillStatus::NotRun,
            notes: note.clone(),
        })
        .collect();
    assemble(
        Status::Error,
        OverallResult::Error,
        Some(ReportError {
            code: error.code.to_owned(),
            message: error.message.clone(),
        }),
        Vec::new(),
        scope,
        triage,
        skill_results,
    )
}

fn run_triage(groups: &[SkillGroup]) -> Triage {
    let run: Vec<SkillReason> = groups
        .iter()
        .map(|group| SkillReason {
            skill: group.skill.to_owned(),
            reason: group.reason.to_owned(),
        })
        .collect();
    Triage::new(run, Vec::new())
}

/// The report v1 from its parts: findings sorted (most severe first) and deduplicated, mirrored as
/// `issues` `VI-1..`.
pub(crate) fn assemble(
    status: Status,
    result: OverallResult,
    error: Option<ReportError>,
    mut items: Vec<GateFinding>,
    scope: Scope,
    triage: Triage,
    skill_results: Vec<SkillResult>,
) -> Report {
    items.sort_by(GateFinding::report_order);
    items.dedup();
    let mut seen = BTreeSet::new();
    items.retain(|item| seen.insert(item.clone().key()));
    let findings = items.iter().map(to_finding).collect();
    let issues = items
        .iter()
        .enumerate()
        .map(|(index, item)| Issue {
            id: format!("VI-{}", index + 1),
            severity: item.severity,
            title: item.title.clone(),
            sources: vec![SOURCE.to_owned()],
            location: item.path.as_ref().map(|path| IssueLocation {
                path: path.clone(),
                line: item.line,
                end_line: item.end_line.filter(|end| Some(*end) != item.line),
            }),
            description: item.description.clone(),
            extra: BTreeMap::new(),
        })
        .collect();
    Report {
        schema_version: 1,
        status,
        error,
        findings,
        overall: Overall {
            result,
            mode: Some("branch".to_owned()),
        },
        scope,
        known_findings: None,
        deferred_to_epic: Vec::new(),
        triage,
        skill_results,
        issues,
        exerciser_verification: Vec::new(),
        custom_gates: CustomGates::default(),
        cost: None,
        extra: BTreeMap::new(),
    }
}

/// What tells two findings apart: check, path, line, title, requirement, obligation.
type FindingKey = (
    &'static str,
    Option<String>,
    Option<u64>,
    String,
    Option<String>,
    Option<String>,
);

impl GateFinding {
    /// Two items that say the same thing about the same place are one finding.
    fn key(self) -> FindingKey {
        (
            self.validator,
            self.path,
            self.line,
            self.title,
            self.requirement_id,
            self.obligation_id,
        )
    }
}

fn to_finding(item: &GateFinding) -> Finding {
    Finding {
        title: item.title.clone(),
        severity: item.severity,
        description: item.description.clone(),
        sources: vec![SOURCE.to_owned()],
        location: item.path.as_ref().map(|path| FindingLocation {
            path: path.clone(),
            line: item.line,
        }),
        validator: Some(item.validator.to_owned()),
        rule: item.rule.map(|rule| rule.id()),
        requirement_id: item.requirement_id.clone(),
        obligation_id: item.obligation_id.clone(),
        class: Some(item.class.as_str().to_owned()),
        extra: BTreeMap::new(),
    }
}
