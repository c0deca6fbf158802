//! The Loom part of the gate: every validator over every feature ledger of a repository. The plain
//! gate reports these findings; the verification loop runs them as its V4 dimension.

use crate::check::rules::*;
use crate::context::Context;
use crate::finding::GateFinding;
use crate::load::{discover_features, load_feature, FeatureLedger};
use crate::repo::RepoView;
use crate::validators::{
    computed, convergence, details, evidence, isolation, ownership, receipt_log, refs, tasks,
};
use crate::workflow;

/// Every validator over every feature ledger of the repository (the Loom validators, the detail
/// ledger and the pipeline configuration). `Err` holds the one finding of a repository without
/// any feature ledger: there is nothing to judge.
pub fn loom_findings(repo: &RepoView) -> Result<Vec<GateFinding>, Box<GateFinding>> {
    loom_findings_of_features(repo).map(|(findings, _)| findings)
}

/// [`loom_findings`], and the feature ledgers it read (the deep checks run on them).
pub fn loom_findings_of_features(
    repo: &RepoView,
) -> Result<(Vec<GateFinding>, Vec<FeatureLedger>), Box<GateFinding>> {
    let names = discover_features(repo);
    if names.is_empty() {
        let finding = GateFinding::new(
            ledger_schema::NO_LEDGER,
            "no feature ledger to judge",
            "The repository has no specs/<feature>/requirements.json, so there is no requirement, \
             task or evidence the gate could check. Write the feature's ledger (docs/LEDGER.md).",
        );
        return Err(Box::new(finding));
    }
    let (workflow, mut findings) = workflow::load_workflow(repo);
    let ctx = Context {
        repo,
        workflow: &workflow,
    };
    let mut features = Vec::new();
    for name in &names {
        let (feature, load_findings) = load_feature(repo, name);
        findings.extend(load_findings);
        findings.extend(check_feature(&ctx, &feature));
        features.push(feature);
    }
    findings.extend(ownership::diff_within_ownership(repo, &features));
    findings.extend(computed::unrequested_public_symbols(repo, &features));
    Ok((findings, features))
}

/// Every per-feature validator; all of them run, whatever the workflow declares.
pub fn check_feature(ctx: &Context, feature: &FeatureLedger) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    findings.extend(tasks::task_set_complete(feature));
    findings.extend(tasks::all_task_states_done(feature));
    findings.extend(tasks::task_handoffs_pass(feature));
    findings.extend(tasks::requirement_task_closure(feature));
    findings.extend(tasks::obligation_task_closure(feature));
    findings.extend(refs::requirement_code_closure(ctx, feature));
    findings.extend(refs::obligation_test_closure(ctx, feature));
    findings.extend(evidence::obligation_evidence_closure(ctx, feature));
    findings.extend(evidence::review_receipts_pass(ctx, feature));
    findings.extend(evidence::evidence_bound_to_current_tree(ctx, feature));
    findings.extend(evidence::approval_current(ctx, feature));
    findings.extend(convergence::convergence_pass(ctx, feature));
    findings.extend(convergence::no_blocking_findings(ctx, feature));
    findings.extend(details::detail_expansion(feature));
    findings.extend(details::obligation_test_plan(feature));
    findings.extend(details::traceability(feature));
    findings.extend(tasks::acceptance_items(feature));
    findings.extend(tasks::task_dependencies(feature));
    findings.extend(isolation::worktree_isolation(ctx, feature));
    findings.extend(workflow::current_step_declared(ctx.workflow, feature));
    findings.extend(computed::obligation_implemented(ctx.repo, feature));
    findings.extend(receipt_log::test_receipt_log(ctx.repo, feature));
    findings
}
