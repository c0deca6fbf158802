//! One run of the reference gate: open the repository, read every feature's ledger, run every
//! validator, and assemble the report.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use crate::build_report::{self, SkillGroup};
use crate::check::{Check, Group};
use crate::finding::WARNING_MAX;
use crate::loom::loom_findings_of_features;
use crate::options::{Depth, GateOptions};
use crate::repo::{EnvError, RepoView};
use crate::scope::ScopeMode;
use crate::verification_loop::loop_config::{self, Loaded};
use crate::verification_loop::verify_loop;
use gatebench_report::Report;

/// The check groups of the reference gate at `depth`, as reported in `skillResults` and `triage`.
pub fn skill_groups_at(depth: Depth) -> Vec<SkillGroup> {
    let mut groups = skill_groups();
    if depth == Depth::Deep {
        groups.push(SkillGroup {
            skill: "deep-checks",
            reason: "depth deep: the tests run again, and each obligation's tests with its code neutralized",
            validators: Check::in_group(Group::Deep).map(Check::as_str).collect(),
        });
    }
    groups
}

/// The check groups of the reference gate in light mode, as reported in `skillResults` and `triage`.
pub fn skill_groups() -> Vec<SkillGroup> {
    let names = |group| Check::in_group(group).map(Check::as_str).collect();
    vec![
        SkillGroup {
            skill: "loom-validators",
            reason: "the 14 required validators of the Loom plan always run, whatever the workflow declares",
            validators: names(Group::Required),
        },
        SkillGroup {
            skill: "detail-ledger",
            reason: "feature folders hold requirements.json: the detail ledger is checked",
            validators: names(Group::Ledger),
        },
        SkillGroup {
            skill: "pipeline-config",
            reason: "the workflow declaration and the worktree claim are always checked",
            validators: names(Group::Pipeline),
        },
        SkillGroup {
            skill: "independent-checks",
            reason: "self-reported convergence and test results are recomputed from the diff, the code and the logs",
            validators: names(Group::Independent),
        },
    ]
}

/// Runs the reference gate on the repository whose work tree is `repo_dir`. Never panics on bad
/// input: broken ledger files are findings; a broken environment is a `status: error` report.
pub fn run_gate(repo_dir: &Path, options: &GateOptions) -> Report {
    run_gate_in_scope(repo_dir, options, None)
}

/// `run_gate` with the scope mode the caller asks for (`gatebench gate --scope`); `None` detects
/// it (docs/CONCEPTS.md#verify-scope: staged, then unstaged, then branch). The scope is what the
/// report says was verified; the Loom validators judge the whole feature ledger whatever the mode.
pub fn run_gate_in_scope(
    repo_dir: &Path,
    options: &GateOptions,
    scope_mode: Option<ScopeMode>,
) -> Report {
    let groups = skill_groups_at(options.depth);
    match catch_unwind(AssertUnwindSafe(|| {
        judge(repo_dir, options, scope_mode, &groups)
    })) {
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

fn judge(
    repo_dir: &Path,
    options: &GateOptions,
    scope_mode: Option<ScopeMode>,
    groups: &[SkillGroup],
) -> Report {
    let repo = match RepoView::open_with(repo_dir, &options.base_ref, options.pinned.as_ref()) {
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
    let mut scope = build_report::scope_in_mode(&repo, &options.base_ref, scope_mode);
    scope.depth = options.depth.as_str().to_owned();
    match loom_findings_of_features(&repo) {
        Err(no_ledger) => build_report::blocked(
            vec![*no_ledger],
            scope,
            groups,
            "blocked: no specs/<feature>/requirements.json",
        ),
        Ok((mut items, features)) => {
            if options.depth == Depth::Deep {
                let failing = items.iter().any(|i| i.severity > WARNING_MAX);
                items.extend(crate::deep::deep_findings(&repo, &features, failing));
            }
            build_report::judged(items, scope, groups)
        }
    }
}
