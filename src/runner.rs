//! The run: every selected fixture times every trial, in parallel on a rayon pool; each trial
//! materialized, verified round by round (with scripted fixes between rounds) and scored. A trial
//! that breaks is recorded as that trial's outcome; the run goes on.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use rayon::prelude::*;

use crate::corpus::Fixture;
use crate::materialize::{self, Materialized};
use crate::outcome::{self, Outcome};
use crate::pipeline::{Pipeline, RoundInput, RoundOutput};
use crate::report::Verdict;
use crate::results::{RoundRecord, TrialRecord};
use crate::workdir::WorkRoot;

/// Everything a run needs besides the fixtures and the pipeline.
#[derive(Debug)]
pub struct RunConfig<'a> {
    /// Parallel trials (at least 1).
    pub jobs: usize,
    pub trials: u32,
    pub max_rounds: u32,
    pub base_ref: String,
    pub work_root: &'a WorkRoot,
}

/// Runs every fixture `cfg.trials` times. `on_done` is called as each trial finishes (from worker
/// threads). Records come back sorted by fixture id, then trial.
pub fn run(
    fixtures: &[&Fixture],
    pipeline: &dyn Pipeline,
    cfg: &RunConfig<'_>,
    on_done: &(dyn Fn(&TrialRecord) + Sync),
) -> Vec<TrialRecord> {
    let work: Vec<(&Fixture, u32)> = fixtures
        .iter()
        .flat_map(|f| (0..cfg.trials).map(move |t| (*f, t)))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.jobs.max(1))
        .build();
    let go = || {
        work.par_iter()
            .map(|(fixture, trial)| {
                let record = run_trial(fixture, *trial, pipeline, cfg);
                on_done(&record);
                record
            })
            .collect::<Vec<_>>()
    };
    let mut records = match pool {
        Ok(pool) => pool.install(go),
        Err(_) => go(),
    };
    records.sort_by(|a, b| (&a.fixture, a.trial).cmp(&(&b.fixture, b.trial)));
    records
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Runs one trial of one fixture.
pub fn run_trial(
    fixture: &Fixture,
    trial: u32,
    pipeline: &dyn Pipeline,
    cfg: &RunConfig<'_>,
) -> TrialRecord {
    let started = Instant::now();
    let dir = cfg.work_root.trial_dir(&fixture.id, trial);
    let mut record = TrialRecord::new(fixture, trial);
    if cfg.work_root.keep() {
        record.kept_at = Some(dir.display().to_string());
    }
    let materialized = match materialize::materialize(fixture, &dir) {
        Ok(m) => m,
        Err(e) => {
            record.outcome = Outcome::Error;
            record.reason = format!("the fixture could not be materialized: {e}");
            record.duration_ms = started.elapsed().as_millis() as u64;
            cleanup(cfg, &dir);
            return record;
        }
    };
    record.materialize_ms = started.elapsed().as_millis() as u64;
    record.work_dir = materialized.work_dir.display().to_string();
    let mut materialized = materialized;
    rounds(
        fixture,
        trial,
        pipeline,
        cfg,
        &mut materialized,
        &mut record,
    );
    record.commits = materialized.commits.clone();
    record.duration_ms = started.elapsed().as_millis() as u64;
    drop(materialized);
    cleanup(cfg, &dir);
    record
}

fn cleanup(cfg: &RunConfig<'_>, dir: &std::path::Path) {
    if !cfg.work_root.keep() {
        let _ = std::fs::remove_dir_all(dir);
        let _ = std::fs::remove_dir_all(dir.with_file_name(format!(
            "{}-worktree",
            dir.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
        )));
    }
}

fn rounds(
    fixture: &Fixture,
    trial: u32,
    pipeline: &dyn Pipeline,
    cfg: &RunConfig<'_>,
    materialized: &mut Materialized,
    record: &mut TrialRecord,
) {
    let mut converged_at = None;
    for round in 1..=cfg.max_rounds {
        let input = RoundInput {
            work_dir: &materialized.work_dir,
            fixture_id: &fixture.id,
            round,
            trial,
            base_ref: &cfg.base_ref,
        };
        let started = Instant::now();
        let output =
            catch_unwind(AssertUnwindSafe(|| pipeline.run_round(&input))).unwrap_or_else(|p| {
                RoundOutput::Error(format!("the pipeline panicked: {}", panic_message(p)))
            });
        let mut round_record = RoundRecord::new(round, started.elapsed().as_millis() as u64);
        let verdict = match output {
            RoundOutput::Report(report, value) => {
                round_record.findings = report.findings.len();
                round_record.cost = report.cost.clone();
                let verdict = report.verdict();
                match verdict {
                    Some(v) => {
                        round_record.verdict = Some(v);
                        if round == 1 {
                            let (outcome, reason, matchers) = outcome::score(fixture, v, &report);
                            record.outcome = outcome;
                            record.reason = reason;
                            record.matchers = matchers;
                        }
                    }
                    None => {
                        let message = report
                            .error
                            .as_ref()
                            .map(|e| format!("{}: {}", e.code, e.message))
                            .unwrap_or_else(|| "status error".into());
                        round_record.error =
                            Some(format!("the pipeline reported an error: {message}"));
                    }
                }
                round_record.report = Some(value);
                verdict
            }
            RoundOutput::Error(reason) => {
                round_record.error = Some(reason);
                None
            }
            RoundOutput::Timeout(reason) => {
                round_record.error = Some(reason);
                round_record.timed_out = true;
                None
            }
        };
        let failed = round_record.error.clone();
        let timed_out = round_record.timed_out;
        record.rounds.push(round_record);
        let Some(verdict) = verdict else {
            if round == 1 {
                record.outcome = if timed_out {
                    Outcome::Timeout
                } else {
                    Outcome::Error
                };
                record.reason = failed.unwrap_or_default();
            }
            break;
        };
        if verdict == Verdict::Pass {
            converged_at = Some(round);
            break;
        }
        let Some((number, fix)) = fixture
            .fixes
            .iter()
            .enumerate()
            .find(|(_, f)| f.after_round == round)
        else {
            break;
        };
        match materialized.apply_fix(fixture, number as u32 + 1, &fix.files) {
            Ok(commit) => {
                if let Some(last) = record.rounds.last_mut() {
                    last.fix_commit = Some(commit);
                }
            }
            Err(e) => {
                record.outcome = Outcome::Error;
                record.reason = format!("the fix after round {round} could not be applied: {e}");
                return;
            }
        }
    }
    record.convergence = outcome::convergence(fixture, converged_at);
}
