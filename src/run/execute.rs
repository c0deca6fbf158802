//! One run of a scenario, end to end: load and select fixtures, run every trial, compute metrics,
//! judge thresholds, and write every output (`outputs.rs`) under `reports/<run-id>/`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Instant, SystemTime};

use crate::corpus;
use crate::corpus::scenario::{self, Thresholds};
use crate::error::{Error, Result};
use crate::output::outputs;
use crate::output::results::{self, CacheStats, FixtureInfo, RunResults, ScenarioInfo};
use crate::pipeline::cache::Cache;
use crate::pipeline::select;
use crate::repo::workdir::WorkRoot;
use crate::run::baseline::{self, Baseline};
use crate::run::options::RunOptions;
use crate::run::runner::{self, RunConfig};
use crate::run::shard;
use crate::score::metrics::{self, MetricsReport, ThresholdResult};
use crate::score::ratchet::{self, RatchetResult};
use crate::score::record::TrialRecord;
use gatebench_report::time::utc_stamp;

/// What a finished run left behind.
#[derive(Debug)]
pub struct Finished {
    pub results: RunResults,
    pub dir: PathBuf,
}

/// Progress of a run, reported as each trial finishes: (the trial, how many are done, of how many).
pub type Progress<'a> = dyn Fn(&TrialRecord, usize, usize) + Sync + 'a;

/// Runs the scenario. Invalid fixtures stop the run before anything starts (all errors listed).
pub fn execute(
    options: &RunOptions,
    progress: &Progress<'_>,
) -> std::result::Result<Finished, Vec<Error>> {
    let corpus = corpus::load(&options.fixtures_dir)?;
    let corpus = match &options.scenario.spec.mutants {
        Some(selection) => {
            let (corpus, unviable) =
                crate::mutate::generate::compose(corpus, selection).map_err(|e| vec![e])?;
            eprintln!(
                "mutants: {unviable} unviable (not run; `gatebench mutate --list` lists them)"
            );
            corpus
        }
        None => corpus,
    };
    check_category_bars(options, &corpus).map_err(|e| vec![e])?;
    let selected = scenario::select(&corpus, &options.scenario.spec.fixtures, &options.filters)
        .map_err(|e| vec![e])?;
    if selected.is_empty() {
        return Err(vec![Error::invalid(
            &options.scenario.file,
            format!(
                "no fixture in {} matches the selection and filters",
                options.fixtures_dir.display()
            ),
        )]);
    }
    run_selected(options, &selected, progress).map_err(|e| vec![e])
}

/// Runs already-selected fixtures.
pub fn run_selected(
    options: &RunOptions,
    selected: &[&corpus::Fixture],
    progress: &Progress<'_>,
) -> Result<Finished> {
    {
        let started_at = SystemTime::now();
        let clock = Instant::now();
        let pipeline = select::from_spec(&options.scenario.spec.pipeline, &options.scenario.dir());
        let scoring = select::scoring(pipeline.as_ref());
        let (sharded, shard) = shard::split(selected, options.shard);
        let selected: &[&corpus::Fixture] = &sharded;
        let thresholds_spec = &options.scenario.spec.thresholds;
        let baseline = baseline::load(&options.scenario.file, thresholds_spec)?;
        let work_root = WorkRoot::create(options.work_dir.as_deref(), options.keep)?;
        let cache = pipeline.fingerprint().map(|fingerprint| {
            Cache::new(
                &options.reports_dir.join(".cache"),
                fingerprint,
                options.max_rounds,
                &options.scenario.spec.base_ref,
                !options.no_cache,
            )
        });
        let total = selected.len() * options.trials as usize;
        let done = AtomicUsize::new(0);
        let cfg = RunConfig {
            jobs: options.jobs,
            trials: options.trials,
            max_rounds: options.max_rounds,
            base_ref: options.scenario.spec.base_ref.clone(),
            work_root: &work_root,
            cache: cache.as_ref(),
            scoring: &scoring,
        };
        let trials = runner::run(selected, pipeline.as_ref(), &cfg, &|record| {
            let n = done.fetch_add(1, Ordering::SeqCst) + 1;
            progress(record, n, total);
        });
        // Trials cut short by Ctrl-C are not results: write nothing (the interrupt handler removes
        // the repositories and exits; finished trials are already in the cache for a resume).
        if crate::repo::workdir::interrupted() {
            return Err(Error::Interrupted);
        }
        let metrics = MetricsReport::of(&trials);
        let (thresholds, ratchet) =
            judge_all(&metrics, &trials, thresholds_spec, baseline.as_ref());
        let exit_code = metrics::exit_code_of(&thresholds);
        let (stamp, rfc3339) = utc_stamp(started_at);
        let run_id = format!(
            "{stamp}-{}-{}",
            sanitize(&options.scenario.spec.name),
            std::process::id()
        );
        let suffix = shard
            .as_ref()
            .map(|s| format!("-shard{}of{}", s.index, s.count));
        let run_id = reserve_run_dir(
            &options.reports_dir,
            &format!("{run_id}{}", suffix.unwrap_or_default()),
        )?;
        let fixture_trials = crate::score::trials::per_fixture(&trials);
        let cache_stats = cache.as_ref().map(|c| CacheStats {
            hits: trials.iter().filter(|t| t.cached).count() as u64,
            misses: trials.iter().filter(|t| !t.cached).count() as u64,
            disabled: !c.reads(),
        });
        let results = RunResults {
            schema_version: results::SCHEMA_VERSION,
            gatebench_version: env!("CARGO_PKG_VERSION").to_owned(),
            run_id: run_id.clone(),
            scenario: ScenarioInfo {
                name: options.scenario.spec.name.clone(),
                file: options.scenario.file.display().to_string(),
                thresholds: Some(thresholds_spec.clone()),
            },
            pipeline: pipeline.name().to_owned(),
            started_at: rfc3339,
            duration_ms: clock.elapsed().as_millis() as u64,
            jobs: options.jobs,
            trial_count: options.trials,
            max_rounds: options.max_rounds,
            fixtures: selected.iter().map(|f| FixtureInfo::of(f)).collect(),
            trials,
            metrics,
            thresholds,
            exit_code,
            pipeline_fingerprint: pipeline.fingerprint().map_or_else(
                || shard::pipeline_fingerprint(&options.scenario.spec.pipeline),
                str::to_owned,
            ),
            shard,
            merged_from: Vec::new(),
            ratchet,
            fixture_trials,
            cache: cache_stats,
            replay_of: None,
        };
        let dir = options.reports_dir.join(&run_id);
        outputs::write_all(&dir, &results)?;
        Ok(Finished { results, dir })
    }
}

/// Every bar of the scenario judged against a run: the overall thresholds, the per-category
/// recall bars and, when the scenario names a baseline, the ratchet. `merge` judges with it too.
pub fn judge_all(
    metrics: &MetricsReport,
    trials: &[TrialRecord],
    thresholds: &Thresholds,
    baseline: Option<&Baseline>,
) -> (Vec<ThresholdResult>, Option<RatchetResult>) {
    let mut judged = metrics::judge(&metrics.overall, thresholds);
    judged.extend(metrics::judge_categories(metrics, thresholds));
    let ratchet =
        baseline.map(|b| ratchet::check(&b.named, &b.results.run_id, &b.results.trials, trials));
    judged.extend(ratchet.as_ref().map(RatchetResult::threshold));
    (judged, ratchet)
}

/// A category named in `min_category_recall` that no fixture of the corpus has is a typo, not a
/// bar that holds because nothing was measured.
fn check_category_bars(options: &RunOptions, corpus: &corpus::Corpus) -> Result<()> {
    let spec = &options.scenario.spec.thresholds;
    for category in spec.min_category_recall.keys() {
        if category != "*" && !corpus.fixtures.iter().any(|f| &f.category == category) {
            return Err(Error::invalid(
                &options.scenario.file,
                format!(
                    "`min_category_recall` names the category `{category}`, which no fixture in {} has",
                    options.fixtures_dir.display()
                ),
            ));
        }
    }
    Ok(())
}

/// The run id: `YYYYMMDDTHHMMSSZ-<scenario>-<suffix>`, which sorts by time (`runs::newest`).
pub fn run_id(started_at: SystemTime, scenario: &str, suffix: &str) -> String {
    let (stamp, _) = utc_stamp(started_at);
    format!("{stamp}-{}-{suffix}", sanitize(scenario))
}

/// Creates the run's folder `<reports_dir>/<id>` and returns the id it got: `id` itself, or
/// `id-2`, `id-3`, ... when a run of the same second and process (or a shard of it) already
/// took that name. Creating the folder is the reservation, so concurrent runs never share one.
pub fn reserve_run_dir(reports_dir: &Path, id: &str) -> Result<String> {
    std::fs::create_dir_all(reports_dir).map_err(|e| Error::io("create", reports_dir, e))?;
    for n in 1..1000 {
        let candidate = if n == 1 {
            id.to_owned()
        } else {
            format!("{id}-{n}")
        };
        match std::fs::create_dir(reports_dir.join(&candidate)) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io("create", reports_dir.join(&candidate), e)),
        }
    }
    Err(Error::Internal(format!(
        "no free run folder name for {id} under {}",
        reports_dir.display()
    )))
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}
