//! `gatebench merge`: the results of the shards of one run (`--shard i/n` on each CI job) combined
//! into one run, with metrics and thresholds computed again over all trials. Shards that do not
//! fit together are refused, naming the files: a missing or duplicate shard, shards of different
//! scenarios, selections, trial counts or pipeline fingerprints.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::corpus::model::hash::repo_hash;
use crate::error::Error;
use crate::output::store::results::{CacheStats, RunResults};
use crate::run::execute;
use crate::run::replay::Rescorer;
use crate::score::metrics::{self, MetricsReport};
use crate::score::record::TrialRecord;
use crate::shard::ShardInfo;

fn differs(what: &str, file: &Path, value: &str, first_file: &Path, first_value: &str) -> Error {
    Error::invalid(
        file,
        format!(
            "is a shard of a different run: its {what} is `{value}`, but {} has `{first_value}`",
            first_file.display()
        ),
    )
}

fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

pub use crate::shard::MAX_SHARDS;

/// One shard as `check` reads it: the file it came from, its results, what it records about
/// itself.
type ShardOf<'a> = (&'a Path, &'a RunResults, &'a ShardInfo);

/// Checks that `shards` (each with the file it was read from) are the complete, distinct shards
/// of one run. Every problem found is returned.
pub fn check(shards: &[(PathBuf, RunResults)]) -> Result<(), Vec<Error>> {
    let mut errors = Vec::new();
    let Some((first_file, first)) = shards.first() else {
        return Err(vec![Error::invalid(
            "merge",
            "no shard results given: name the results.json (or run folder) of every shard",
        )]);
    };
    check_each_is_a_shard(shards, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    // Every shard has its info: checked just above.
    let shards: Vec<ShardOf<'_>> = shards
        .iter()
        .filter_map(|(f, r)| r.shard.as_ref().map(|s| (f.as_path(), r, s)))
        .collect();
    let first_info = shards[0].2;
    check_same_run(&shards, (first_file, first, first_info), &mut errors);
    check_every_shard_once(&shards, (first_file, first, first_info), &mut errors);
    if errors.is_empty() {
        let owner = check_every_fixture_once(&shards, &mut errors);
        check_every_trial_once(&shards, &mut errors);
        if errors.is_empty() && owner.len() != first_info.selected {
            errors.push(Error::invalid(
                first_file,
                format!(
                    "the shards hold {} fixtures, but their selection has {}",
                    owner.len(),
                    first_info.selected
                ),
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Every input was run with `--shard i/n`, with an index and count gatebench writes.
fn check_each_is_a_shard(shards: &[(PathBuf, RunResults)], errors: &mut Vec<Error>) {
    for (file, r) in shards {
        match &r.shard {
            None => errors.push(Error::invalid(
                file,
                "is not a shard: it was run without --shard i/n",
            )),
            Some(i) if i.count == 0 || i.count > MAX_SHARDS || i.index == 0 || i.index > i.count => {
                errors.push(Error::invalid(
                    file,
                    format!(
                        "shard {}/{} is not a shard gatebench writes: the index is 1..=count and the count 1..={MAX_SHARDS}",
                        i.index, i.count
                    ),
                ))
            }
            Some(_) => {}
        }
    }
}

/// Every shard is of the first one's run: scenario, pipeline, shard count, selection, trials,
/// rounds and bars.
fn check_same_run(shards: &[ShardOf<'_>], first: ShardOf<'_>, errors: &mut Vec<Error>) {
    let (first_file, first, first_info) = first;
    for (file, r, i) in &shards[1..] {
        let checks: [(&str, String, String); 6] = [
            (
                "scenario",
                r.scenario.name.clone(),
                first.scenario.name.clone(),
            ),
            (
                "pipeline fingerprint",
                format!("{} ({})", short(&r.pipeline_fingerprint), r.pipeline),
                format!(
                    "{} ({})",
                    short(&first.pipeline_fingerprint),
                    first.pipeline
                ),
            ),
            (
                "shard count",
                i.count.to_string(),
                first_info.count.to_string(),
            ),
            (
                "selection",
                format!(
                    "{} fixtures, {}",
                    i.selected,
                    short(&i.selection_fingerprint)
                ),
                format!(
                    "{} fixtures, {}",
                    first_info.selected,
                    short(&first_info.selection_fingerprint)
                ),
            ),
            (
                "trials per fixture",
                r.trial_count.to_string(),
                first.trial_count.to_string(),
            ),
            (
                "max rounds",
                r.max_rounds.to_string(),
                first.max_rounds.to_string(),
            ),
        ];
        for (what, value, first_value) in checks {
            if value != first_value {
                errors.push(differs(what, file, &value, first_file, &first_value));
            }
        }
        let bars =
            |r: &RunResults| serde_json::to_string(&r.scenario.thresholds).unwrap_or_default();
        if bars(r) != bars(first) {
            errors.push(Error::invalid(
                file,
                format!(
                    "is a shard of a different run: its thresholds differ from those of {}",
                    first_file.display()
                ),
            ));
        }
    }
}

/// Each shard index is given once, and none is missing.
fn check_every_shard_once(shards: &[ShardOf<'_>], first: ShardOf<'_>, errors: &mut Vec<Error>) {
    let (first_file, _, first_info) = first;
    let mut seen: BTreeMap<u32, &Path> = BTreeMap::new();
    for (file, _, i) in shards {
        if let Some(other) = seen.get(&i.index) {
            errors.push(Error::invalid(
                file,
                format!(
                    "shard {}/{} is given twice: {} is the same shard",
                    i.index,
                    i.count,
                    other.display()
                ),
            ));
        } else {
            seen.insert(i.index, *file);
        }
    }
    let missing: Vec<String> = (1..=first_info.count)
        .filter(|i| !seen.contains_key(i))
        .map(|i| format!("{i}/{}", first_info.count))
        .collect();
    if !missing.is_empty() {
        let given: Vec<String> = seen
            .iter()
            .map(|(i, f)| format!("{i}/{} ({})", first_info.count, f.display()))
            .collect();
        errors.push(Error::invalid(
            first_file,
            format!(
                "shard(s) {} missing: given {}",
                missing.join(", "),
                given.join(", ")
            ),
        ));
    }
}

/// No fixture is in two shards; returns which shard holds each.
fn check_every_fixture_once<'a>(
    shards: &[ShardOf<'a>],
    errors: &mut Vec<Error>,
) -> BTreeMap<String, &'a Path> {
    let mut owner: BTreeMap<String, &Path> = BTreeMap::new();
    for (file, r, _) in shards {
        for f in &r.fixtures {
            if let Some(other) = owner.insert(f.id.clone(), *file) {
                errors.push(Error::invalid(
                    file,
                    format!(
                        "fixture `{}` is in this shard and in {} (shards made by different gatebench versions?)",
                        f.id,
                        other.display()
                    ),
                ));
            }
        }
    }
    owner
}

/// Every trial of a shard is one of its fixtures' trials, each exactly once: a run writes every
/// trial of every fixture it lists, once.
fn check_every_trial_once(shards: &[ShardOf<'_>], errors: &mut Vec<Error>) {
    for (file, r, _) in shards {
        let listed: BTreeSet<String> = r.fixtures.iter().map(|f| f.id.clone()).collect();
        let mut seen: BTreeSet<(String, u32)> = BTreeSet::new();
        for t in r.trials.iter() {
            if !listed.contains(t.fixture.as_str()) {
                errors.push(Error::invalid(
                    file,
                    format!(
                        "trial {} [{}] is of a fixture this shard does not list: not a trial of this run",
                        t.fixture, t.trial
                    ),
                ));
            } else if t.trial >= r.trial_count {
                errors.push(Error::invalid(
                    file,
                    format!(
                        "trial {} [{}] is not a trial of this run: it has {} trial(s) per fixture",
                        t.fixture, t.trial, r.trial_count
                    ),
                ));
            } else if !seen.insert((t.fixture.clone(), t.trial)) {
                errors.push(Error::invalid(
                    file,
                    format!("trial {} [{}] is given twice", t.fixture, t.trial),
                ));
            }
        }
        let expected = listed.len() * r.trial_count as usize;
        if seen.len() != expected && errors.is_empty() {
            errors.push(Error::invalid(
                file,
                format!(
                    "holds {} trial(s) where its {} fixture(s) of {} trial(s) each make {expected}: trials are missing",
                    seen.len(),
                    listed.len(),
                    r.trial_count
                ),
            ));
        }
    }
}

/// The most disagreements between recorded and re-scored trials listed before the rest are
/// counted.
const MAX_LISTED: usize = 20;

/// What a trial's scoring decided, as recorded: compared with the same trial scored again.
fn scored(t: &TrialRecord) -> [(&'static str, serde_json::Value); 12] {
    use serde_json::json;
    [
        ("outcome", json!(t.outcome)),
        ("reason", json!(t.reason)),
        ("matchers", json!(t.matchers)),
        ("ground_truth", json!(t.ground_truth)),
        ("fail_findings", json!(t.fail_findings)),
        ("convergence", json!(t.convergence)),
        ("kind", json!(t.kind)),
        ("category", json!(t.category)),
        ("golden", json!(t.golden)),
        ("modified_repo", json!(t.modified_repo)),
        ("modified_paths", json!(t.modified_paths)),
        ("cost", json!(t.cost)),
    ]
}

/// Checks every shard against the fixtures as they are now (`rescorer`): each fixture a shard
/// lists exists and materializes the repository its trials judged, and each trial, scored again
/// from the reports its shard stored (as `replay` scores), is what the shard recorded. A results
/// file is data from others: an outcome edited in it is refused, never counted.
fn rescore(shards: &[(PathBuf, RunResults)], rescorer: &Rescorer) -> Result<(), Vec<Error>> {
    let mut errors = Vec::new();
    let mut unlisted = 0usize;
    let mut push = |errors: &mut Vec<Error>, e: Error| {
        if errors.len() < MAX_LISTED {
            errors.push(e);
        } else {
            unlisted += 1;
        }
    };
    for (file, r) in shards {
        let mut hashes: BTreeMap<String, String> = BTreeMap::new();
        for info in r.fixtures.iter() {
            match rescorer.corpus.get(&info.id) {
                None => push(
                    &mut errors,
                    Error::invalid(
                        file,
                        format!(
                            "fixture `{}` is not a fixture of {}: its trials cannot be checked",
                            info.id,
                            rescorer.fixtures_dir.display()
                        ),
                    ),
                ),
                Some(f) if repo_hash(f).ok().as_deref() != Some(info.repo_hash.as_str()) => push(
                    &mut errors,
                    Error::invalid(
                        file,
                        format!(
                            "fixture `{}` now materializes a different repository than the shard's trials judged: run the shards again",
                            info.id
                        ),
                    ),
                ),
                Some(_) => {
                    hashes.insert(info.id.clone(), info.repo_hash.clone());
                }
            }
        }
        if !errors.is_empty() {
            continue;
        }
        for trial in r.trials.iter() {
            let hash = hashes
                .get(trial.fixture.as_str())
                .map_or("", String::as_str);
            let mut again = trial.clone().into_owned();
            if let Err(e) = rescorer.rescore(&mut again, hash, r.objects.as_ref()) {
                push(&mut errors, e);
                continue;
            }
            let (recorded, scored_again) = (scored(&trial), scored(&again));
            if let Some(((what, was), (_, now))) = recorded
                .iter()
                .zip(&scored_again)
                .find(|((_, a), (_, b))| a != b)
            {
                push(
                    &mut errors,
                    Error::invalid(
                        file,
                        format!(
                            "trial {} [{}] does not match the reports its shard stored: its {what} is recorded as {was}, but scored again from them it is {now}",
                            trial.fixture, trial.trial
                        ),
                    ),
                );
            }
        }
    }
    if unlisted > 0 {
        if let Some((file, _)) = shards.first() {
            errors.push(Error::invalid(
                file,
                format!("and {unlisted} more such problem(s)"),
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Merges checked shards into one run: trials and fixtures combined, metrics, thresholds (with
/// the ratchet, when the scenario names a baseline) and the exit code computed again. The
/// baseline is resolved against the scenario file as recorded, from the current folder. Every
/// trial is first scored again from its shard's stored reports, against the fixtures of the
/// recorded scenario ([`merge_with`] names another fixtures folder).
pub fn merge(
    shards: Vec<(PathBuf, RunResults)>,
    now: SystemTime,
) -> Result<RunResults, Vec<Error>> {
    merge_with(shards, now, None)
}

/// [`merge`], its trials scored again against the fixtures in `fixtures_dir` (default: the
/// recorded scenario's).
pub fn merge_with(
    mut shards: Vec<(PathBuf, RunResults)>,
    now: SystemTime,
    fixtures_dir: Option<PathBuf>,
) -> Result<RunResults, Vec<Error>> {
    check(&shards)?;
    let rescorer = Rescorer::of(&shards[0].1, fixtures_dir)?;
    rescore(&shards, &rescorer)?;
    shards.sort_by_key(|(_, r)| r.shard.as_ref().map_or(0, |s| s.index));
    let (first_file, first) = &shards[0];
    let Some(thresholds) = first.scenario.thresholds.clone() else {
        return Err(vec![Error::invalid(
            first_file,
            "records no thresholds (written by an older gatebench): run the shards again",
        )]);
    };
    // The bars are judged as the shards recorded them, and those must be the scenario's own
    // (when it can be read): bars edited in every shard alike would otherwise pass the merge.
    if let Some(own) = scenario_thresholds(first) {
        let json = |t: &crate::corpus::scenario::Thresholds| serde_json::to_value(t).ok();
        if json(&own) != json(&thresholds) {
            return Err(vec![Error::invalid(
                first_file,
                format!(
                    "records thresholds that differ from those of its scenario {}: the shards were changed, or the scenario since; run the shards again",
                    first.scenario.file
                ),
            )]);
        }
    }
    let baseline = crate::run::baseline::load(Path::new(&first.scenario.file), &thresholds)
        .map_err(|e| vec![e])?;
    let mut merged = first.clone();
    // Each shard's trials reference its own object store: the merged run links from all of them.
    merged.objects = None;
    merged.sources = shards
        .iter()
        .filter_map(|(_, r)| r.objects.clone())
        .collect();
    // Sorted by fixture, then trial, as they are turned into `Trials`.
    let trials: Vec<crate::score::record::TrialRecord> = shards
        .iter()
        .flat_map(|(_, r)| r.trials.iter().map(std::borrow::Cow::into_owned))
        .collect();
    merged.trials = trials.into();
    // What each fixture expects, as the fixtures checked above say (not as a shard says).
    let fixtures: Vec<crate::output::store::results::FixtureInfo> = shards
        .iter()
        .flat_map(|(_, r)| r.fixtures.iter().map(std::borrow::Cow::into_owned))
        .map(|info| {
            rescorer
                .corpus
                .get(&info.id)
                .map_or(info, crate::output::store::results::FixtureInfo::of)
        })
        .collect();
    merged.fixtures = fixtures.into();
    merged.cases = shards.iter().flat_map(|(_, r)| r.cases.iter()).collect();
    let (metrics, fixture_trials) =
        MetricsReport::with_fixtures(&merged.trials, merged.trial_count > 1);
    merged.metrics = metrics;
    // Every shard records the unviable mutants of the whole selection (they are not sharded).
    if let Some(mutation) = merged.metrics.mutation.as_mut() {
        mutation.unviable = shards
            .iter()
            .find_map(|(_, r)| r.metrics.mutation.as_ref().and_then(|m| m.unviable.clone()));
    }
    let (judged, ratchet) = execute::judge_all(
        &merged.metrics,
        &merged.trials,
        &thresholds,
        baseline.as_ref(),
    );
    merged.exit_code = metrics::exit_code_of(&judged);
    merged.thresholds = judged;
    merged.ratchet = ratchet;
    merged.fixture_trials = fixture_trials;
    merged.cache = shards
        .iter()
        .filter_map(|(_, r)| r.cache)
        .reduce(|a, b| CacheStats {
            hits: a.hits + b.hits,
            misses: a.misses + b.misses,
            disabled: a.disabled || b.disabled,
        });
    merged.merged_from = shards.iter().map(|(_, r)| r.run_id.clone()).collect();
    merged.shard = None;
    merged.run_id = execute::run_id(now, &first.scenario.name, "merged");
    // The earliest start; the longest shard is the wall time of the whole (parallel) run.
    merged.started_at = shards
        .iter()
        .map(|(_, r)| r.started_at.clone())
        .min()
        .unwrap_or_default();
    merged.duration_ms = shards.iter().map(|(_, r)| r.duration_ms).max().unwrap_or(0);
    merged.jobs = shards.iter().map(|(_, r)| r.jobs).sum();
    let pipelines: BTreeSet<&str> = shards.iter().map(|(_, r)| r.pipeline.as_str()).collect();
    merged.pipeline = pipelines.into_iter().collect::<Vec<_>>().join(", ");
    Ok(merged)
}

/// The bars of the scenario `r` records (its matrix entry's, for a matrix run), when that file
/// can be read now.
fn scenario_thresholds(r: &RunResults) -> Option<crate::corpus::scenario::Thresholds> {
    let scenario = crate::corpus::scenario::Scenario::load(Path::new(&r.scenario.file)).ok()?;
    match &r.scenario.matrix_pipeline {
        Some(name) => {
            let entry = scenario.spec.pipelines.iter().find(|e| &e.name == name)?;
            Some(
                entry
                    .thresholds
                    .clone()
                    .unwrap_or_else(|| scenario.spec.thresholds.clone()),
            )
        }
        None => Some(scenario.spec.thresholds),
    }
}

/// The trial-log views (`trial_logs.rs`) of a merged run: its scenario's fixtures, each only when
/// it still materializes the repository the shards recorded (`repo_hash`), so a log never shows
/// a planted diff other than the one the trials judged. `None` when the scenario or its corpus
/// cannot be loaded, or its views cannot be written: the run is written without trial logs.
pub fn views_of(
    merged: &RunResults,
    fixtures_dir: Option<&Path>,
) -> Option<crate::output::store::trial_logs::Views> {
    let scenario =
        crate::corpus::scenario::Scenario::load(Path::new(&merged.scenario.file)).ok()?;
    let dir = fixtures_dir.map_or_else(|| scenario.fixtures_dir(), Path::to_path_buf);
    let corpus = crate::corpus::load(&dir).ok()?;
    let corpus = execute::with_mutants(&scenario, corpus).ok()?;
    let same: Vec<&crate::corpus::Fixture> = merged
        .fixtures
        .iter()
        .filter_map(|info| {
            corpus.get(&info.id).filter(|f| {
                crate::corpus::model::hash::repo_hash(f).is_ok_and(|h| h == info.repo_hash)
            })
        })
        .collect();
    crate::output::store::trial_logs::views(&same, &corpus).ok()
}
