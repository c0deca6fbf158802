//! One run of a scenario, end to end: load and select fixtures, run every trial, compute metrics,
//! judge thresholds, and write every output (`outputs.rs`) under `reports/<run-id>/`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Instant, SystemTime};

use crate::corpus;
use crate::corpus::scenario::{self, Thresholds};
use crate::error::{Error, Result};
use crate::output::outputs;
use crate::output::store::results::{
    self, CacheStats, CaseRef, Cases, FixtureInfo, RunResults, ScenarioInfo,
};
use crate::output::store::spool::{Records, Spool, Trials};
use crate::output::store::trial_logs::{ViewRecord, Views};
use crate::pipeline::cache::Cache;
use crate::pipeline::round::Pipeline;
use crate::pipeline::select;
use crate::repo::workdir::WorkRoot;
use crate::run::baseline::{self, Baseline};
use crate::run::folders::{probe_writable, reserve_run_dir, ObjectsTemp, Staging};
use crate::run::interrupt::{self, Folder, Registered, Stage};
use crate::run::options::RunOptions;
use crate::run::runner::{self, RunConfig};
use crate::score::metrics::{self, MetricsReport, ThresholdResult};
use crate::score::ratchet::{self, RatchetResult};
use crate::score::record::TrialRecord;
use crate::score::trial_score::Scoring;
use crate::score::trials::FixtureTrials;
use crate::shard::{self, ShardInfo};
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
    if options.scenario.is_matrix() {
        return Err(vec![Error::invalid(
            &options.scenario.file,
            "a matrix scenario (`pipelines:`) runs through `run::matrix::execute`",
        )]);
    }
    let corpus = load_corpus(options)?;
    let selected = check_selection(
        &options.scenario,
        &options.fixtures_dir,
        &corpus,
        &options.filters,
    )
    .map_err(|e| vec![e])?;
    run_selected(options, &corpus, &selected, progress).map_err(|e| vec![e])
}

/// The run's corpus: the fixtures folder loaded (all errors listed) and the scenario's mutants
/// added; a missing folder is the scenario's error.
pub fn load_corpus(options: &RunOptions) -> std::result::Result<corpus::Corpus, Vec<Error>> {
    if !options.fixtures_dir.is_dir() {
        return Err(vec![Error::invalid(
            &options.scenario.file,
            format!(
                "the fixtures folder {} does not exist (`fixtures_dir` of the scenario, or \
                 --fixtures)",
                options.fixtures_dir.display()
            ),
        )]);
    }
    let corpus = corpus::load_slim(&options.fixtures_dir)?;
    let corpus = with_mutants(&options.scenario, corpus).map_err(|e| vec![e]);
    super::memory::release_after_load();
    corpus
}

/// The corpus with the viable mutants the scenario's `mutants:` generates (docs/MUTATION.md); the
/// corpus as loaded when it has none.
pub fn with_mutants(
    scenario: &crate::corpus::scenario::Scenario,
    corpus: corpus::Corpus,
) -> Result<corpus::Corpus> {
    match &scenario.spec.mutants {
        Some(selection) => {
            let (corpus, unviable) = crate::mutate::generate::compose(corpus, selection)?;
            eprintln!(
                "mutants: {unviable} unviable (not run; `gatebench mutate --list` lists them)"
            );
            Ok(corpus)
        }
        None => Ok(corpus),
    }
}

/// What a scenario asks of a corpus, checked the same way by `run` and `check`: every category
/// bar names a category, every include glob matches a fixture, and something is selected.
pub fn check_selection<'c>(
    scenario: &crate::corpus::scenario::Scenario,
    fixtures_dir: &Path,
    corpus: &'c corpus::Corpus,
    filters: &[String],
) -> Result<Vec<corpus::Entry<'c>>> {
    check_category_bars(scenario, fixtures_dir, corpus)?;
    for glob in &scenario.spec.fixtures.include {
        let one = std::slice::from_ref(glob);
        let matcher = scenario::Selection {
            include: one.to_vec(),
            ..Default::default()
        };
        if scenario::select(corpus, &matcher, &[])?.is_empty() {
            return Err(Error::invalid_at(
                &scenario.file,
                None,
                format!(
                    "the include glob `{glob}` matches no fixture in {}",
                    fixtures_dir.display()
                ),
            ));
        }
    }
    let selected = scenario::select(corpus, &scenario.spec.fixtures, filters)?;
    if selected.is_empty() {
        return Err(Error::invalid(
            &scenario.file,
            format!(
                "no fixture in {} matches the selection and filters",
                fixtures_dir.display()
            ),
        ));
    }
    Ok(selected)
}

/// Runs already-selected fixtures of `corpus` (which holds their goldens, for the trial logs), in
/// four steps: prepare (check and create what the run needs), run the trials, judge them, and
/// publish the run folder.
pub fn run_selected(
    options: &RunOptions,
    corpus: &corpus::Corpus,
    selected: &[corpus::Entry<'_>],
    progress: &Progress<'_>,
) -> Result<Finished> {
    let prepared = prepare(options, selected)?;
    let ran = run_trials(options, corpus, &prepared, progress)?;
    let judged = judge(options, corpus, &prepared, &ran)?;
    publish(options, prepared, ran, judged)
}

/// What a run holds from before its first trial to its publication.
struct Prepared<'c> {
    started_at: SystemTime,
    clock: Instant,
    pipeline: Box<dyn Pipeline>,
    scoring: Scoring,
    /// This shard's fixtures, sorted by id: a fixture's rank is its place here.
    selected: Vec<corpus::Entry<'c>>,
    shard: Option<ShardInfo>,
    baseline: Option<Baseline>,
    work_root: Registered<WorkRoot>,
    cache: Option<Cache>,
    objects_temp: ObjectsTemp,
}

impl Prepared<'_> {
    /// A fixture's place in the selection (sorted by id): the order the spools read back.
    fn rank(&self, id: &str) -> u32 {
        self.selected
            .binary_search_by(|f| f.id().cmp(id))
            .map_or(u32::MAX, |i| i as u32)
    }
}

/// Everything checked and created before any trial runs: the pipeline's requirements, this
/// shard's fixtures, the baseline, writable reports (and cache) folders, the work root and the
/// hidden objects folder, both registered with the interrupt handler.
fn prepare<'c>(options: &RunOptions, selected: &[corpus::Entry<'c>]) -> Result<Prepared<'c>> {
    let started_at = SystemTime::now();
    let clock = Instant::now();
    crate::pipeline::command::preflight(&options.scenario.spec.pipeline)
        .map_err(|reason| Error::invalid(&options.scenario.file, reason))?;
    // No command this run starts may be granted the answer key, the reports or the cache.
    gatebench_process::protect([
        options.fixtures_dir.as_path(),
        options.reports_dir.as_path(),
        options.cache_dir().as_path(),
    ]);
    let pipeline = select::from_spec(&options.scenario.spec.pipeline, &options.scenario.dir());
    let scoring = select::scoring(pipeline.as_ref());
    let (mut sharded, shard) = shard::split(selected, options.shard);
    // Sorted by id (a selection is already): a fixture's rank is its place here.
    sharded.sort_by(|a, b| a.id().cmp(b.id()));
    let baseline = baseline::load(&options.scenario.file, &options.scenario.spec.thresholds)?;
    // An unwritable reports folder (or cache) is found now, not after every trial ran.
    probe_writable(&options.reports_dir)?;
    if pipeline.fingerprint().is_some() {
        probe_writable(&options.cache_dir())?;
    }
    let work_root = interrupt::create(|| {
        let root = WorkRoot::create(options.work_dir.as_deref(), options.keep)?;
        // A kept root is the user's: never removed, not even on an interrupt.
        let folder = (!root.keep()).then(|| Folder::at(Stage::WorkRoot, root.path()));
        Ok((root, folder))
    })?;
    let cache = pipeline.fingerprint().map(|fingerprint| {
        Cache::new(
            &options.cache_dir(),
            fingerprint,
            options.max_rounds,
            &options.scenario.spec.base_ref,
            !options.no_cache,
        )
    });
    // Finished trials' reports and process records go to a hidden objects folder as each
    // trial ends (memory keeps references); it becomes the run folder's `objects/`.
    let objects_temp = ObjectsTemp::create(&options.reports_dir)?;
    Ok(Prepared {
        started_at,
        clock,
        pipeline,
        scoring,
        selected: sharded,
        shard,
        baseline,
        work_root,
        cache,
        objects_temp,
    })
}

/// What the trials left: each trial's record, each fixture's, and the trial logs' views, spooled.
struct Ran {
    trials: Trials,
    fixtures: Records<FixtureInfo>,
    views: Views,
}

/// Runs every trial of the prepared fixtures, each written to a spool as it ends.
fn run_trials(
    options: &RunOptions,
    corpus: &corpus::Corpus,
    prepared: &Prepared<'_>,
    progress: &Progress<'_>,
) -> Result<Ran> {
    // What the run records of each fixture (what it expects, its planted and fix diffs),
    // written as each is loaded in full for its first trial.
    let fixtures = Spool::create(&options.reports_dir)?;
    let views = Spool::create(&options.reports_dir)?;
    let store = crate::output::store::objects::Store::new(prepared.objects_temp.path());
    let total = prepared.selected.len() * options.trials as usize;
    let done = AtomicUsize::new(0);
    let cfg = RunConfig {
        jobs: options.jobs,
        trials: options.trials,
        max_rounds: options.max_rounds,
        base_ref: options.scenario.spec.base_ref.clone(),
        work_root: &prepared.work_root,
        cache: prepared.cache.as_ref(),
        scoring: &prepared.scoring,
        scenario: options.scenario.spec.name.clone(),
        on_modified: options.scenario.spec.on_modified,
        retries: options.retries,
        objects: Some(&store),
        on_fixture: Some(runner::OnFixture(&|f| {
            let rank = prepared.rank(&f.id);
            fixtures.push(rank, &FixtureInfo::of(f));
            views.push(rank, &ViewRecord::of(f, corpus));
        })),
    };
    // Each trial written to the spool as it ends: memory holds an offset per trial, and
    // everything after reads them back one at a time.
    let spool = Spool::create(&options.reports_dir)?;
    let held_content = std::sync::atomic::AtomicBool::new(false);
    runner::run_each(
        &prepared.selected,
        prepared.pipeline.as_ref(),
        &cfg,
        &|record| {
            let n = done.fetch_add(1, Ordering::SeqCst) + 1;
            progress(&record, n, total);
            if crate::output::store::objects::holds_content(&record) {
                held_content.store(true, Ordering::Relaxed);
            }
            spool.push(prepared.rank(&record.fixture), &record);
        },
    );
    // Trials cut short by Ctrl-C are not results: write nothing (the interrupt handler removes
    // the repositories and exits; finished trials are already in the cache for a resume).
    if interrupt::interrupted() {
        return Err(Error::Interrupted);
    }
    let mut trials = spool.finish()?;
    let (fixtures, views) = (fixtures.finish()?, Views::finish(views)?);
    // A trial whose reports could not be moved to the store (an unwritable folder) is taken
    // into memory, so that writing the outputs moves them again and fails there, clearly.
    if held_content.into_inner() {
        trials.to_mut()?;
    }
    Ok(Ran {
        trials,
        fixtures,
        views,
    })
}

/// What the run's trials add up to: metrics, every bar judged, what the cache gave.
struct Judged {
    metrics: MetricsReport,
    fixture_trials: Vec<FixtureTrials>,
    thresholds: Vec<ThresholdResult>,
    ratchet: Option<RatchetResult>,
    exit_code: i32,
    /// Trials taken from the result cache.
    hits: u64,
}

/// The metrics over every trial (the mutation score with the mutants that could not be made),
/// and every bar of the scenario judged.
fn judge(
    options: &RunOptions,
    corpus: &corpus::Corpus,
    prepared: &Prepared<'_>,
    ran: &Ran,
) -> Result<Judged> {
    // One pass over the trials: the metrics and the per-fixture summaries, what the cache
    // gave.
    let mut hits = 0;
    // One trial per fixture: `fixture_trials` would restate the trials, and is not written
    // (`results::read` computes it again); not held through the outputs either.
    let (mut metrics, fixture_trials) = MetricsReport::with_fixtures(
        ran.trials.iter().inspect(|t| hits += u64::from(t.cached)),
        options.trials > 1,
    );
    ran.trials.check()?;
    if let Some(mutation) = metrics.mutation.as_mut() {
        mutation.unviable = Some(crate::mutate::generate::unviable_selected(
            corpus,
            &options.scenario.spec.fixtures,
            &options.filters,
        )?);
    }
    let (thresholds, ratchet) = judge_all(
        &metrics,
        &ran.trials,
        &options.scenario.spec.thresholds,
        prepared.baseline.as_ref(),
    );
    let exit_code = metrics::exit_code_of(&thresholds);
    Ok(Judged {
        metrics,
        fixture_trials,
        thresholds,
        ratchet,
        exit_code,
        hits,
    })
}

/// The run folder written and published under the outputs lock: a free run id reserved, the
/// objects folder moved in, `results.json` and every output written into a staging folder, then
/// renamed into place.
fn publish(
    options: &RunOptions,
    prepared: Prepared<'_>,
    ran: Ran,
    judged: Judged,
) -> Result<Finished> {
    let Prepared {
        started_at,
        clock,
        pipeline,
        shard,
        cache,
        objects_temp,
        ..
    } = prepared;
    let (stamp, rfc3339) = utc_stamp(started_at);
    let run_id = format!(
        "{stamp}-{}-{}",
        sanitize(&options.scenario.spec.name),
        std::process::id()
    );
    let suffix = shard
        .as_ref()
        .map(|s| format!("-shard{}of{}", s.index, s.count));
    let outputs_lock = interrupt::lock_outputs();
    if interrupt::interrupted() {
        return Err(Error::Interrupted);
    }
    let (run_id, staging) = reserve_run_dir(
        &options.reports_dir,
        &format!("{run_id}{}", suffix.unwrap_or_default()),
    )?;
    let staging = Staging::register(staging);
    objects_temp.move_to(&staging.path().join(crate::output::store::objects::DIR))?;
    let Ran {
        trials,
        fixtures,
        views,
    } = ran;
    let cache_stats = cache.as_ref().map(|c| CacheStats {
        hits: judged.hits,
        misses: trials.len() as u64 - judged.hits,
        disabled: !c.reads(),
    });
    let cases = cases_of(
        &options.scenario.spec.name,
        &fixtures,
        &trials,
        options.trials,
    );
    let mut results = RunResults {
        schema_version: results::SCHEMA_VERSION,
        gatebench_version: env!("CARGO_PKG_VERSION").to_owned(),
        run_id: run_id.clone(),
        scenario: ScenarioInfo {
            name: options.scenario.spec.name.clone(),
            file: options.scenario.file.display().to_string(),
            thresholds: Some(options.scenario.spec.thresholds.clone()),
            matrix_pipeline: options.scenario.matrix_entry.clone(),
        },
        pipeline: pipeline.name().to_owned(),
        started_at: rfc3339,
        duration_ms: clock.elapsed().as_millis() as u64,
        jobs: options.jobs,
        trial_count: options.trials,
        max_rounds: options.max_rounds,
        fixtures,
        trials,
        metrics: judged.metrics,
        thresholds: judged.thresholds,
        exit_code: judged.exit_code,
        pipeline_fingerprint: pipeline.fingerprint().map_or_else(
            || shard::pipeline_fingerprint(&options.scenario.spec.pipeline),
            str::to_owned,
        ),
        shard,
        merged_from: Vec::new(),
        ratchet: judged.ratchet,
        fixture_trials: judged.fixture_trials,
        cache: cache_stats,
        replay_of: None,
        isolation: pipeline.isolation(),
        cases,
        objects: None,
        sources: Vec::new(),
    };
    let dir = options.reports_dir.join(&run_id);
    outputs::write_all_with(staging.path(), &mut results, Some(&views))?;
    staging.publish(&dir)?;
    results.objects = Some(crate::output::store::objects::Store::new(
        dir.join(crate::output::store::objects::DIR),
    ));
    drop(outputs_lock);
    Ok(Finished { results, dir })
}

/// The case id of every trial of a run: computed from its fixtures as `results.json` is written
/// when every fixture ran every trial (always, unless the run is cut short), else from its
/// trials, one by one.
fn cases_of(scenario: &str, fixtures: &Records<FixtureInfo>, trials: &Trials, count: u32) -> Cases {
    if trials.len() == fixtures.len() * count as usize {
        return Cases::computed(scenario, fixtures.clone(), count);
    }
    trials
        .iter()
        .map(|t| {
            let case = crate::repo::workdir::case_id(scenario, &t.fixture, t.trial);
            let fixture = t.fixture.clone();
            (
                case,
                CaseRef {
                    fixture,
                    trial: t.trial,
                },
            )
        })
        .collect()
}

/// Every bar of the scenario judged against a run: the overall thresholds, the per-category
/// recall bars and, when the scenario names a baseline, the ratchet. `merge` judges with it too.
pub fn judge_all(
    metrics: &MetricsReport,
    trials: impl IntoIterator<Item = impl std::borrow::Borrow<TrialRecord>>,
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
fn check_category_bars(
    scenario: &crate::corpus::scenario::Scenario,
    fixtures_dir: &Path,
    corpus: &corpus::Corpus,
) -> Result<()> {
    let spec = &scenario.spec.thresholds;
    for category in spec.min_category_recall.keys() {
        if category != "*" && !corpus.entries().any(|f| f.category() == category) {
            return Err(Error::invalid(
                &scenario.file,
                format!(
                    "`min_category_recall` names the category `{category}`, which no fixture in {} has",
                    fixtures_dir.display()
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

pub use crate::ids::sanitize;
