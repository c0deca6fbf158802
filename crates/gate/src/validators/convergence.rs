//! The closing validators: `convergence-pass` (the convergence report) and `no-blocking-findings`
//! (findings raised during the work, in `findings/` and inside review and evaluation receipts).

use std::collections::BTreeMap;

use crate::check::rules::*;
use crate::context::{live_obligations, Context};
use crate::finding::GateFinding;
use crate::ledger::{
    Classification, ConvergenceReport, FindingStatus, LedgerFinding, ReceiptFinding, TestResult,
};
use crate::load::{feature_relative, quoted, FeatureLedger, Parsed};
use crate::repo::is_plain_relative;

/// `convergence-pass`: the convergence report judges the current source tree, classifies every
/// live obligation `implemented`, lists no unapproved unrequested code and no blocking finding.
pub fn convergence_pass(ctx: &Context, feature: &FeatureLedger) -> Vec<GateFinding> {
    let Some(report) = &feature.convergence else {
        return Vec::new();
    };
    let file = &report.file;
    let mut findings = Vec::new();
    if report.value.git_tree != ctx.repo.source_tree {
        findings.push(
            GateFinding::new(
                convergence_pass::OLD_TREE,
                "the convergence report judges an old source tree".to_owned(),
                format!(
                    "{} classifies source tree {}, but the current one is {}: the code changed \
                     after convergence. Converge again on the current code.",
                    file.path, report.value.git_tree, ctx.repo.source_tree
                ),
            )
            .at(&file.path, file.line_of("\"git_tree\"")),
        );
    }
    findings.extend(classifications(report, feature));
    for unrequested in &report.value.unrequested {
        if unrequested.approved {
            continue;
        }
        let finding = GateFinding::new(
            convergence_pass::UNREQUESTED_UNAPPROVED,
            format!("unrequested change {} is not approved", unrequested.path),
            format!(
                "{} reports {} as unrequested ({}) and not approved: code that no requirement \
                 asked for. Remove it, or approve it as a scope change.",
                file.path, unrequested.path, unrequested.description
            ),
        );
        let finding = if is_plain_relative(&unrequested.path) {
            finding.at(&unrequested.path, None)
        } else {
            finding.at(&file.path, file.line_of(&quoted(&unrequested.path)))
        };
        findings.push(finding);
    }
    if !report.value.blocking_findings.is_empty() {
        findings.push(
            GateFinding::new(
                convergence_pass::BLOCKING,
                format!(
                    "the convergence report lists {} blocking finding(s)",
                    report.value.blocking_findings.len()
                ),
                format!(
                    "{} lists blocking findings: convergence did not pass. Resolve them and \
                     converge again.",
                    file.path
                ),
            )
            .at(&file.path, file.line_of("\"blocking_findings\"")),
        );
    }
    findings
}

/// Every live obligation classified by the convergence report, and classified `implemented`.
fn classifications(
    report: &Parsed<ConvergenceReport>,
    feature: &FeatureLedger,
) -> Vec<GateFinding> {
    let file = &report.file;
    let mut findings = Vec::new();
    let classified: BTreeMap<&str, Classification> = report
        .value
        .obligations
        .iter()
        .map(|entry| (entry.id.as_str(), entry.classification))
        .collect();
    if let Some(requirements) = &feature.requirements {
        for (requirement, obligation) in live_obligations(&requirements.value) {
            match classified.get(obligation.id.as_str()) {
                None => findings.push(
                    GateFinding::new(
                        convergence_pass::UNCLASSIFIED,
                        format!("convergence did not classify {}", obligation.id),
                        format!(
                            "{} has no entry for {} of {}: convergence never judged whether it \
                             is implemented. Converge again over every obligation.",
                            file.path, obligation.id, requirement.id
                        ),
                    )
                    .at(&file.path, file.line_of("\"obligations\""))
                    .requirement(&requirement.id)
                    .obligation(&obligation.id),
                ),
                Some(Classification::Implemented) => {}
                Some(classification) => findings.push(
                    GateFinding::new(
                        match classification {
                            Classification::Unrequested => convergence_pass::CLASSIFIED_UNREQUESTED,
                            Classification::Unverifiable => convergence_pass::UNVERIFIABLE,
                            _ => convergence_pass::NOT_IMPLEMENTED,
                        },
                        format!(
                            "convergence classifies {} as {}",
                            obligation.id,
                            classification.as_str()
                        ),
                        format!(
                            "{} classifies {} of {} as `{}`; only `implemented` converges. \
                             Return to executing with a task that closes the gap.",
                            file.path,
                            obligation.id,
                            requirement.id,
                            classification.as_str()
                        ),
                    )
                    .at(&file.path, file.line_of(&quoted(&obligation.id)))
                    .requirement(&requirement.id)
                    .obligation(&obligation.id),
                ),
            }
        }
    }
    findings
}

/// `no-blocking-findings`: every BLOCKER or HIGH finding in `findings/` is closed by an existing
/// receipt, and no review or evaluation receipt carries an open BLOCKER or HIGH finding.
pub fn no_blocking_findings(ctx: &Context, feature: &FeatureLedger) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    for finding in feature.findings.values().flatten() {
        let value = &finding.value;
        if !value.severity.is_blocking() {
            continue;
        }
        let problem = match (value.status, value.closed_by.as_deref()) {
            (FindingStatus::Open, _) => Some((
                no_blocking_findings::OPEN,
                "is open",
                finding.file.line_of("\"status\""),
            )),
            (FindingStatus::Closed, None) => Some((
                no_blocking_findings::CLOSURE_UNPROVEN,
                "is closed without `closed_by` evidence",
                finding.file.line_of("\"status\""),
            )),
            (FindingStatus::Closed, Some(closed_by)) => {
                let relative = feature_relative(closed_by);
                if is_plain_relative(relative) && ctx.repo.is_file(&feature.path(relative)) {
                    (!closing_receipt_touches(feature, relative, value)).then(|| {
                        (
                            no_blocking_findings::CLOSED_BY_UNRELATED,
                            "is closed by a receipt that is not about its obligation",
                            finding.file.line_of("\"closed_by\""),
                        )
                    })
                } else {
                    Some((
                        no_blocking_findings::CLOSURE_UNPROVEN,
                        "is closed by a receipt that does not exist",
                        finding.file.line_of("\"closed_by\""),
                    ))
                }
            }
        };
        if let Some((rule, why, line)) = problem {
            let mut gate_finding = GateFinding::new(
                rule,
                format!("{} finding {} {why}", value.severity.as_str(), value.id),
                format!(
                    "{} ({}, {}) {why}. A BLOCKER or HIGH finding must be closed with \
                     `closed_by` naming the receipt that shows it fixed.",
                    finding.file.path,
                    value.severity.as_str(),
                    value.kind
                ),
            )
            .at(&finding.file.path, line);
            if let Some(requirement) = &value.requirement_id {
                gate_finding = gate_finding.requirement(requirement);
            }
            if let Some(obligation) = &value.obligation_id {
                gate_finding = gate_finding.obligation(obligation);
            }
            findings.push(gate_finding);
        }
    }
    findings.extend(open_receipt_findings(feature));
    findings
}

/// The open BLOCKER or HIGH findings that review and evaluation receipts carry.
fn open_receipt_findings(feature: &FeatureLedger) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    let receipts = feature
        .reviews
        .values()
        .flatten()
        .map(|review| (&review.file, &review.value.findings))
        .chain(
            feature
                .evaluations
                .values()
                .flatten()
                .map(|evaluation| (&evaluation.file, &evaluation.value.findings)),
        );
    for (file, receipt_findings) in receipts {
        for receipt_finding in receipt_findings {
            if !is_open_blocker(receipt_finding) {
                continue;
            }
            let severity = receipt_finding.severity.as_str();
            let mut gate_finding = GateFinding::new(
                no_blocking_findings::RECEIPT_OPEN,
                format!("{} carries an open {severity} finding", file.path),
                format!(
                    "{} reports a {severity} finding ({}) that is not closed. Fix it and record \
                     `status: closed` once verified.",
                    file.path,
                    receipt_finding
                        .reason
                        .as_deref()
                        .or(receipt_finding.evidence.as_deref())
                        .unwrap_or("no reason given")
                ),
            )
            .at(&file.path, file.line_of(&quoted(severity)));
            if let Some(requirement) = &receipt_finding.requirement_id {
                gate_finding = gate_finding.requirement(requirement);
            }
            if let Some(obligation) = &receipt_finding.obligation_id {
                gate_finding = gate_finding.obligation(obligation);
            }
            findings.push(gate_finding);
        }
    }
    findings
}

/// Whether the receipt at `relative` (feature folder) is about the place the finding names: a
/// test receipt with a `pass` result for its obligation, an implementation receipt listing the
/// obligation, or the review of a task that lists it. A finding that names only a requirement is
/// touched by a receipt about any of the requirement's obligations; one that names neither by
/// any receipt.
fn closing_receipt_touches(
    feature: &FeatureLedger,
    relative: &str,
    finding: &LedgerFinding,
) -> bool {
    let obligations: Vec<String> = match (&finding.obligation_id, &finding.requirement_id) {
        (Some(obligation), _) => vec![obligation.clone()],
        (None, Some(requirement)) => feature
            .requirements
            .as_ref()
            .map(|requirements| {
                requirements
                    .value
                    .requirements
                    .iter()
                    .filter(|candidate| &candidate.id == requirement)
                    .flat_map(|candidate| candidate.obligations.iter().map(|o| o.id.clone()))
                    .collect()
            })
            .unwrap_or_default(),
        (None, None) => return true,
    };
    let about = |id: &str| obligations.iter().any(|obligation| obligation == id);
    if let Some(Some(receipt)) = feature.tests.get(relative) {
        return receipt
            .value
            .obligations
            .iter()
            .any(|tested| about(&tested.id) && tested.result == TestResult::Pass);
    }
    if let Some(Some(receipt)) = feature.implementations.get(relative) {
        return receipt.value.obligations.iter().any(|done| about(&done.id));
    }
    if let Some(Some(review)) = feature.reviews.get(relative) {
        return feature
            .tasks
            .get(&review.value.task_id)
            .and_then(|task| task.front.as_ref())
            .is_some_and(|front| front.obligations.iter().any(|id| about(id)));
    }
    // Evaluations and other receipts judge the whole feature.
    true
}

fn is_open_blocker(finding: &ReceiptFinding) -> bool {
    finding.severity.is_blocking() && finding.status != Some(FindingStatus::Closed)
}
