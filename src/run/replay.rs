//! `gatebench replay`: a recorded run re-scored from the reports it saved, against the current
//! fixtures' expectations and the current scoring, without invoking any pipeline (SWE-bench's
//! re-grading from saved logs). A trial whose fixture no longer exists, or now materializes a
//! different repository than the one its reports are about, is an `error` in the replay, never
//! re-scored: its reports judged another repository.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use crate::corpus;
use crate::corpus::model::hash::repo_hash;
use crate::corpus::scenario::{PipelineKind, PipelineSpec, Scenario, Thresholds};
use crate::error::Error;
use crate::output::store::objects::Store;
use crate::output::store::results::{FixtureInfo, RunResults};
use crate::output::store::runs;
use crate::pipeline::select;
use crate::run::execute::{self, Finished};
use crate::score::metrics::{self, MetricsReport};
use crate::score::outcome::Outcome;
use crate::score::record::TrialRecord;
use crate::score::trial_score;
use crate::score::trial_score::Scoring;

/// What to replay, and where.
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// A results file or a run folder.
    pub recorded: PathBuf,
    /// The fixtures to score against (default: the recorded scenario's, else `fixtures`).
    pub fixtures_dir: Option<PathBuf>,
    /// The replay is written to `<reports_dir>/<run-id>/`.
    pub reports_dir: PathBuf,
}

fn fixtures_dir_of(recorded: &RunResults) -> PathBuf {
    Scenario::load(Path::new(&recorded.scenario.file))
        .map(|s| s.fixtures_dir())
        .unwrap_or_else(|_| PathBuf::from("fixtures"))
}

/// The bars to judge by: those recorded with the run, else the scenario file's, else the defaults.
fn thresholds_of(recorded: &RunResults) -> Thresholds {
    recorded.scenario.thresholds.clone().unwrap_or_else(|| {
        Scenario::load(Path::new(&recorded.scenario.file))
            .map(|s| s.spec.thresholds)
            .unwrap_or_default()
    })
}

/// How to score the recorded trials: as the recorded scenario's pipeline scores (its `kinds:`
/// mapping), else as the recorded pipeline's kind says; an error when the recorded pipeline is of
/// no known kind (it is never scored as another).
fn scoring_of(recorded: &RunResults) -> Result<Scoring, Error> {
    let kind = recorded.pipeline_kind()?;
    let file = Path::new(&recorded.scenario.file);
    // A matrix run's pipeline is the scenario's entry of that name.
    let own = |scenario: Scenario| match &recorded.scenario.matrix_pipeline {
        Some(name) => scenario
            .spec
            .pipelines
            .into_iter()
            .find(|entry| &entry.name == name)
            .map(|entry| entry.pipeline),
        None => Some(scenario.spec.pipeline),
    };
    let spec = match Scenario::load(file).ok().and_then(own) {
        Some(spec) if spec.kind() == kind => spec,
        _ => match kind {
            PipelineKind::Builtin => PipelineSpec::Builtin {
                depth: if recorded.pipeline == crate::corpus::scenario::BUILTIN_DEEP {
                    crate::corpus::scenario::Depth::Deep
                } else {
                    crate::corpus::scenario::Depth::Light
                },
            },
            PipelineKind::Legacy => PipelineSpec::Legacy,
            // The command's scenario is gone or names another pipeline now, and its `kinds:`
            // mapping with it: its findings stay untyped, and the gate's matchers never apply.
            PipelineKind::Command => return Ok(Scoring::default()),
        },
    };
    let dir = file.parent().unwrap_or(Path::new("."));
    Ok(select::scoring(select::from_spec(&spec, dir).as_ref()))
}

/// What a recorded run's trials are scored again against: the fixtures as they are now (with the
/// scenario's generated mutants), and the recorded pipeline's scoring. `replay` re-scores with
/// it, and `merge` checks every shard's trials with it.
pub struct Rescorer {
    pub corpus: corpus::Corpus,
    pub fixtures_dir: PathBuf,
    scoring: Scoring,
}

impl Rescorer {
    /// The rescorer of `recorded`: its fixtures from `fixtures_dir`, else from the recorded
    /// scenario's, else `fixtures`.
    pub fn of(
        recorded: &RunResults,
        fixtures_dir: Option<PathBuf>,
    ) -> Result<Rescorer, Vec<Error>> {
        let fixtures_dir = fixtures_dir.unwrap_or_else(|| fixtures_dir_of(recorded));
        let corpus = corpus::load(&fixtures_dir)?;
        // A run of generated mutants is re-scored against the same mutants, generated again.
        let corpus = match Scenario::load(Path::new(&recorded.scenario.file)) {
            Ok(scenario) => execute::with_mutants(&scenario, corpus).map_err(|e| vec![e])?,
            Err(_) => corpus,
        };
        Ok(Rescorer {
            corpus,
            fixtures_dir,
            scoring: scoring_of(recorded).map_err(|e| vec![e])?,
        })
    }

    /// `trial` scored again from its reports (read back from `store` for this trial alone, and
    /// dropped after): an `error` when its fixture no longer exists, or now materializes another
    /// repository than `recorded_hash` (the `repo_hash` its run recorded), whose reports judged
    /// something else.
    pub fn rescore(
        &self,
        trial: &mut TrialRecord,
        recorded_hash: &str,
        store: Option<&Store>,
    ) -> Result<(), Error> {
        let Some(fixture) = self.corpus.get(&trial.fixture) else {
            trial.outcome = Outcome::Error;
            trial.reason = format!(
                "replay: no fixture `{}` in {}",
                trial.fixture,
                self.fixtures_dir.display()
            );
            return Ok(());
        };
        if recorded_hash.is_empty() || repo_hash(fixture).ok().as_deref() != Some(recorded_hash) {
            trial.harness_error = Some(
                "replay: the fixture now materializes a different repository than the recorded \
                 reports judged (or the recording does not say which); run it again"
                    .into(),
            );
        }
        trial.category = fixture.category.clone();
        trial.golden = fixture.is_golden();
        trial.tier = fixture.tier;
        trial.signal = fixture.signal;
        trial.cached = false;
        let modified_was_error = trial
            .reason
            .starts_with("the pipeline modified the repository");
        if let Some(store) = store {
            store.resolve(trial)?;
        }
        trial_score::score(fixture, &self.scoring, trial);
        crate::output::store::objects::release(trial);
        if modified_was_error {
            crate::run::runner::apply_on_modified(
                trial,
                crate::corpus::scenario::OnModified::Error,
            );
        }
        Ok(())
    }
}

/// Re-scores a recorded run and writes the replay as a run of its own.
pub fn replay(options: &ReplayOptions) -> Result<Finished, Vec<Error>> {
    let clock = Instant::now();
    let started_at = SystemTime::now();
    let recorded = runs::read(&options.recorded).map_err(|e| vec![e])?;
    let rescorer = Rescorer::of(&recorded, options.fixtures_dir.clone())?;
    let corpus = &rescorer.corpus;
    let recorded_hashes: BTreeMap<String, String> = recorded
        .fixtures
        .iter()
        .map(|f| (f.id.clone(), f.repo_hash.clone()))
        .collect();
    let mut trials = recorded.trials.clone().into_vec().map_err(|e| vec![e])?;
    for trial in &mut trials {
        let recorded_hash = recorded_hashes
            .get(trial.fixture.as_str())
            .map_or("", String::as_str);
        rescorer
            .rescore(trial, recorded_hash, recorded.objects.as_ref())
            .map_err(|e| vec![e])?;
    }
    let fixtures: Vec<FixtureInfo> = recorded
        .fixtures
        .iter()
        .map(|info| {
            corpus
                .get(&info.id)
                .map(FixtureInfo::of)
                .unwrap_or_else(|| info.into_owned())
        })
        .collect();
    let thresholds_spec = thresholds_of(&recorded);
    let (mut metrics, fixture_trials) =
        MetricsReport::with_fixtures(&trials, recorded.trial_count > 1);
    // Unviable mutants were never run: the recorded count stands.
    if let Some(mutation) = metrics.mutation.as_mut() {
        mutation.unviable = recorded
            .metrics
            .mutation
            .as_ref()
            .and_then(|m| m.unviable.clone());
    }
    let (thresholds, _) = execute::judge_all(&metrics, &trials, &thresholds_spec, None);
    let exit_code = metrics::exit_code_of(&thresholds);
    let run_id = execute::run_id(
        started_at,
        &recorded.scenario.name,
        &format!("replay-{}", std::process::id()),
    );
    let (_, rfc3339) = gatebench_report::time::utc_stamp(started_at);
    let mut scenario = recorded.scenario.clone();
    scenario.thresholds = Some(thresholds_spec);
    let mut results = RunResults {
        run_id,
        scenario,
        started_at: rfc3339,
        duration_ms: clock.elapsed().as_millis() as u64,
        fixtures: fixtures.into(),
        fixture_trials,
        trials: trials.into(),
        metrics,
        thresholds,
        exit_code,
        cache: None,
        replay_of: Some(recorded.run_id.clone()),
        ratchet: None,
        ..recorded
    };
    // The trial logs as `run` writes them, for the fixtures that still exist.
    let replayed: Vec<&corpus::Fixture> = results
        .fixtures
        .iter()
        .filter_map(|f| corpus.get(&f.id))
        .collect();
    let views = crate::output::store::trial_logs::views(&replayed, corpus).map_err(|e| vec![e])?;
    let dir = crate::run::folders::write_run_with(&options.reports_dir, &mut results, Some(&views))
        .map_err(|e| vec![e])?;
    Ok(Finished { results, dir })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::store::results;

    /// The committed example run, its pipeline renamed to `pipeline`.
    fn recorded(pipeline: &str) -> RunResults {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline/results.json");
        let mut recorded = results::read(&file).unwrap();
        recorded.pipeline = pipeline.into();
        recorded
    }

    /// A recorded pipeline of no known kind is an error naming it and the run: it is never scored
    /// as another kind (it once was, as the legacy checker).
    #[test]
    fn a_run_of_an_unknown_pipeline_kind_is_an_error_naming_it() {
        for name in ["mystery", "", "Builtin", "commands", "builtin, legacy"] {
            let error = scoring_of(&recorded(name)).unwrap_err().to_string();
            assert!(error.contains(&format!("pipeline `{name}`")), "{error}");
            assert!(error.contains("of no known kind"), "{error}");
            assert!(error.contains("reports/baseline"), "{error}");
        }
    }

    /// Each known kind is scored as itself: the gate's matchers for the built-in gate alone.
    #[test]
    fn a_run_of_each_known_kind_is_scored_as_that_kind() {
        for (name, gate_matchers) in [
            ("builtin", true),
            ("legacy", false),
            ("command: ./verify.sh", false),
        ] {
            let scoring = scoring_of(&recorded(name)).unwrap();
            assert_eq!(scoring.gate_matchers, gate_matchers, "{name}");
        }
    }
}
