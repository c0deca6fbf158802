//! The evidence validators: `obligation-evidence-closure`, `evidence-bound-to-current-tree`,
//! `review-receipts-pass` and `approval-current`.

use crate::check::rules::*;
use crate::check::Class;
use crate::context::{all_obligations, hash_matches, live_obligations, sha256_ref, Context};
use crate::finding::GateFinding;
use crate::ledger::{ObligationStatus, ReviewVerdict, TestReceipt, TestResult};
use crate::load::{feature_relative, quoted, FeatureLedger, Parsed, Receipts};
use crate::repo::is_plain_relative;

/// One way a receipt fails to bind the current change.
struct Unbound {
    /// Ends the finding's title: `receipt X {title}`.
    title: &'static str,
    why: String,
    /// The key whose line the finding points at.
    key: &'static str,
}

/// Why a receipt's bindings do not bind the current change (docs/CONCEPTS.md#loom-evidence-binding:
/// evidence binds the current git tree or diff hash). Every binding a receipt records must be
/// current: a `git_tree` equal to the current source tree, a `diff_sha256` equal to the current
/// diff's (`gittree::diff_sha256`); a receipt that records neither binds nothing.
fn unbound(ctx: &Context, git_tree: Option<&str>, diff_sha256: Option<&str>) -> Vec<Unbound> {
    let mut out = Vec::new();
    if git_tree.is_none() && diff_sha256.is_none() {
        out.push(Unbound {
            title: "binds no source tree and no diff",
            why: "it records neither `git_tree` nor `diff_sha256`, so nothing ties it to the \
                  current code"
                .to_owned(),
            key: "\"git_tree\"",
        });
    }
    if let Some(tree) = git_tree {
        if tree != ctx.repo.source_tree {
            out.push(Unbound {
                title: "binds an old source tree",
                why: format!(
                    "it binds source tree {tree}, not the current {}",
                    ctx.repo.source_tree
                ),
                key: "\"git_tree\"",
            });
        }
    }
    if let Some(diff) = diff_sha256 {
        if diff.trim().to_ascii_lowercase() != ctx.repo.diff_sha256 {
            out.push(Unbound {
                title: "binds an old diff",
                why: format!(
                    "it binds diff_sha256 {diff}, not the current change's {}",
                    ctx.repo.diff_sha256
                ),
                key: "\"diff_sha256\"",
            });
        }
    }
    out
}

/// What is wrong with a test receipt taken on its own (not about any one obligation).
fn receipt_defects(ctx: &Context, feature: &FeatureLedger, receipt: &TestReceipt) -> Vec<String> {
    let mut defects: Vec<String> = unbound(
        ctx,
        receipt.git_tree.as_deref(),
        receipt.diff_sha256.as_deref(),
    )
    .into_iter()
    .map(|u| u.why)
    .collect();
    if receipt.exit_code != 0 {
        defects.push(format!("its command exited {}", receipt.exit_code));
    }
    if let Some(why) = log_defect(ctx, feature, receipt) {
        defects.push(why);
    }
    defects
}

/// Why a test receipt's log does not back it, if it does not.
fn log_defect(ctx: &Context, feature: &FeatureLedger, receipt: &TestReceipt) -> Option<String> {
    let log = feature_relative(&receipt.log_file);
    if !is_plain_relative(log) {
        return Some(format!(
            "its log_file `{}` is not a path inside the feature folder",
            receipt.log_file
        ));
    }
    let path = feature.path(log);
    match ctx.repo.read(&path) {
        None => Some(format!("its log {path} does not exist")),
        Some(content) if !hash_matches(&receipt.log_sha256, &content) => Some(format!(
            "its log_sha256 {} is not the hash of {path} ({})",
            receipt.log_sha256,
            sha256_ref(&content)
        )),
        Some(_) => None,
    }
}

/// Per test receipt: a failed command, a log that does not back it, a result other than pass.
fn test_receipt_findings(ctx: &Context, feature: &FeatureLedger) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    for (key, receipt) in &feature.tests {
        let Some(receipt) = receipt else { continue };
        let file = &receipt.file;
        if receipt.value.exit_code != 0 {
            findings.push(
                GateFinding::new(
                    obligation_evidence_closure::FAILED_COMMAND,
                    format!("test receipt {key} records a failed command"),
                    format!(
                        "{} records `{}` exiting {}: the tests failed. Fix the failures and \
                         record a new receipt.",
                        file.path, receipt.value.command, receipt.value.exit_code
                    ),
                )
                .class(Class::TestFailure)
                .at(&file.path, file.line_of("\"exit_code\"")),
            );
        }
        if let Some(why) = log_defect(ctx, feature, &receipt.value) {
            findings.push(
                GateFinding::new(
                    obligation_evidence_closure::LOG_MISMATCH,
                    format!("test receipt {key} is not backed by its log"),
                    format!(
                        "{}: {why}. The log is the evidence; re-run the command and record the \
                         log and its sha256.",
                        file.path
                    ),
                )
                .at(&file.path, file.line_of("\"log_sha256\"")),
            );
        }
        for tested in &receipt.value.obligations {
            if tested.result != TestResult::Pass {
                findings.push(
                    GateFinding::new(
                        obligation_evidence_closure::RESULT_NOT_PASS,
                        format!(
                            "test receipt {key} records {} as {}",
                            tested.id,
                            tested.result.as_str()
                        ),
                        format!(
                            "{} records result `{}` for {}. Make its tests pass and record a new \
                             receipt.",
                            file.path,
                            tested.result.as_str(),
                            tested.id
                        ),
                    )
                    .class(Class::TestFailure)
                    .at(&file.path, file.line_of(&quoted(&tested.id)))
                    .obligation(&tested.id),
                );
            }
        }
    }
    findings
}

/// Why the test receipt `key` an obligation lists does not show it passing on the current tree
/// (empty when it does).
fn listed_receipt_defects(
    ctx: &Context,
    feature: &FeatureLedger,
    key: &str,
    obligation_id: &str,
) -> Vec<String> {
    match feature.tests.get(key) {
        None => vec![format!(
            "{} is not a test receipt in receipts/tests/",
            feature.path(key)
        )],
        Some(None) => vec!["it does not parse".to_owned()],
        Some(Some(receipt)) => {
            let mut why = receipt_defects(ctx, feature, &receipt.value);
            match receipt
                .value
                .obligations
                .iter()
                .find(|t| t.id == obligation_id)
            {
                None => why.push(format!("it does not list {}", obligation_id)),
                Some(tested) if tested.result != TestResult::Pass => why.push(format!(
                    "it records {} as {}",
                    obligation_id,
                    tested.result.as_str()
                )),
                Some(_) => {}
            }
            why
        }
    }
}

/// `obligation-evidence-closure`: every test receipt is sound on its own (exit 0, its log hashes
/// to `log_sha256`, no obligation failed), and every live obligation is `passing` and covered by
/// at least one receipt in its `evidence_receipts` that exists, binds the current source tree,
/// exited 0, has a matching log and lists the obligation with result pass.
pub fn obligation_evidence_closure(ctx: &Context, feature: &FeatureLedger) -> Vec<GateFinding> {
    let mut findings = test_receipt_findings(ctx, feature);

    let Some(requirements) = &feature.requirements else {
        return findings;
    };
    let file = &requirements.file;
    for (requirement, obligation) in live_obligations(&requirements.value) {
        let line = file.line_of_json(&obligation.id);
        if obligation.status != ObligationStatus::Passing {
            findings.push(
                GateFinding::new(
                    obligation_evidence_closure::NOT_PASSING,
                    format!(
                        "obligation {} is {}",
                        obligation.id,
                        obligation.status.as_str()
                    ),
                    format!(
                        "{} of {} has status `{}`; a finished ledger has every obligation \
                         `passing` (or `superseded` with approval). Close it with passing \
                         evidence.",
                        obligation.id,
                        requirement.id,
                        obligation.status.as_str()
                    ),
                )
                .at(&file.path, line)
                .requirement(&requirement.id)
                .obligation(&obligation.id),
            );
        }
        if obligation.evidence_receipts.is_empty() {
            findings.push(
                GateFinding::new(
                    obligation_evidence_closure::NO_EVIDENCE,
                    format!("obligation {} has no evidence", obligation.id),
                    format!(
                        "{} of {} lists no test receipt in `evidence_receipts`: nothing shows its \
                         tests passed on the current code. Run its tests and record a receipt.",
                        obligation.id, requirement.id
                    ),
                )
                .at(&file.path, line)
                .requirement(&requirement.id)
                .obligation(&obligation.id),
            );
            continue;
        }
        let mut reasons = Vec::new();
        let mut covered = false;
        for listed in &obligation.evidence_receipts {
            let key = feature_relative(listed);
            let why = listed_receipt_defects(ctx, feature, key, &obligation.id);
            if why.is_empty() {
                covered = true;
                break;
            }
            reasons.push(format!("{key}: {}", why.join("; ")));
        }
        if !covered {
            findings.push(
                GateFinding::new(
                    obligation_evidence_closure::NO_CURRENT_EVIDENCE,
                    format!(
                        "obligation {} has no passing evidence for the current tree",
                        obligation.id
                    ),
                    format!(
                        "None of the receipts {} lists for {} shows it passing on the current \
                         source tree {} ({}). Run its tests on the current code and record a \
                         receipt that lists it with result pass.",
                        obligation.id,
                        requirement.id,
                        ctx.repo.source_tree,
                        reasons.join(" | ")
                    ),
                )
                .at(&file.path, line)
                .requirement(&requirement.id)
                .obligation(&obligation.id),
            );
        }
    }
    findings
}

/// One stale-receipt finding per receipt of `receipts` that does not bind the current change:
/// a `git_tree` that is not the current source tree, a `diff_sha256` that is not the current
/// diff's, or neither recorded.
fn stale<T>(
    ctx: &Context,
    kind: &str,
    receipts: &Receipts<T>,
    bindings: impl Fn(&T) -> (Option<&str>, Option<&str>),
    findings: &mut Vec<GateFinding>,
) {
    for (key, receipt) in receipts {
        let Some(Parsed { file, value }) = receipt else {
            continue;
        };
        let (git_tree, diff_sha256) = bindings(value);
        let defects = unbound(ctx, git_tree, diff_sha256);
        let Some(first) = defects.first() else {
            continue;
        };
        let why: Vec<&str> = defects.iter().map(|u| u.why.as_str()).collect();
        findings.push(
            GateFinding::new(
                evidence_bound_to_current_tree::STALE,
                format!("{kind} receipt {key} {}", first.title),
                format!(
                    "{}: {}. The current source tree (the work tree without specs/) is {} and \
                     the current diff against the merge base is {}: the code changed after this \
                     evidence was taken. Re-run and record the receipt for the current code.",
                    file.path,
                    why.join("; "),
                    ctx.repo.source_tree,
                    ctx.repo.diff_sha256
                ),
            )
            .at(&file.path, file.line_of(first.key)),
        );
    }
}

/// `evidence-bound-to-current-tree`: every test, review, implementation and evaluation receipt
/// binds the current change (its source tree or its diff).
pub fn evidence_bound_to_current_tree(ctx: &Context, feature: &FeatureLedger) -> Vec<GateFinding> {
    fn pair<'a>(
        git_tree: &'a Option<String>,
        diff_sha256: &'a Option<String>,
    ) -> (Option<&'a str>, Option<&'a str>) {
        (git_tree.as_deref(), diff_sha256.as_deref())
    }
    let mut findings = Vec::new();
    stale(
        ctx,
        "test",
        &feature.tests,
        |r| pair(&r.git_tree, &r.diff_sha256),
        &mut findings,
    );
    stale(
        ctx,
        "review",
        &feature.reviews,
        |r| pair(&r.git_tree, &r.diff_sha256),
        &mut findings,
    );
    stale(
        ctx,
        "implementation",
        &feature.implementations,
        |r| pair(&r.git_tree, &r.diff_sha256),
        &mut findings,
    );
    stale(
        ctx,
        "evaluation",
        &feature.evaluations,
        |r| pair(&r.git_tree, &r.diff_sha256),
        &mut findings,
    );
    findings
}

/// The evaluator the Loom plan (docs/CONCEPTS.md#loom-omission-hunter) always requires.
const OMISSION_HUNTER: &str = "omission-hunter";

/// `review-receipts-pass`: every required reviewer (workflow `reviewers`, and `omission-hunter`
/// always) has an evaluation receipt with verdict pass, and no review or evaluation says fail.
pub fn review_receipts_pass(ctx: &Context, feature: &FeatureLedger) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    // The Loom plan (docs/CONCEPTS.md#loom-omission-hunter): every execution ends with the
    // omission-hunter's reverse review, whatever reviewers a workflow lists; a workflow cannot opt
    // out of it.
    let mut reviewers = ctx.workflow.reviewers.clone();
    if !reviewers.iter().any(|reviewer| reviewer == OMISSION_HUNTER) {
        reviewers.push(OMISSION_HUNTER.to_owned());
    }
    for reviewer in &reviewers {
        let found = feature
            .evaluations
            .values()
            .flatten()
            .any(|evaluation| evaluation.value.evaluator == *reviewer);
        if !found {
            let path = feature.path(&format!("receipts/evaluations/{reviewer}.json"));
            findings.push(
                GateFinding::new(
                    review_receipts_pass::NO_EVALUATION,
                    format!("required reviewer {reviewer} has no evaluation"),
                    format!(
                        "The workflow (or, for omission-hunter, the Loom plan whatever the workflow \
                         lists) requires an evaluation from {reviewer}, but no receipt in {} has \
                         `evaluator: {reviewer}`. Run the {reviewer} evaluation and record its \
                         receipt ({path}).",
                        feature.path("receipts/evaluations/")
                    ),
                )
                .at(path, None),
            );
        }
    }
    for (key, evaluation) in &feature.evaluations {
        let Some(evaluation) = evaluation else {
            continue;
        };
        if evaluation.value.verdict != ReviewVerdict::Pass {
            findings.push(
                GateFinding::new(
                    review_receipts_pass::EVALUATION_FAILED,
                    format!("evaluation {key} did not pass"),
                    format!(
                        "{} records verdict `{}` from {}. Address its findings and evaluate \
                         again.",
                        evaluation.file.path,
                        evaluation.value.verdict.as_str(),
                        evaluation.value.evaluator
                    ),
                )
                .at(
                    &evaluation.file.path,
                    evaluation.file.line_of("\"verdict\""),
                ),
            );
        }
    }
    for (key, review) in &feature.reviews {
        let Some(review) = review else { continue };
        if review.value.verdict != ReviewVerdict::Pass {
            findings.push(
                GateFinding::new(
                    review_receipts_pass::REVIEW_FAILED,
                    format!("review {key} says fail"),
                    format!(
                        "{} records verdict `{}` from {} for task {}. Address its findings and \
                         have the task reviewed again.",
                        review.file.path,
                        review.value.verdict.as_str(),
                        review.value.reviewer,
                        review.value.task_id
                    ),
                )
                .at(&review.file.path, review.file.line_of("\"verdict\"")),
            );
        }
    }
    findings
}

/// The artifacts an approval must cover.
const APPROVED_ARTIFACTS: [&str; 3] = ["spec.md", "requirements.json", "plan.md"];

/// The artifact analysis, approved with the others when it exists.
const ANALYSIS: &str = "artifact-analysis.json";

/// No approval at all, or an artifact that must be approved and that no approval lists.
fn unapproved_artifacts(ctx: &Context, feature: &FeatureLedger) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    if feature.approvals.is_empty() {
        let path = feature.path("receipts/approvals");
        findings.push(
            GateFinding::new(
                approval_current::NO_APPROVAL,
                format!("feature {} has no approval", feature.name),
                format!(
                    "{path}/ holds no approval receipt: spec.md, requirements.json and plan.md \
                     were never approved. Have them approved and record the receipt."
                ),
            )
            // At the first artifact that must be approved: a folder is no place to point at.
            .at(feature.path(APPROVED_ARTIFACTS[0]), None),
        );
    } else {
        // artifact-analysis.json (docs/CONCEPTS.md#loom-approval-receipts) must be approved with the
        // others when the pipeline wrote one.
        let analysis = ctx
            .repo
            .is_file(&feature.path(ANALYSIS))
            .then_some(ANALYSIS);
        for artifact in APPROVED_ARTIFACTS.into_iter().chain(analysis) {
            let covered = feature.approvals.values().flatten().any(|approval| {
                approval
                    .value
                    .artifacts
                    .keys()
                    .any(|k| feature_relative(k) == artifact)
            });
            if !covered {
                findings.push(
                    GateFinding::new(
                        approval_current::ARTIFACT_UNAPPROVED,
                        format!("{artifact} has no approval"),
                        format!(
                            "No approval receipt in {} lists {artifact} in its `artifacts`. Have \
                             it approved and record its sha256.",
                            feature.path("receipts/approvals/")
                        ),
                    )
                    .at(feature.path(artifact), Some(1)),
                );
            }
        }
    }
    findings
}

/// Per approved artifact: it still exists and still has the sha256 its approval recorded.
fn changed_since_approval(ctx: &Context, feature: &FeatureLedger) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    for (key, approval) in &feature.approvals {
        let Some(approval) = approval else { continue };
        let stage = &approval.value.stage;
        for (artifact, recorded) in &approval.value.artifacts {
            let relative = feature_relative(artifact);
            let content = if is_plain_relative(relative) {
                ctx.repo.read(&feature.path(relative))
            } else {
                None
            };
            match content {
                None => findings.push(
                    GateFinding::new(
                        approval_current::ARTIFACT_GONE,
                        format!("approved artifact {artifact} is missing"),
                        format!(
                            "{} approves {artifact}, which does not exist in {}. Restore the \
                             artifact or approve again.",
                            approval.file.path, feature.dir
                        ),
                    )
                    .at(
                        &approval.file.path,
                        approval.file.line_of(&quoted(artifact)),
                    ),
                ),
                Some(content) if !hash_matches(recorded, &content) => findings.push(
                    GateFinding::new(
                        approval_current::CHANGED,
                        format!("{relative} changed after approval {stage}"),
                        format!(
                            "{key} ({stage}) approved {relative} at {recorded}, but it is now {}: \
                             the approval no longer covers what is there. Have the change \
                             approved and record a new approval receipt.",
                            sha256_ref(&content)
                        ),
                    )
                    .at(feature.path(relative), Some(1)),
                ),
                Some(_) => {}
            }
        }
    }
    findings
}

/// `approval-current`: approvals exist and cover spec.md, requirements.json and plan.md; every
/// approved artifact still has the approved sha256; `spec_sha256` names the current spec.md; a
/// superseded obligation names its replacement, a reason and an existing approval.
pub fn approval_current(ctx: &Context, feature: &FeatureLedger) -> Vec<GateFinding> {
    let mut findings = unapproved_artifacts(ctx, feature);
    findings.extend(changed_since_approval(ctx, feature));
    if let Some(requirements) = &feature.requirements {
        let file = &requirements.file;
        let spec_path = feature.path("spec.md");
        if let Some(spec) = ctx.repo.read(&spec_path) {
            if !hash_matches(&requirements.value.spec_sha256, &spec) {
                findings.push(
                    GateFinding::new(
                        approval_current::OTHER_SPEC,
                        "requirements.json was derived from another spec.md".to_owned(),
                        format!(
                            "{} records spec_sha256 {}, but {spec_path} is {}: the requirements \
                             were not derived from the current spec. Re-derive them and approve \
                             both.",
                            file.path,
                            requirements.value.spec_sha256,
                            sha256_ref(&spec)
                        ),
                    )
                    .at(&file.path, file.line_of("\"spec_sha256\"")),
                );
            }
        }
        let ids: Vec<&str> = all_obligations(&requirements.value)
            .map(|(_, obligation)| obligation.id.as_str())
            .collect();
        for (requirement, obligation) in all_obligations(&requirements.value) {
            if obligation.is_live() {
                continue;
            }
            let mut missing = Vec::new();
            match &obligation.superseded_by {
                Some(by) if ids.contains(&by.as_str()) && *by != obligation.id => {}
                Some(by) => missing.push(format!(
                    "`superseded_by` names {by}, which is no other obligation"
                )),
                None => missing.push("`superseded_by` is missing".to_owned()),
            }
            if obligation
                .reason
                .as_deref()
                .is_none_or(|r| r.trim().is_empty())
            {
                missing.push("`reason` is missing".to_owned());
            }
            match &obligation.approval {
                Some(approval)
                    if matches!(
                        feature.approvals.get(feature_relative(approval)),
                        Some(Some(_))
                    ) => {}
                Some(approval) => missing.push(format!(
                    "`approval` names {approval}, which is no approval receipt"
                )),
                None => missing.push("`approval` is missing".to_owned()),
            }
            if !missing.is_empty() {
                findings.push(
                    GateFinding::new(
                        approval_current::SUPERSEDED,
                        format!(
                            "obligation {} is superseded without approval",
                            obligation.id
                        ),
                        format!(
                            "{} of {} is `superseded`, but {}. An approved obligation may only be \
                             replaced with an approved change.",
                            obligation.id,
                            requirement.id,
                            missing.join("; ")
                        ),
                    )
                    .at(&file.path, file.line_of_json(&obligation.id))
                    .requirement(&requirement.id)
                    .obligation(&obligation.id),
                );
            }
        }
    }
    findings
}
