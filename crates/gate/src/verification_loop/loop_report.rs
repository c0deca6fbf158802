//! The report v1 of a verification-loop round: one skill result per dimension (`V1_BUILD` ...
//! `V5_STANDARD`, then `DELIVERY_DOCUMENTS`), the findings of what ran, warnings kept out of the
//! findings (docs/CONCEPTS.md#verify-overall-result: a finding makes the result issues-found) and
//! recorded in the notes and in the `verificationLoop` extension key.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::build_report;
use crate::finding::GateFinding;
use crate::repo::RepoView;
use crate::verification_loop::loop_config::LoopConfig;
use crate::verification_loop::round::{RoundResult, Start};
use crate::verification_loop::state_file::{self, DimensionStatus, LoopStatus, Step};
use crate::GateOptions;
use gatebench_report::{
    OverallResult, Report, SkillReason, SkillResult, SkillStatus, Status, Triage,
};

/// The extension key the round's loop state is reported under.
pub const EXTENSION_KEY: &str = "verificationLoop";

/// Every step as a skill, in report order.
const STEPS: [Step; 6] = [
    Step::Build,
    Step::Test,
    Step::Performance,
    Step::Alignment,
    Step::Standard,
    Step::Delivery,
];

fn dimension_status(status: DimensionStatus) -> SkillStatus {
    match status {
        DimensionStatus::Pass | DimensionStatus::Warn => SkillStatus::Passed,
        DimensionStatus::Fail => SkillStatus::Failed,
        DimensionStatus::Blocked => SkillStatus::Blocked,
        DimensionStatus::Pending => SkillStatus::NotRun,
    }
}

/// A dimension's warnings: this round's when it ran (V1 and V2 have no `warningItems` in the
/// state file), else what the state file kept.
fn warning_items(result: &RoundResult, step: Step) -> Vec<String> {
    match result.outcomes.get(&step) {
        Some(outcome) => outcome.warning_items.clone(),
        None => result.state.dimensions.get(step).warning_items,
    }
}

fn skill_result(result: &RoundResult, step: Step) -> SkillResult {
    let state = &result.state;
    let round = state.current_iteration;
    let (status, notes) = if result.ran.contains(&step) {
        if step == Step::Delivery {
            let delivery = result.delivery.as_ref();
            let failed = delivery.is_some_and(|d| !d.findings.is_empty());
            (
                if failed {
                    SkillStatus::Failed
                } else {
                    SkillStatus::Passed
                },
                format!(
                    "round {round}: {}",
                    delivery.map(|d| d.notes.clone()).unwrap_or_default()
                ),
            )
        } else {
            let record = state.dimensions.get(step);
            let mut notes = format!(
                "round {round}: {}: {}",
                record.status.as_str(),
                record.summary
            );
            if step == Step::Alignment {
                if let Some(loom) = &result.loom_notes {
                    notes.push_str(&format!("; {loom}"));
                }
                if let Some(skein) = &result.skein {
                    notes.push_str(&format!("; {}", skein.notes()));
                }
            }
            let warnings = warning_items(result, step);
            if record.status == DimensionStatus::Warn && !warnings.is_empty() {
                notes.push_str(&format!("; warnings recorded: {}", warnings.join("; ")));
            }
            (dimension_status(record.status), notes)
        }
    } else if step == Step::Delivery {
        if result.start == Start::Concluded {
            (
                SkillStatus::NotRun,
                format!("not run: {}", result.start_note),
            )
        } else {
            (
                SkillStatus::Skipped,
                "checked once every dimension passes or warns (the verification loop: the delivery gate \
                 follows a PASS)"
                    .to_owned(),
            )
        }
    } else {
        let record = state.dimensions.get(step);
        if record.status.is_passed() {
            (
                SkillStatus::Skipped,
                format!(
                    "{} in round {}: not re-run (the verification loop re-verifies failed dimensions only)",
                    record.status.as_str(),
                    record.passed_iteration.unwrap_or(round)
                ),
            )
        } else {
            (
                SkillStatus::NotRun,
                format!(
                    "{} and not re-run: {}",
                    record.status.as_str(),
                    result.start_note
                ),
            )
        }
    };
    SkillResult {
        skill: step.key().to_owned(),
        status,
        notes,
    }
}

fn triage(skills: &[SkillResult], result: &RoundResult) -> Triage {
    let mut run = Vec::new();
    let mut skipped = Vec::new();
    for skill in skills {
        let ran = STEPS
            .iter()
            .any(|s| s.key() == skill.skill && result.ran.contains(s));
        let reason = SkillReason {
            skill: skill.skill.clone(),
            reason: if ran {
                format!(
                    "round {}: {}",
                    result.state.current_iteration, result.start_note
                )
            } else {
                skill.notes.clone()
            },
        };
        if ran {
            run.push(reason);
        } else {
            skipped.push(reason);
        }
    }
    Triage::new(run, skipped)
}

fn extension(result: &RoundResult, config: &LoopConfig) -> Value {
    let state = &result.state;
    let dimensions: BTreeMap<&str, Value> = Step::DIMENSIONS
        .into_iter()
        .map(|step| {
            let record = state.dimensions.get(step);
            (
                step.key(),
                json!({
                    "status": record.status,
                    "ran": result.ran.contains(&step),
                    "passedIteration": record.passed_iteration,
                    "summary": record.summary,
                    "failedItems": record.failed_items,
                    "criticalItems": record.critical_items,
                    "warningItems": warning_items(result, step),
                }),
            )
        })
        .collect();
    let warnings: Vec<Value> = Step::DIMENSIONS
        .into_iter()
        .flat_map(|step| {
            warning_items(result, step)
                .into_iter()
                .map(move |item| json!({"dimension": step.key(), "item": item}))
        })
        .collect();
    json!({
        "requirementId": state.requirement_id,
        "stateFile": state_file::path_for(&state.requirement_id),
        "iteration": state.current_iteration,
        "maxIterations": config.max_iterations,
        "loopStatus": state.status,
        "start": match result.start {
            Start::Fresh => "fresh",
            Start::Resumed => "resumed",
            Start::Next => "next",
            Start::Concluded => "concluded",
        },
        "startNote": result.start_note,
        "ran": result.ran.iter().map(|s| s.key()).collect::<Vec<_>>(),
        "rerunPlan": state.rerun_plan,
        "dimensions": dimensions,
        "warnings": warnings,
        "contracts": result.skein.as_ref().map(|s| s.contracts.clone()).unwrap_or_default(),
        "escalation": result.escalation.as_ref().map(|e| json!({
            "testPoints": e.points,
            "previousIteration": e.previous_iteration,
            "previousSummary": e.previous_summary,
            "currentSummary": e.current_summary,
        })),
    })
}

/// The report of one round.
pub fn build(
    result: &RoundResult,
    repo: &RepoView,
    options: &GateOptions,
    config: &LoopConfig,
) -> Report {
    let mut items: Vec<GateFinding> = Vec::new();
    for step in STEPS {
        if let Some(outcome) = result.outcomes.get(&step) {
            items.extend(outcome.findings.iter().cloned());
        }
    }
    if let Some(delivery) = &result.delivery {
        items.extend(delivery.findings.iter().cloned());
    }
    items.extend(result.loop_findings.iter().cloned());
    let (status, overall) = match result.state.status {
        LoopStatus::Blocked => (Status::Blocked, OverallResult::Blocked),
        // A PASS never carries a finding (docs/CONCEPTS.md#verify-overall-result); a finding about
        // the loop itself (its state could not be written) turns it into issues-found.
        LoopStatus::Pass if items.is_empty() => (Status::Ok, OverallResult::Pass),
        _ => (Status::Ok, OverallResult::IssuesFound),
    };
    let skills: Vec<SkillResult> = STEPS
        .iter()
        .map(|step| skill_result(result, *step))
        .collect();
    let triage = triage(&skills, result);
    let mut report = build_report::assemble(
        status,
        overall,
        None,
        items,
        gatebench_report::Scope {
            depth: options.depth.as_str().to_owned(),
            ..build_report::scope_of(repo, &options.base_ref)
        },
        triage,
        skills,
    );
    report
        .extra
        .insert(EXTENSION_KEY.to_owned(), extension(result, config));
    report
}

/// A report that ran nothing: BLOCKED, every step `NOT_RUN` for `why`.
fn nothing_run(
    items: Vec<GateFinding>,
    repo: &RepoView,
    options: &GateOptions,
    why: &str,
) -> Report {
    let skills: Vec<SkillResult> = STEPS
        .iter()
        .map(|step| SkillResult {
            skill: step.key().to_owned(),
            status: SkillStatus::NotRun,
            notes: format!("not run: {why}"),
        })
        .collect();
    let skipped: Vec<SkillReason> = skills
        .iter()
        .map(|s| SkillReason {
            skill: s.skill.clone(),
            reason: s.notes.clone(),
        })
        .collect();
    let triage = Triage::new(Vec::new(), skipped);
    build_report::assemble(
        Status::Blocked,
        OverallResult::Blocked,
        None,
        items,
        gatebench_report::Scope {
            depth: options.depth.as_str().to_owned(),
            ..build_report::scope_of(repo, &options.base_ref)
        },
        triage,
        skills,
    )
}

/// The Verification section of `AGENTS.md` cannot be used.
pub fn invalid_config(items: Vec<GateFinding>, repo: &RepoView, options: &GateOptions) -> Report {
    nothing_run(
        items,
        repo,
        options,
        "the Verification section of AGENTS.md cannot be used",
    )
}

/// The state file exists but cannot be resumed from.
pub fn unreadable_state(
    item: GateFinding,
    repo: &RepoView,
    options: &GateOptions,
    config: &LoopConfig,
) -> Report {
    let mut report = nothing_run(
        vec![item],
        repo,
        options,
        "the verification state file cannot be resumed from",
    );
    report.extra.insert(
        EXTENSION_KEY.to_owned(),
        json!({
            "requirementId": config.requirement_id,
            "stateFile": state_file::path_for(&config.requirement_id),
            "start": "unreadable-state",
        }),
    );
    report
}
