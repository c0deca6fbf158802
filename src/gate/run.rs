//! One run of the reference gate: open the repository, read every feature's ledger, run every
//! validator, and assemble the report.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use crate::gate::build_report::{self, Item, SkillGroup};
use crate::gate::context::Context;
use crate::gate::finding::{GateFinding, ValidatorId};
use crate::gate::load::{discover_features, load_feature, FeatureLedger};
use crate::gate::loop_config::{self, Loaded};
use crate::gate::repo::{EnvError, RepoView};
use crate::gate::{
    convergence, details, evidence, isolation, ownership, refs, tasks, verify_loop, workflow,
};
use crate::report::Report;

/// How to run the gate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateOptions {
    /// The ref the feature branch is compared with (its merge base with HEAD).
    pub base_ref: String,
}

impl Default for GateOptions {
    fn default() -> GateOptions {
        GateOptions {
            base_ref: "main".to_owned(),
        }
    }
}

/// The check groups of the reference gate, as reported in `skillResults` and `triage`.
pub fn skill_groups() -> Vec<SkillGroup> {
    let names = |ids: &[ValidatorId]| ids.iter().map(|id| id.as_str()).collect();
    vec![
        SkillGroup {
            skill: "loom-validators",
            reason: "the 14 required validators of seed 004 9.2 always run, whatever the workflow declares",
            validators: names(&ValidatorId::REQUIRED),
        },
        SkillGroup {
            skill: "detail-ledger",
            reason: "feature folders hold requirements.json: the detail ledger is checked",
            validators: names(&ValidatorId::LEDGER),
        },
        SkillGroup {
            skill: "pipeline-config",
            reason: "the workflow declaration and the worktree claim are always checked",
            validators: names(&ValidatorId::PIPELINE),
        },
    ]
}

/// Runs the reference gate on the repository whose work tree is `repo_dir`. Never panics on bad
/// input: broken ledger files are findings; a broken environment is a `status: error` report.
pub fn run_gate(repo_dir: &Path, options: &GateOptions) -> Report {
    let groups = skill_groups();
    match catch_unwind(AssertUnwindSafe(|| judge(repo_dir, options, &groups))) {
        Ok(report) => report,
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "unknown panic".to_owned());
            let error = EnvError {
                code: "internal-error",
                message: format!("the gate crashed: {message}"),
                head_sha: None,
            };
            build_report::errored(&error, &options.base_ref, &groups)
        }
    }
}

fn judge(repo_dir: &Path, options: &GateOptions, groups: &[SkillGroup]) -> Report {
    let repo = match RepoView::open(repo_dir, &options.base_ref) {
        Ok(repo) => repo,
        Err(error) => return build_report::errored(&error, &options.base_ref, groups),
    };
    // A repository that declares the verification loop (AGENTS.md, docs/LOOP.md) is judged by
    // it; the Loom validators become its V4 dimension.
    match loop_config::load(&repo) {
        Loaded::Enabled(config) => return verify_loop::run(repo_dir, options, &repo, &config),
        Loaded::Invalid(items) => return verify_loop::invalid_config(items, &repo, options),
        Loaded::Disabled => {}
    }
    let scope = build_report::scope_of(&repo, &options.base_ref);
    match loom_findings(&repo) {
        Err(no_ledger) => build_report::blocked(
            vec![*no_ledger],
            scope,
            groups,
            "blocked: no specs/<feature>/requirements.json",
        ),
        Ok(items) => build_report::judged(items, scope, groups),
    }
}

/// Every validator over every feature ledger of the repository (the Loom validators, the detail
/// ledger and the pipeline configuration). `Err` holds the one finding of a repository without
/// any feature ledger: there is nothing to judge.
pub fn loom_findings(repo: &RepoView) -> Result<Vec<Item>, Box<Item>> {
    let names = discover_features(repo);
    if names.is_empty() {
        let finding = GateFinding::new(
            ValidatorId::LedgerSchema,
            "no feature ledger to judge",
            "The repository has no specs/<feature>/requirements.json, so there is no requirement, \
             task or evidence the gate could check. Write the feature's ledger (docs/LEDGER.md).",
        );
        return Err(Box::new(Item::from(finding)));
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
    Ok(findings.into_iter().map(Item::from).collect())
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
    findings.extend(isolation::worktree_isolation(ctx, feature));
    findings.extend(workflow::current_step_declared(ctx.workflow, feature));
    findings
}
