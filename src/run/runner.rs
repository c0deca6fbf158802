//! The run: every selected fixture times every trial, in parallel on a rayon pool; each trial
//! materialized, verified round by round (with the pipeline's fixer or the scripted fixes between
//! rounds, and the read-only check around every round) and scored. A trial that breaks is
//! recorded as that trial's outcome; the run goes on.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::corpus::model::fixture::ExpectedRounds;
use crate::corpus::scenario::OnModified;
use crate::corpus::{Composed, Entry, Fixture};
use crate::output::store::objects::Store;
use crate::pipeline::cache::Cache;
use crate::pipeline::round::{FixInput, FixRun, Pipeline, RoundInput, RoundOutput, RoundRun};
use crate::repo::fingerprint::{Fingerprinter, RepoFingerprint};
use crate::repo::materialize::{self, Materialized};
use crate::repo::remove::remove_tree;
use crate::repo::workdir::WorkRoot;
use crate::score::outcome::Outcome;
use crate::score::record::{RoundRecord, TrialRecord};
use crate::score::trial_score::{self, Scoring};
use gatebench_report::Verdict;

/// Called with each fixture in full, once, before its first trial (from worker threads): a run
/// writes what it records of each fixture (`FixtureInfo`, the trial logs' views) from it, so that
/// a corpus loaded slim is never loaded in full twice.
#[derive(Clone, Copy)]
pub struct OnFixture<'a>(pub &'a (dyn Fn(&Fixture) + Sync));

impl std::fmt::Debug for OnFixture<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnFixture")
    }
}

/// Everything a run needs besides the fixtures and the pipeline.
#[derive(Debug)]
pub struct RunConfig<'a> {
    /// Parallel trials (at least 1).
    pub jobs: usize,
    pub trials: u32,
    pub max_rounds: u32,
    pub base_ref: String,
    pub work_root: &'a WorkRoot,
    /// The result cache (external pipelines only): finished trials are written to it as they
    /// end, and read from it unless reading is off.
    pub cache: Option<&'a Cache>,
    /// How trials are scored (the pipeline's taxonomy mapping, the gate's matchers).
    pub scoring: &'a Scoring,
    /// The scenario's name: part of every case id (`workdir::case_id`).
    pub scenario: String,
    /// What a trial whose pipeline changed the repository comes to.
    pub on_modified: OnModified,
    /// Re-runs of a trial that ended in `error` or `timeout` (`retries`); verdicts never retried.
    pub retries: u32,
    /// Where finished trials' reports, process and fixer records go as each trial ends (after it
    /// is scored and cached), so memory holds only references; `None` keeps them in the records.
    pub objects: Option<&'a Store>,
    /// See [`OnFixture`]; `None` calls nothing.
    pub on_fixture: Option<OnFixture<'a>>,
}

/// `on_modified: error` (the default): a trial whose pipeline changed the repository it verified
/// is an `error`, whatever it answered; `flag` keeps the outcome (the change is still recorded).
/// Applied after scoring, to fresh and cached trials alike.
pub fn apply_on_modified(record: &mut TrialRecord, policy: OnModified) {
    if policy == OnModified::Error
        && record.modified_repo
        && !matches!(record.outcome, Outcome::Error | Outcome::Timeout)
    {
        record.outcome = Outcome::Error;
        record.reason = format!(
            "the pipeline modified the repository it verified ({}); a verifier must not change \
             what it judges (`on_modified: flag` keeps the outcome)",
            record.modified_paths.join(", ")
        );
    }
}

/// Runs every fixture `cfg.trials` times. `on_done` is called as each trial finishes (from worker
/// threads). Records come back sorted by fixture id, then trial, all in memory: a run hands each
/// to its spool instead ([`run_each`]).
pub fn run(
    fixtures: &[Entry<'_>],
    pipeline: &dyn Pipeline,
    cfg: &RunConfig<'_>,
    on_done: &(dyn Fn(&TrialRecord) + Sync),
) -> Vec<TrialRecord> {
    let records = std::sync::Mutex::new(Vec::new());
    run_each(fixtures, pipeline, cfg, &|record| {
        on_done(&record);
        records
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(record);
    });
    let mut records = records.into_inner().unwrap_or_else(|p| p.into_inner());
    records.sort_by(|a, b| (&a.fixture, a.trial).cmp(&(&b.fixture, b.trial)));
    records
}

/// Runs every fixture `cfg.trials` times, handing each trial to `on_done` as it finishes (from
/// worker threads, in the order they finish), its reports already in `cfg.objects`.
///
/// Each of the `jobs` workers takes the next trial from one shared queue, so no worker idles while
/// trials remain (a split of the list ahead of time leaves one worker finishing a run of slow
/// trials alone); the queue starts with the trials expected to take the most rounds, so that the
/// run does not end on a long one.
pub fn run_each(
    fixtures: &[Entry<'_>],
    pipeline: &dyn Pipeline,
    cfg: &RunConfig<'_>,
    on_done: &(dyn Fn(TrialRecord) + Sync),
) {
    let mut work: Vec<(Entry, u32)> = fixtures
        .iter()
        .flat_map(|f| (0..cfg.trials).map(move |t| (*f, t)))
        .collect();
    // Stable: equal estimates keep the fixtures' order.
    work.sort_by_key(|(f, _)| std::cmp::Reverse(expected_rounds(f, cfg.max_rounds)));
    let jobs = cfg.jobs.max(1);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs).build();
    let next = AtomicUsize::new(0);
    let worker = || {
        while let Some((fixture, trial)) = work.get(next.fetch_add(1, Ordering::Relaxed)) {
            let mut record = run_with_retries(*fixture, *trial, pipeline, cfg);
            if let Some(store) = cfg.objects {
                // On failure what was not moved stays in the record: the run's outputs are
                // written with it (and fail there, clearly, if the folder is unwritable).
                let _ = store.externalize(&mut record);
            }
            on_done(record);
        }
    };
    match pool {
        Ok(pool) => pool.install(|| (0..jobs).into_par_iter().for_each(|_| worker())),
        Err(_) => worker(),
    }
}

/// The rounds a fixture's trial is expected to take: the queue's estimate of its length.
fn expected_rounds(fixture: &Entry, max_rounds: u32) -> u32 {
    match fixture.rounds() {
        Some(ExpectedRounds::After(n)) => n,
        Some(ExpectedRounds::Never) => max_rounds,
        None => 1,
    }
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// A trial, re-run up to `cfg.retries` more times while it ends in `error` or `timeout` (an
/// infrastructure failure: a verdict, even a false pass, is never retried into another). With
/// retries on, every attempt is recorded on the final record.
fn run_with_retries(
    entry: Entry,
    trial: u32,
    pipeline: &dyn Pipeline,
    cfg: &RunConfig<'_>,
) -> TrialRecord {
    // A fixture loaded slim is loaded in full now, for this trial only.
    let fixture = entry.fixture();
    let fixture = &*fixture;
    let full = fixture.full();
    if let (0, Some(on_fixture)) = (trial, cfg.on_fixture) {
        (on_fixture.0)(full.as_deref().unwrap_or(fixture));
    }
    let fixture = match full {
        Ok(full) => full,
        Err(e) => {
            let mut record = TrialRecord::new(fixture, trial);
            record.harness_error = Some(format!("the fixture could not be loaded again: {e}"));
            trial_score::score(fixture, cfg.scoring, &mut record);
            apply_on_modified(&mut record, cfg.on_modified);
            return record;
        }
    };
    let fixture = &*fixture;
    let mut record = run_or_reuse(fixture, trial, pipeline, cfg);
    if cfg.retries == 0 {
        return record;
    }
    let mut attempts = Vec::new();
    while matches!(record.outcome, Outcome::Error | Outcome::Timeout)
        && attempts.len() < cfg.retries as usize
        && !crate::run::interrupt::interrupted()
    {
        attempts.push(crate::score::record::Attempt::of(&record));
        // Run again, never from the cache (an `on_modified` error may come from a cached trial).
        record = run_trial(fixture, trial, pipeline, cfg);
        if let Some(cache) = cfg.cache {
            remember(cache, fixture, trial, cfg, &mut record);
        }
    }
    attempts.push(crate::score::record::Attempt::of(&record));
    record.retried = attempts.len() > 1;
    record.attempts = attempts;
    record
}

/// Writes a finished trial to the cache. A cache that cannot be written is an error of the
/// trial, never silent: the run could not be resumed from it.
fn remember(
    cache: &Cache,
    fixture: &Fixture,
    trial: u32,
    cfg: &RunConfig<'_>,
    record: &mut TrialRecord,
) {
    if let Err(e) = cache.put(fixture, trial, record) {
        record.harness_error = Some(format!("the result cache could not be written: {e}"));
        trial_score::score(fixture, cfg.scoring, record);
        apply_on_modified(record, cfg.on_modified);
    }
}

/// Runs one trial of one fixture, or takes it from the result cache when the cache holds it.
fn run_or_reuse(
    fixture: &Fixture,
    trial: u32,
    pipeline: &dyn Pipeline,
    cfg: &RunConfig<'_>,
) -> TrialRecord {
    let Some(cache) = cfg.cache else {
        return run_trial(fixture, trial, pipeline, cfg);
    };
    // (run_trial applies `on_modified` itself.)
    if let Some(mut record) = cache.get(fixture, trial) {
        // The key covers what is materialized, not the category or the expectation: both are
        // taken from the fixture as it is now.
        record.category = fixture.category.clone();
        record.golden = fixture.is_golden();
        record.tier = fixture.tier;
        record.signal = fixture.signal;
        record.kept_at = None;
        trial_score::score(fixture, cfg.scoring, &mut record);
        apply_on_modified(&mut record, cfg.on_modified);
        record.cached = true;
        return record;
    }
    let mut record = run_trial(fixture, trial, pipeline, cfg);
    // Written as soon as the trial ends, so that an interrupted run resumes from here.
    remember(cache, fixture, trial, cfg, &mut record);
    record
}

/// Runs one trial of one fixture.
pub fn run_trial(
    fixture: &Fixture,
    trial: u32,
    pipeline: &dyn Pipeline,
    cfg: &RunConfig<'_>,
) -> TrialRecord {
    let started = Instant::now();
    let case = crate::repo::workdir::case_id(&cfg.scenario, &fixture.id, trial);
    let dir = cfg.work_root.trial_dir(&case);
    let scratch = scratch_dir(&dir);
    let mut record = TrialRecord::new(fixture, trial);
    let Some(_writing) = crate::run::interrupt::begin_trial() else {
        record.reason = "the run was interrupted before this trial started".into();
        return record;
    };
    if crate::run::memory::exhausted() {
        // Memory ran out earlier in the run (`memory::on_failure`): the trials still to start
        // are recorded as errors, not run, so the run can still write what it has.
        record.harness_error = Some(
            "not run: gatebench ran out of memory earlier in this run (an allocation failed); \
             give it more memory or fewer --jobs"
                .into(),
        );
        trial_score::score(fixture, cfg.scoring, &mut record);
        record.duration_ms = started.elapsed().as_millis() as u64;
        return record;
    }
    if cfg.work_root.keep() {
        record.kept_at = Some(dir.display().to_string());
    }
    // Composed now, dropped when the trial ends: the corpus holds no omission fixture's trees.
    let trees = match fixture.compose() {
        Ok(trees) => trees,
        Err(e) => {
            record.harness_error = Some(format!(
                "the fixture could not be composed from its files: {e}"
            ));
            trial_score::score(fixture, cfg.scoring, &mut record);
            apply_on_modified(&mut record, cfg.on_modified);
            record.duration_ms = started.elapsed().as_millis() as u64;
            return record;
        }
    };
    match materialize::materialize_composed(fixture, &trees, &dir) {
        Ok(mut materialized) => {
            record.materialize_ms = started.elapsed().as_millis() as u64;
            record.work_dir = materialized.work_dir.display().to_string();
            // The results' repository hash, from these trees rather than composed again later.
            crate::corpus::model::hash::repo_hash_of(fixture, &trees);
            rounds(
                (fixture, &trees),
                (trial, &case),
                pipeline,
                cfg,
                &scratch,
                &mut materialized,
                &mut record,
            );
            record.commits = materialized.commits.clone();
        }
        Err(e) => {
            record.harness_error = Some(format!("the fixture could not be materialized: {e}"));
        }
    }
    trial_score::score(fixture, cfg.scoring, &mut record);
    apply_on_modified(&mut record, cfg.on_modified);
    record.duration_ms = started.elapsed().as_millis() as u64;
    cleanup(cfg, &dir);
    record
}

/// A folder beside the trial's repository (never inside it) for what the pipeline writes.
fn scratch_dir(trial_dir: &Path) -> PathBuf {
    trial_dir.with_file_name(format!(
        "{}.scratch",
        trial_dir
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    ))
}

fn cleanup(cfg: &RunConfig<'_>, dir: &Path) {
    if !cfg.work_root.keep() {
        let _ = remove_tree(dir);
        let _ = remove_tree(&scratch_dir(dir));
        let _ = remove_tree(&dir.with_file_name(format!(
            "{}-worktree",
            dir.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
        )));
    }
}

/// The repository's fingerprint now, or why it could not be taken (its open failed, or this read).
fn fingerprint(fingerprinter: &Result<Fingerprinter, String>) -> Result<RepoFingerprint, String> {
    fingerprinter
        .as_ref()
        .map_err(Clone::clone)
        .and_then(Fingerprinter::take)
}

/// What the pipeline changed in the repository between two fingerprints.
fn changes(
    before: &Result<RepoFingerprint, String>,
    fingerprinter: &Result<Fingerprinter, String>,
) -> Vec<String> {
    match (before, fingerprint(fingerprinter)) {
        (Ok(before), Ok(after)) => before.changed(&after),
        (Ok(_), Err(e)) => vec![format!("(the repository became unreadable: {e})")],
        (Err(_), _) => Vec::new(),
    }
}

/// Verifies round by round; between rounds applies the pipeline's fixer or the fixture's scripted
/// fix. Records every round; scoring is `trial_score`'s.
fn rounds(
    (fixture, trees): (&Fixture, &Composed),
    (trial, case): (u32, &str),
    pipeline: &dyn Pipeline,
    cfg: &RunConfig<'_>,
    scratch: &Path,
    materialized: &mut Materialized,
    record: &mut TrialRecord,
) {
    // Opened once: each round's fingerprints read the repository from disk again.
    let fingerprinter = Fingerprinter::open(&materialized.pinned, &materialized.work_dir);
    for round in 1..=cfg.max_rounds {
        let input = RoundInput {
            work_dir: &materialized.work_dir,
            repo_dir: &materialized.repo_dir,
            case_id: case,
            round,
            trial,
            base_ref: &cfg.base_ref,
            scratch_dir: scratch,
            pinned: &materialized.pinned,
        };
        // As materialized (round 1, no fix applied yet), what was written is known: only the
        // fingerprint after the round reads the repository.
        let before = fingerprinter.as_ref().map_err(Clone::clone).and_then(|f| {
            materialized
                .fingerprint_as_written(f)
                .unwrap_or_else(|| f.take())
        });
        let started = Instant::now();
        let run =
            catch_unwind(AssertUnwindSafe(|| pipeline.run_round(&input))).unwrap_or_else(|p| {
                RoundRun {
                    output: RoundOutput::Error(format!(
                        "the pipeline panicked: {}",
                        panic_message(p)
                    )),
                    process: None,
                    report_file: None,
                }
            });
        let mut round_record = RoundRecord::new(round, started.elapsed().as_millis() as u64);
        round_record.modified_paths = changes(&before, &fingerprinter);
        round_record.process = run.process;
        let verdict = record_output(&mut round_record, run.output);
        let go_on = if verdict.is_none_or(|v| v == Verdict::Pass) {
            false
        } else if pipeline.has_fixer() {
            // A fixer costs (an agent's tokens): none after the last round, nothing would verify it.
            round < cfg.max_rounds && {
                let last_report = run.report_file.unwrap_or_default();
                let fix = pipeline.run_fixer(&FixInput {
                    round: input,
                    last_report: &last_report,
                });
                commit_fix(fix, round, materialized, (&mut round_record, record))
            }
        } else {
            fix_by_script(
                fixture,
                trees,
                round,
                materialized,
                (&mut round_record, record),
            )
        };
        record.rounds.push(round_record);
        if !go_on {
            return;
        }
    }
}

/// What a round's pipeline answered, into its record; the verdict, when it gave one.
fn record_output(round_record: &mut RoundRecord, output: RoundOutput) -> Option<Verdict> {
    match output {
        RoundOutput::Report(report, value) => {
            round_record.findings = report.findings.len();
            round_record.cost = report.cost.clone();
            round_record.dimensions_run = crate::score::record::dimensions_run(&report);
            let verdict = report.verdict();
            match verdict {
                Some(v) => round_record.verdict = Some(v),
                None => {
                    let message = report
                        .error
                        .as_ref()
                        .map(|e| format!("{}: {}", e.code, e.message))
                        .unwrap_or_else(|| "status error".into());
                    round_record.error = Some(format!("the pipeline reported an error: {message}"));
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
    }
}

/// What the pipeline's fixer did after failing round `round`, recorded, and its changes
/// committed. Whether the trial goes on to the next round (the fixer ran, and its changes were
/// committed).
fn commit_fix(
    fix: Option<FixRun>,
    round: u32,
    materialized: &mut Materialized,
    (round_record, record): (&mut RoundRecord, &mut TrialRecord),
) -> bool {
    let Some(fix) = fix else {
        return false;
    };
    round_record.fixer = Some(fix.process);
    round_record.fix_cost = fix.cost;
    if let Some(error) = fix.error {
        round_record.fix_error = Some(error);
        return false;
    }
    match materialized.commit_work_tree(round) {
        Ok(commit) => {
            if let Some((id, diff)) = commit {
                round_record.fix_commit = Some(id);
                round_record.fix_diff = Some(diff);
            }
            true
        }
        Err(e) => {
            record.harness_error = Some(format!(
                "the fixer's changes after round {round} could not be committed: {e}"
            ));
            false
        }
    }
}

/// The fixture's scripted fix after a failing round, if it has one for this round. Whether the
/// trial goes on to the next round (a fix was applied).
fn fix_by_script(
    fixture: &Fixture,
    trees: &Composed,
    round: u32,
    materialized: &mut Materialized,
    (round_record, record): (&mut RoundRecord, &mut TrialRecord),
) -> bool {
    let Some((number, fix)) = trees
        .fixes
        .iter()
        .enumerate()
        .find(|(_, f)| f.after_round == round)
    else {
        return false;
    };
    match materialized.apply_fix(fixture, number as u32 + 1, &fix.files) {
        Ok(commit) => {
            round_record.fix_commit = Some(commit);
            true
        }
        Err(e) => {
            record.harness_error = Some(format!(
                "the fix after round {round} could not be applied: {e}"
            ));
            false
        }
    }
}
