//! The verification loop (docs/CONCEPTS.md#the-verification-loop) inside the reference gate: one
//! gate run is one round. It reads the machine state file, decides which dimensions this round runs
//! (all of them in a first round, the pending ones after an interruption, the failed ones after a
//! fix), runs them in order V1..V5 writing the state after each, escalates a V2 test point that
//! fails twice in a row, applies the iteration limit, and gates delivery on the three delivery
//! documents.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::SystemTime;

use crate::check::rules::*;
use crate::finding::GateFinding;
use crate::loom::loom_findings_of_features;
use crate::repo::{changes_between, RepoView};
use crate::verification_loop::delivery;
use crate::verification_loop::dimensions::{self, CommandContext, DimensionOutcome, MAX_ITEMS};
use crate::verification_loop::loop_config::LoopConfig;
use crate::verification_loop::loop_report;
use crate::verification_loop::round::{Escalation, RoundResult, Start};
use crate::verification_loop::skein::{self, SkeinOutcome};
use crate::verification_loop::state_file::{
    self, DimensionRecord, DimensionStatus, Dimensions, FixEntry, LoopStatus, ReadState, Step,
    VerificationState,
};
use crate::GateOptions;
use gatebench_report::Report;

fn now() -> String {
    gatebench_report::time::utc_stamp(SystemTime::now()).1
}

fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}

/// A new loop: every dimension pending, round 1.
fn fresh_state(config: &LoopConfig, repo: &RepoView, options: &GateOptions) -> VerificationState {
    let id = &config.requirement_id;
    VerificationState {
        requirement_id: id.clone(),
        tech_design: format!("docs/design/{id}-tech-design.md"),
        branch: repo.branch.clone().unwrap_or_else(|| "HEAD".to_owned()),
        base_branch: options.base_ref.clone(),
        status: LoopStatus::Running,
        current_iteration: 1,
        max_iterations: config.max_iterations,
        dimensions: Dimensions::new(),
        rerun_plan: Step::DIMENSIONS.to_vec(),
        fix_history: vec![FixEntry {
            iteration: 1,
            head_sha: repo.head_sha.clone(),
            summary: "round 1: the work as handed over".to_owned(),
        }],
        final_summary_written_to: delivery::document_path(id, "review-report"),
    }
}

/// What changed between the commit the previous round verified and HEAD: the fix, as observed.
fn fix_summary(
    repo_dir: &Path,
    options: &GateOptions,
    state: &VerificationState,
    head: &str,
    iteration: u32,
) -> String {
    let Some(previous) = state.fix_history.last() else {
        return format!("round {iteration}: HEAD {}", short(head));
    };
    if previous.head_sha == head {
        return format!(
            "round {iteration}: no new commit since round {} (HEAD {}): the failed dimensions are \
             re-run on the same code",
            previous.iteration,
            short(head)
        );
    }
    match changes_between(repo_dir, options.pinned.as_ref(), &previous.head_sha, head) {
        Ok(paths) => {
            let shown: Vec<&str> = paths.iter().take(10).map(String::as_str).collect();
            format!(
                "round {iteration}: HEAD {} -> {}, {} file(s) changed: {}{}",
                short(&previous.head_sha),
                short(head),
                paths.len(),
                shown.join(", "),
                if paths.len() > shown.len() {
                    ", ..."
                } else {
                    ""
                }
            )
        }
        Err(why) => format!(
            "round {iteration}: HEAD {} -> {} ({why})",
            short(&previous.head_sha),
            short(head)
        ),
    }
}

/// Writes the state; a failure to write is a finding (the loop could not checkpoint), never a
/// silent loss.
fn save(repo_dir: &Path, state: &VerificationState, findings: &mut Vec<GateFinding>) {
    if let Err(why) = state_file::write(repo_dir, state) {
        let path = state_file::path_for(&state.requirement_id);
        let item = GateFinding::new(
            loop_state::UNWRITABLE,
            "the verification state file could not be written",
            format!("{path}: {why}. An interrupted loop could not resume from this round."),
        )
        .at(&path, None);
        if !findings.contains(&item) {
            findings.push(item);
        }
    }
}

/// The report of a repository whose Verification section cannot be used: BLOCKED, nothing run.
pub fn invalid_config(items: Vec<GateFinding>, repo: &RepoView, options: &GateOptions) -> Report {
    loop_report::invalid_config(items, repo, options)
}

/// Runs one round of the verification loop on the repository whose work tree is `repo_dir`.
pub fn run(repo_dir: &Path, options: &GateOptions, repo: &RepoView, config: &LoopConfig) -> Report {
    let result = match state_file::read(repo_dir, &config.requirement_id) {
        ReadState::Invalid(item) => {
            return loop_report::unreadable_state(*item, repo, options, config)
        }
        ReadState::Absent => round(repo_dir, options, repo, config, None),
        ReadState::Found(state) => round(repo_dir, options, repo, config, Some(*state)),
    };
    loop_report::build(&result, repo, options, config)
}

/// A round from the state found (or none).
pub fn round(
    repo_dir: &Path,
    options: &GateOptions,
    repo: &RepoView,
    config: &LoopConfig,
    previous: Option<VerificationState>,
) -> RoundResult {
    let mut loop_findings = Vec::new();
    let (start, mut state, plan, start_note) = match previous {
        None => (
            Start::Fresh,
            fresh_state(config, repo, options),
            Step::DIMENSIONS.to_vec(),
            "round 1: no state file, every dimension runs".to_owned(),
        ),
        Some(state) if state.status == LoopStatus::Pass => (
            Start::Fresh,
            fresh_state(config, repo, options),
            Step::DIMENSIONS.to_vec(),
            format!(
                "round 1 of a new loop: the previous loop passed in round {}",
                state.current_iteration
            ),
        ),
        Some(state) if state.rerun_plan.is_empty() && state.status != LoopStatus::Running => {
            let note = format!(
                "the loop concluded {} in round {} of {}: nothing is re-run until the state file \
                 is deleted",
                match state.status {
                    LoopStatus::Fail => "FAIL",
                    _ => "BLOCKED",
                },
                state.current_iteration,
                state.max_iterations
            );
            return concluded(state, note);
        }
        Some(mut state) => {
            state.max_iterations = config.max_iterations;
            let pending: Vec<Step> = Step::DIMENSIONS
                .into_iter()
                .filter(|step| state.dimensions.get(*step).status == DimensionStatus::Pending)
                .collect();
            if !pending.is_empty() {
                let note = format!(
                    "round {} resumed after an interruption: {} still pending, {} not re-run",
                    state.current_iteration,
                    keys(&pending),
                    keys(
                        &Step::DIMENSIONS
                            .into_iter()
                            .filter(|s| !pending.contains(s))
                            .collect::<Vec<_>>()
                    )
                );
                (Start::Resumed, state, pending, note)
            } else if state.current_iteration >= config.max_iterations {
                // A running loop already at its limit (the limit was lowered): it ends here.
                state.status = LoopStatus::Fail;
                state.rerun_plan.clear();
                let note = format!(
                    "round {} was the last of {}: the loop concludes FAIL without another round",
                    state.current_iteration, config.max_iterations
                );
                save(repo_dir, &state, &mut loop_findings);
                let mut result = concluded(state, note);
                result.loop_findings.extend(loop_findings);
                return result;
            } else {
                let iteration = state.current_iteration + 1;
                let plan: Vec<Step> = if state.rerun_plan.is_empty() {
                    vec![Step::Delivery]
                } else {
                    state.rerun_plan.clone()
                };
                let summary = fix_summary(repo_dir, options, &state, &repo.head_sha, iteration);
                state.fix_history.push(FixEntry {
                    iteration,
                    head_sha: repo.head_sha.clone(),
                    summary: summary.clone(),
                });
                state.current_iteration = iteration;
                for step in &plan {
                    let mut record = state.dimensions.get(*step);
                    record.status = DimensionStatus::Pending;
                    state.dimensions.put(*step, record);
                }
                (
                    Start::Next,
                    state,
                    plan.clone(),
                    format!("{summary}; re-verifying {}", keys(&plan)),
                )
            }
        }
    };
    let iteration = state.current_iteration;
    state.status = LoopStatus::Running;
    state.rerun_plan = plan.clone();
    save(repo_dir, &state, &mut loop_findings);

    let mut ran = Vec::new();
    let mut outcomes = BTreeMap::new();
    let mut skein_outcome = None;
    let mut loom_notes = None;
    let mut previous_v2 = None;
    let ctx = CommandContext::new(
        repo_dir,
        config.timeout,
        iteration,
        options.sandbox_commands,
    );
    for step in Step::DIMENSIONS {
        if !plan.contains(&step) {
            continue;
        }
        let before = state.dimensions.get(step);
        if step == Step::Test {
            previous_v2 = Some(before.clone());
        }
        let outcome = match step {
            Step::Alignment => {
                // The costliest deep check is not run when a dimension before V4 already failed.
                let failing = outcomes
                    .values()
                    .any(|o: &DimensionOutcome| !o.status.is_passed());
                let (outcome, skein, notes) = alignment(repo_dir, options, config, failing);
                skein_outcome = skein;
                loom_notes = Some(notes);
                outcome
            }
            Step::Build => dimensions::run_command_dimension(step, &config.build, &ctx),
            Step::Test => dimensions::run_command_dimension(step, &config.test, &ctx),
            Step::Performance => dimensions::run_command_dimension(step, &config.perf, &ctx),
            Step::Standard => dimensions::run_command_dimension(step, &config.lint, &ctx),
            Step::Delivery => continue,
        };
        state.dimensions.put(step, record_of(&outcome, iteration));
        ran.push(step);
        outcomes.insert(step, outcome);
        state.rerun_plan = plan
            .iter()
            .copied()
            .filter(|s| *s > step && *s != Step::Delivery)
            .collect();
        save(repo_dir, &state, &mut loop_findings);
    }

    // The verification loop (docs/CONCEPTS.md#loop-escalation): the same test point failing in two
    // consecutive V2 runs is not tried a third time.
    let escalation = escalation_of(previous_v2, outcomes.get(&Step::Test), iteration);

    let statuses: Vec<(Step, DimensionStatus)> = Step::DIMENSIONS
        .into_iter()
        .map(|s| (s, state.dimensions.get(s).status))
        .collect();
    let failing: Vec<Step> = statuses
        .iter()
        .filter(|(_, s)| matches!(s, DimensionStatus::Fail | DimensionStatus::Blocked))
        .map(|(step, _)| *step)
        .collect();
    let any_blocked = statuses.iter().any(|(_, s)| *s == DimensionStatus::Blocked);
    let at_limit = iteration >= config.max_iterations;
    let mut delivery_outcome = None;
    if let Some(escalation) = &escalation {
        state.status = if at_limit {
            LoopStatus::Fail
        } else {
            LoopStatus::Blocked
        };
        state.rerun_plan.clear();
        loop_findings.push(escalation_finding(config, escalation, &state, iteration));
    } else if any_blocked {
        state.status = LoopStatus::Blocked;
        state.rerun_plan = if at_limit { Vec::new() } else { failing };
    } else if !failing.is_empty() {
        if at_limit {
            state.status = LoopStatus::Fail;
            state.rerun_plan.clear();
            loop_findings.push(limit_finding(config, &state, &failing));
        } else {
            state.status = LoopStatus::Running;
            state.rerun_plan = failing;
        }
    } else {
        let outcome = delivery::check(repo, &config.requirement_id, &options.base_ref);
        ran.push(Step::Delivery);
        if outcome.findings.is_empty() {
            state.status = LoopStatus::Pass;
            state.rerun_plan.clear();
        } else if at_limit {
            state.status = LoopStatus::Fail;
            state.rerun_plan.clear();
            loop_findings.push(limit_finding(config, &state, &[Step::Delivery]));
        } else {
            state.status = LoopStatus::Running;
            state.rerun_plan = vec![Step::Delivery];
        }
        delivery_outcome = Some(outcome);
    }
    save(repo_dir, &state, &mut loop_findings);
    RoundResult {
        start,
        state,
        ran,
        outcomes,
        skein: skein_outcome,
        loom_notes,
        delivery: delivery_outcome,
        escalation,
        loop_findings,
        start_note,
    }
}

/// What the state file records of a dimension that ran in round `iteration`.
fn record_of(outcome: &DimensionOutcome, iteration: u32) -> DimensionRecord {
    DimensionRecord {
        status: outcome.status,
        last_run_at: Some(now()),
        passed_iteration: outcome.status.is_passed().then_some(iteration),
        summary: outcome.summary.clone(),
        failed_items: outcome.failed_items.clone(),
        critical_items: outcome.critical_items.clone(),
        warning_items: outcome.warning_items.clone(),
        log_ref: String::new(),
    }
}

/// The escalation of round `iteration`: the test points V2 failed in this round (`now`) and in its
/// run before (`before`); `None` when V2 did not fail again on a point it failed before.
fn escalation_of(
    before: Option<DimensionRecord>,
    now: Option<&DimensionOutcome>,
    iteration: u32,
) -> Option<Escalation> {
    let (before, now) = (before?, now?);
    if now.status != DimensionStatus::Fail {
        return None;
    }
    let points: Vec<String> = now
        .failed_items
        .iter()
        .filter(|p| before.failed_items.contains(p))
        .cloned()
        .collect();
    (!points.is_empty()).then(|| Escalation {
        points,
        // V2 re-runs only after it failed, so its last run was the round before.
        previous_iteration: iteration.saturating_sub(1),
        previous_summary: before.summary.clone(),
        current_summary: now.summary.clone(),
    })
}

fn keys(steps: &[Step]) -> String {
    if steps.is_empty() {
        return "nothing".to_owned();
    }
    steps.iter().map(|s| s.key()).collect::<Vec<_>>().join(", ")
}

/// A concluded loop's finding for a dimension that still fails (or could not run).
fn still_failing(state: &VerificationState, step: Step) -> GateFinding {
    let record = state.dimensions.get(step);
    let rule = match step {
        _ if record.status == DimensionStatus::Blocked => loop_environment::NOT_RUNNABLE,
        Step::Build => loop_build::FAILED,
        Step::Test => loop_test::FAILED,
        Step::Performance => loop_performance::FAILED,
        Step::Standard => loop_standards::FAILED,
        _ => loop_limit::OTHER,
    };
    let items: Vec<String> = record
        .failed_items
        .iter()
        .chain(&record.critical_items)
        .take(MAX_ITEMS)
        .cloned()
        .collect();
    GateFinding::new(
        rule,
        format!(
            "{} is still {} (round {})",
            step.key(),
            record.status.as_str(),
            state.current_iteration
        ),
        format!(
            "Last run: {}.{} The loop has concluded; it is not re-run.",
            record.summary,
            if items.is_empty() {
                String::new()
            } else {
                format!(" Items: {}.", items.join("; "))
            }
        ),
    )
}

/// A round that runs nothing: the loop has concluded. Its findings restate why.
fn concluded(state: VerificationState, note: String) -> RoundResult {
    let failing: Vec<Step> = Step::DIMENSIONS
        .into_iter()
        .filter(|s| {
            matches!(
                state.dimensions.get(*s).status,
                DimensionStatus::Fail | DimensionStatus::Blocked
            )
        })
        .collect();
    let mut findings: Vec<GateFinding> = failing
        .iter()
        .map(|step| still_failing(&state, *step))
        .collect();
    let path = state_file::path_for(&state.requirement_id);
    let escalated = state.status == LoopStatus::Blocked
        && failing
            .iter()
            .all(|s| state.dimensions.get(*s).status != DimensionStatus::Blocked);
    let (rule, title) = if escalated {
        (
            loop_escalation::ESCALATED,
            format!(
                "the loop escalated in round {}: no third attempt at the same test point",
                state.current_iteration
            ),
        )
    } else {
        (
            loop_limit::OTHER,
            format!(
                "the loop concluded {} in round {} of {}",
                if state.status == LoopStatus::Fail {
                    "FAIL"
                } else {
                    "BLOCKED"
                },
                state.current_iteration,
                state.max_iterations
            ),
        )
    };
    findings.push(
        GateFinding::new(
            rule,
            title,
            format!(
                "{path} records a concluded loop ({}). The verification loop: a human must step in; nothing \
                     is verified again until the state file is deleted after review.",
                note
            ),
        )
        .at(&path, None)
        .requirement(&state.requirement_id),
    );
    RoundResult {
        start: Start::Concluded,
        state,
        ran: Vec::new(),
        outcomes: BTreeMap::new(),
        skein: None,
        loom_notes: None,
        delivery: None,
        escalation: None,
        loop_findings: findings,
        start_note: note,
    }
}

/// V4: the Loom validators (and skein-check when a PRD is declared; in deep mode the deep checks)
/// on the work tree as it is now (the commands before it may have written files).
fn alignment(
    repo_dir: &Path,
    options: &GateOptions,
    config: &LoopConfig,
    failing: bool,
) -> (DimensionOutcome, Option<SkeinOutcome>, String) {
    let repo = match RepoView::open_with(repo_dir, &options.base_ref, options.pinned.as_ref()) {
        Ok(repo) => repo,
        Err(error) => {
            let outcome = DimensionOutcome {
                status: DimensionStatus::Blocked,
                summary: format!("the repository could not be read: {}", error.message),
                failed_items: Vec::new(),
                critical_items: Vec::new(),
                warning_items: Vec::new(),
                findings: vec![GateFinding::new(
                    loop_environment::NOT_RUNNABLE,
                    "V4 audit: the repository could not be read",
                    format!("{}: {}", error.code, error.message),
                )],
            };
            return (
                outcome,
                None,
                "not run: the repository could not be read".into(),
            );
        }
    };
    let (mut findings, loom_notes, loom_blocked) = match loom_findings_of_features(&repo) {
        Ok((mut items, features)) => {
            // Deep mode runs the receipts' tests again and red-green per obligation here too.
            if options.depth == crate::options::Depth::Deep {
                let failing = failing
                    || items
                        .iter()
                        .any(|i| i.severity > crate::finding::WARNING_MAX);
                items.extend(crate::deep::deep_findings(&repo, &features, failing));
            }
            let notes = format!(
                "loom validators{}: {} finding(s) over every feature ledger",
                if options.depth == crate::options::Depth::Deep {
                    " and deep checks"
                } else {
                    ""
                },
                items.len()
            );
            (items, notes, false)
        }
        Err(no_ledger) => (
            vec![*no_ledger],
            "loom validators: no feature ledger to judge".to_owned(),
            true,
        ),
    };
    let skein = config
        .prd
        .as_ref()
        .map(|(path, line)| skein::check(&repo, path, *line));
    if let Some(skein) = &skein {
        findings.extend(skein.findings.iter().cloned());
    }
    let status = if loom_blocked {
        DimensionStatus::Blocked
    } else if findings
        .iter()
        .all(|finding| finding.severity <= crate::finding::WARNING_MAX)
    {
        DimensionStatus::Pass
    } else {
        DimensionStatus::Fail
    };
    let summary = match status {
        DimensionStatus::Pass => "no finding from the Loom validators or skein-check".to_owned(),
        DimensionStatus::Blocked => "no feature ledger to judge".to_owned(),
        _ => format!(
            "{} finding(s): {}",
            findings.len(),
            findings
                .first()
                .map(|f| f.title.clone())
                .unwrap_or_default()
        ),
    };
    let outcome = DimensionOutcome {
        status,
        summary,
        failed_items: Vec::new(),
        critical_items: findings
            .iter()
            .take(MAX_ITEMS)
            .map(|f| format!("[{}] {}", f.validator, f.title))
            .collect(),
        warning_items: Vec::new(),
        findings,
    };
    (outcome, skein, loom_notes)
}

fn escalation_finding(
    config: &LoopConfig,
    escalation: &Escalation,
    state: &VerificationState,
    iteration: u32,
) -> GateFinding {
    let id = &config.requirement_id;
    let fix = state
        .fix_history
        .last()
        .map(|f| f.summary.clone())
        .unwrap_or_default();
    let prd = config
        .prd
        .as_ref()
        .map(|(p, _)| format!(", the PRD {p}"))
        .unwrap_or_default();
    GateFinding::new(
        loop_escalation::ESCALATED,
        format!(
            "V2 test point {} failed in two consecutive rounds: escalated, {}",
            escalation
                .points
                .iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", "),
            if state.status == LoopStatus::Fail {
                "FAIL at the iteration limit"
            } else {
                "BLOCKED for a human"
            }
        ),
        format!(
            "The verification loop: the same test point may not be fixed a third time or have \
                 its bar lowered. Round {}: {}. Round {iteration}: {}. Requirement {id}; design \
                 basis {}{prd}. Possible cause: the fix between the rounds did not address what \
                 the test point checks ({fix}). Nothing is re-run until a human has reviewed it \
                 and deleted the state file.",
            escalation.previous_iteration,
            escalation.previous_summary,
            escalation.current_summary,
            state.tech_design
        ),
    )
    .at(state_file::path_for(id), None)
    .requirement(id)
}

fn limit_finding(config: &LoopConfig, state: &VerificationState, failing: &[Step]) -> GateFinding {
    let id = &config.requirement_id;
    // The kind is the first failing dimension's: a build still failing is a failing build.
    let rule = match failing.first() {
        Some(Step::Build) => loop_limit::BUILD,
        Some(Step::Performance) => loop_limit::PERFORMANCE,
        Some(Step::Standard) => loop_limit::STANDARDS,
        _ => loop_limit::OTHER,
    };
    GateFinding::new(
        rule,
        format!(
            "{} still failing at the iteration limit ({} of {}): FAIL",
            keys(failing),
            state.current_iteration,
            config.max_iterations
        ),
        format!(
            "The loop ran its {} round(s) and {} still fail(s). The verification loop: FAIL, blocked, a human \
                 must step in; there is no further round.",
            config.max_iterations,
            keys(failing)
        ),
    )
    .at(state_file::path_for(id), None)
    .requirement(id)
}
