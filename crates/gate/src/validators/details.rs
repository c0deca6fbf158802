//! The detail-ledger validators: `detail-expansion`, `obligation-test-plan` and `traceability`.

use std::collections::{BTreeMap, BTreeSet};

use crate::check::rules::*;
use crate::context::{all_obligations, live_obligations};
use crate::finding::GateFinding;
use crate::ledger::{
    Conclusion, DetailCategory, DetailConclusion, Obligation, Requirement, Requirements, TraceRow,
};
use crate::load::{feature_relative, quoted, FeatureLedger, Parsed, TextFile};

/// `detail-expansion`: there are requirements; ids are unique; every requirement concludes all 15
/// categories; an applicable category has a live obligation; a not-applicable one gives a reason;
/// none requires clarification; no obligation belongs to a category concluded not applicable.
pub fn detail_expansion(feature: &FeatureLedger) -> Vec<GateFinding> {
    let Some(requirements) = &feature.requirements else {
        return Vec::new();
    };
    let mut findings = unique_ids(requirements);
    for requirement in &requirements.value.requirements {
        findings.extend(conclusions(&requirements.file, requirement));
    }
    findings
}

/// There are requirements, and every requirement and obligation id is unique.
fn unique_ids(requirements: &Parsed<Requirements>) -> Vec<GateFinding> {
    let file = &requirements.file;
    let mut findings = Vec::new();
    if requirements.value.requirements.is_empty() {
        findings.push(
            GateFinding::new(
                detail_expansion::NO_REQUIREMENT,
                format!("{} lists no requirement", file.path),
                format!(
                    "{} has an empty `requirements` list: nothing of spec.md was made verifiable. \
                     Expand the spec into requirements and obligations.",
                    file.path
                ),
            )
            .at(&file.path, file.line_of("\"requirements\"")),
        );
    }
    let mut seen = BTreeSet::new();
    for requirement in &requirements.value.requirements {
        if !seen.insert(requirement.id.as_str()) {
            findings.push(
                GateFinding::new(
                    detail_expansion::DUPLICATE_ID,
                    format!("requirement id {} is not unique", requirement.id),
                    format!(
                        "{} defines {} more than once; every requirement id is unique.",
                        file.path, requirement.id
                    ),
                )
                .at(&file.path, file.line_of_json(&requirement.id))
                .requirement(&requirement.id),
            );
        }
    }
    for (requirement, obligation) in all_obligations(&requirements.value) {
        if !seen.insert(obligation.id.as_str()) {
            findings.push(
                GateFinding::new(
                    detail_expansion::DUPLICATE_ID,
                    format!("obligation id {} is not unique", obligation.id),
                    format!(
                        "{} uses id {} more than once; every requirement and obligation id is \
                         unique.",
                        file.path, obligation.id
                    ),
                )
                .at(&file.path, file.line_of_json(&obligation.id))
                .requirement(&requirement.id)
                .obligation(&obligation.id),
            );
        }
    }
    findings
}

/// Every detail category of `requirement` concluded, and each conclusion consistent with its
/// obligations.
fn conclusions(file: &TextFile, requirement: &Requirement) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    let anchor = quoted(&requirement.id);
    for category in DetailCategory::ALL {
        let name = category.as_str();
        let line = file.line_after(&anchor, &quoted(name));
        let Some(detail) = requirement.details.get(&category) else {
            findings.push(
                GateFinding::new(
                    detail_expansion::UNCONCLUDED,
                    format!("requirement {} does not conclude `{name}`", requirement.id),
                    format!(
                        "{} has no conclusion for detail category `{name}` in `details`. \
                         Decide it: `applicable` (with obligations), `not_applicable` (with a \
                         reason) or `requires_clarification`.",
                        requirement.id
                    ),
                )
                .at(&file.path, file.line_of_json(&requirement.id))
                .requirement(&requirement.id),
            );
            continue;
        };
        match detail.conclusion {
            Conclusion::Applicable => {
                let has_obligation = requirement.obligations.iter().any(|obligation| {
                    obligation.is_live() && obligation.category == Some(category)
                });
                if !has_obligation {
                    findings.push(
                        GateFinding::new(
                            detail_expansion::NO_OBLIGATION,
                            format!("requirement {} has no `{name}` obligation", requirement.id),
                            format!(
                                "{} concludes `{name}` applicable, but none of its live \
                                 obligations has category `{name}`: the detail was \
                                 recognised and then lost. Add the obligation (with task, \
                                 test plan, code, tests and evidence).",
                                requirement.id
                            ),
                        )
                        .at(&file.path, line)
                        .requirement(&requirement.id),
                    );
                }
            }
            Conclusion::NotApplicable => {
                findings.extend(dismissed(file, requirement, category, detail, line));
            }
            Conclusion::RequiresClarification => findings.push(
                GateFinding::new(
                    detail_expansion::CLARIFICATION,
                    format!(
                        "requirement {} needs clarification on `{name}`",
                        requirement.id
                    ),
                    format!(
                        "{} concludes `{name}` requires_clarification: the behaviour is \
                         undecided, which blocks the pipeline. Clarify it with the spec's \
                         owner and record applicable or not_applicable.",
                        requirement.id
                    ),
                )
                .at(&file.path, line)
                .requirement(&requirement.id),
            ),
        }
    }
    findings
}

/// A category concluded not applicable: it gives a reason, and no live obligation is of it.
fn dismissed(
    file: &TextFile,
    requirement: &Requirement,
    category: DetailCategory,
    detail: &DetailConclusion,
    line: Option<u64>,
) -> Vec<GateFinding> {
    let name = category.as_str();
    let mut findings = Vec::new();
    if detail.reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
        findings.push(
            GateFinding::new(
                detail_expansion::NO_REASON,
                format!(
                    "requirement {} dismisses `{name}` without a reason",
                    requirement.id
                ),
                format!(
                    "{} concludes `{name}` not_applicable without a `reason`. \
                         Say why it does not apply.",
                    requirement.id
                ),
            )
            .at(&file.path, line)
            .requirement(&requirement.id),
        );
    }
    for obligation in &requirement.obligations {
        if obligation.is_live() && obligation.category == Some(category) {
            findings.push(
                GateFinding::new(
                    detail_expansion::CONTRADICTED,
                    format!(
                        "obligation {} is `{name}`, which {} says does not apply",
                        obligation.id, requirement.id
                    ),
                    format!(
                        "{} concludes `{name}` not_applicable, yet {} is a \
                             `{name}` obligation. Make the conclusion and the \
                             obligations agree.",
                        requirement.id, obligation.id
                    ),
                )
                .at(&file.path, file.line_of_json(&obligation.id))
                .requirement(&requirement.id)
                .obligation(&obligation.id),
            );
        }
    }
    findings
}

/// `obligation-test-plan`: every live obligation has a test plan with at least one non-blank
/// expected result; a `forbidden-behavior` obligation's plan names at least one forbidden effect.
pub fn obligation_test_plan(feature: &FeatureLedger) -> Vec<GateFinding> {
    let Some(requirements) = &feature.requirements else {
        return Vec::new();
    };
    let file = &requirements.file;
    let mut findings = Vec::new();
    for (requirement, obligation) in live_obligations(&requirements.value) {
        let finding = |title: String, description: String| {
            GateFinding::new(obligation_test_plan::INCOMPLETE, title, description)
                .at(&file.path, file.line_of_json(&obligation.id))
                .requirement(&requirement.id)
                .obligation(&obligation.id)
        };
        let Some(plan) = &obligation.test_plan else {
            findings.push(finding(
                format!("obligation {} has no test plan", obligation.id),
                format!(
                    "{} of {} has no `test_plan`: nobody decided how it will be verified. Add a \
                     plan with setup, action and the expected results.",
                    obligation.id, requirement.id
                ),
            ));
            continue;
        };
        if !plan.expected.iter().any(|item| !item.trim().is_empty()) {
            findings.push(finding(
                format!("the test plan of {} expects nothing", obligation.id),
                format!(
                    "The test plan of {} has no `expected` result, so no test can fail it. List \
                     what must be observed.",
                    obligation.id
                ),
            ));
        }
        if obligation.category == Some(DetailCategory::ForbiddenBehavior)
            && !plan.forbidden.iter().any(|item| !item.trim().is_empty())
        {
            findings.push(finding(
                format!("the test plan of {} forbids nothing", obligation.id),
                format!(
                    "{} is a forbidden-behavior obligation, but its test plan's `forbidden` \
                     list is empty: nothing asserts the effect does not happen. List the \
                     forbidden effects the test checks for.",
                    obligation.id
                ),
            ));
        }
    }
    findings
}

fn set(items: &[String]) -> BTreeSet<&str> {
    items.iter().map(|item| feature_relative(item)).collect()
}

/// `traceability`: one row per live obligation, rows name known obligations, and each row agrees
/// with its obligation (requirement, task, code refs, test refs, evidence receipts, verdict).
pub fn traceability(feature: &FeatureLedger) -> Vec<GateFinding> {
    let (Some(requirements), Some(traceability)) = (&feature.requirements, &feature.traceability)
    else {
        return Vec::new();
    };
    let file = &traceability.file;
    let obligations: BTreeMap<&str, (&str, &Obligation)> = all_obligations(&requirements.value)
        .map(|(requirement, obligation)| {
            (
                obligation.id.as_str(),
                (requirement.id.as_str(), obligation),
            )
        })
        .collect();
    let mut findings = Vec::new();
    let mut rows_per_obligation: BTreeMap<&str, usize> = BTreeMap::new();
    for row in &traceability.value.rows {
        let line = file.line_of_json(&row.obligation_id);
        *rows_per_obligation
            .entry(row.obligation_id.as_str())
            .or_default() += 1;
        let Some((requirement_id, obligation)) = obligations.get(row.obligation_id.as_str()) else {
            findings.push(
                GateFinding::new(
                    traceability::UNKNOWN_OBLIGATION,
                    format!(
                        "traceability row names unknown obligation {}",
                        row.obligation_id
                    ),
                    format!(
                        "{} has a row for {}, which {} does not define. Remove the row or fix \
                         its id.",
                        file.path, row.obligation_id, requirements.file.path
                    ),
                )
                .at(&file.path, line)
                .obligation(&row.obligation_id),
            );
            continue;
        };
        let disagreements = disagreements(row, requirement_id, obligation);
        if !disagreements.is_empty() {
            findings.push(
                GateFinding::new(
                    traceability::DISAGREES,
                    format!(
                        "traceability disagrees with requirements.json on {}",
                        row.obligation_id
                    ),
                    format!(
                        "The row of {} in {}: {}. Two sources of truth that differ; make the \
                         row match requirements.json.",
                        row.obligation_id,
                        file.path,
                        disagreements.join("; ")
                    ),
                )
                .at(&file.path, line)
                .requirement(*requirement_id)
                .obligation(&row.obligation_id),
            );
        }
    }
    for (requirement, obligation) in live_obligations(&requirements.value) {
        match rows_per_obligation.get(obligation.id.as_str()) {
            None => findings.push(
                GateFinding::new(
                    traceability::NO_ROW,
                    format!("obligation {} has no traceability row", obligation.id),
                    format!(
                        "{} has no row for {} of {}. Add the row (requirement, task, code refs, \
                         test refs, evidence receipts, verdict).",
                        file.path, obligation.id, requirement.id
                    ),
                )
                .at(&file.path, file.line_of("\"rows\""))
                .requirement(&requirement.id)
                .obligation(&obligation.id),
            ),
            Some(count) if *count > 1 => findings.push(
                GateFinding::new(
                    traceability::ROWS,
                    format!("obligation {} has {count} traceability rows", obligation.id),
                    format!(
                        "{} has {count} rows for {}; the ledger keeps exactly one row per \
                         obligation.",
                        file.path, obligation.id
                    ),
                )
                .at(&file.path, file.line_of_json(&obligation.id))
                .requirement(&requirement.id)
                .obligation(&obligation.id),
            ),
            Some(_) => {}
        }
    }
    findings
}
/// Where a traceability row differs from the obligation it names in requirements.json.
fn disagreements(row: &TraceRow, requirement_id: &str, obligation: &Obligation) -> Vec<String> {
    let mut disagreements = Vec::new();
    if row.requirement_id != requirement_id {
        disagreements.push(format!(
            "requirement_id is {} but the obligation belongs to {requirement_id}",
            row.requirement_id
        ));
    }
    if !obligation.task_ids.contains(&row.task_id) {
        disagreements.push(format!(
            "task_id {} is not among the obligation's task_ids [{}]",
            row.task_id,
            obligation.task_ids.join(", ")
        ));
    }
    for (name, in_row, in_requirements) in [
        ("code_refs", &row.code_refs, &obligation.code_refs),
        ("test_refs", &row.test_refs, &obligation.test_refs),
        (
            "evidence_receipts",
            &row.evidence_receipts,
            &obligation.evidence_receipts,
        ),
    ] {
        if set(in_row) != set(in_requirements) {
            disagreements.push(format!(
                "{name} is [{}] but requirements.json says [{}]",
                in_row.join(", "),
                in_requirements.join(", ")
            ));
        }
    }
    if row.verdict != obligation.status {
        disagreements.push(format!(
            "verdict is {} but the obligation's status is {}",
            row.verdict.as_str(),
            obligation.status.as_str()
        ));
    }
    disagreements
}
