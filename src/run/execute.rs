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

/// Runs already-selected fixtures of `corpus` (which holds their goldens, for the trial logs).
pub fn run_selected(
    options: &RunOptions,
    corpus: &corpus::Corpus,
    selected: &[corpus::Entry<'_>],
    progress: &Progress<'_>,
) -> Result<Finished> {
    {
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
        // Sorted by id (a selection is already): a fixture's rank below is its place here.
        sharded.sort_by(|a, b| a.id().cmp(b.id()));
        let selected: &[corpus::Entry] = &sharded;
        let thresholds_spec = &options.scenario.spec.thresholds;
        let baseline = baseline::load(&options.scenario.file, thresholds_spec)?;
        // An unwritable reports folder (or cache) is found now, not after every trial ran.
        probe_writable(&options.reports_dir)?;
        if pipeline.fingerprint().is_some() {
            probe_writable(&options.cache_dir())?;
        }
        let work_root = WorkRoot::create(options.work_dir.as_deref(), options.keep)?;
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
        // What the run records of each fixture (what it expects, its planted and fix diffs),
        // written as each is loaded in full for its first trial.
        let fixtures = Spool::create(&options.reports_dir)?;
        let views = Spool::create(&options.reports_dir)?;
        // Each fixture's place in the selection (sorted by id): the order the spools read back.
        let rank = |id: &str| {
            selected
                .binary_search_by(|f| f.id().cmp(id))
                .map_or(u32::MAX, |i| i as u32)
        };
        let store = crate::output::store::objects::Store::new(objects_temp.path());
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
            scenario: options.scenario.spec.name.clone(),
            on_modified: options.scenario.spec.on_modified,
            retries: options.retries,
            objects: Some(&store),
            on_fixture: Some(runner::OnFixture(&|f| {
                let rank = rank(&f.id);
                fixtures.push(rank, &FixtureInfo::of(f));
                views.push(rank, &ViewRecord::of(f, corpus));
            })),
        };
        // Each trial written to the spool as it ends: memory holds an offset per trial, and
        // everything below reads them back one at a time.
        let spool = Spool::create(&options.reports_dir)?;
        let held_content = std::sync::atomic::AtomicBool::new(false);
        runner::run_each(selected, pipeline.as_ref(), &cfg, &|record| {
            let n = done.fetch_add(1, Ordering::SeqCst) + 1;
            progress(&record, n, total);
            if crate::output::store::objects::holds_content(&record) {
                held_content.store(true, Ordering::Relaxed);
            }
            spool.push(rank(&record.fixture), &record);
        });
        // Trials cut short by Ctrl-C are not results: write nothing (the interrupt handler removes
        // the repositories and exits; finished trials are already in the cache for a resume).
        if crate::repo::workdir::interrupted() {
            return Err(Error::Interrupted);
        }
        let mut trials = spool.finish()?;
        let (fixtures, views) = (fixtures.finish()?, Views::finish(views)?);
        // A trial whose reports could not be moved to the store (an unwritable folder) is taken
        // into memory, so that writing the outputs moves them again and fails there, clearly.
        if held_content.into_inner() {
            trials.to_mut()?;
        }
        // One pass over the trials: the metrics and the per-fixture summaries, what the cache
        // gave.
        let mut hits = 0;
        // One trial per fixture: `fixture_trials` would restate the trials, and is not written
        // (`results::read` computes it again); not held through the outputs either.
        let (mut metrics, fixture_trials) = MetricsReport::with_fixtures(
            trials.iter().inspect(|t| hits += u64::from(t.cached)),
            options.trials > 1,
        );
        trials.check()?;
        if let Some(mutation) = metrics.mutation.as_mut() {
            mutation.unviable = Some(crate::mutate::generate::unviable_selected(
                corpus,
                &options.scenario.spec.fixtures,
                &options.filters,
            )?);
        }
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
        let outputs_lock = OUTPUTS.lock().unwrap_or_else(|e| e.into_inner());
        if crate::repo::workdir::interrupted() {
            return Err(Error::Interrupted);
        }
        let (run_id, staging) = reserve_run_dir(
            &options.reports_dir,
            &format!("{run_id}{}", suffix.unwrap_or_default()),
        )?;
        let staging = Staging::register(staging);
        objects_temp.move_to(&staging.path().join(crate::output::store::objects::DIR))?;
        let cache_stats = cache.as_ref().map(|c| CacheStats {
            hits,
            misses: trials.len() as u64 - hits,
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
                thresholds: Some(thresholds_spec.clone()),
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

/// Held while a run's outputs are written and published: the interrupt handler takes it too
/// ([`remove_partial_outputs`]), so an interrupt either waits for a complete run folder or finds
/// the staging folder and removes it; never half a run.
static OUTPUTS: std::sync::Mutex<()> = std::sync::Mutex::new(());
/// The staging folder being written, if any.
static STAGING: std::sync::Mutex<Option<PathBuf>> = std::sync::Mutex::new(None);

/// Takes the outputs lock, for a caller that publishes a folder of its own (`matrix.rs`): the
/// interrupt handler then waits until it is done.
pub fn lock_outputs() -> std::sync::MutexGuard<'static, ()> {
    OUTPUTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes the staging folder of outputs being written (called by the interrupt handler before
/// it exits; it keeps the outputs lock, so no output is written after). Returns the guard, to be
/// held until the process exits.
pub fn remove_partial_outputs() -> std::sync::MutexGuard<'static, ()> {
    let guard = OUTPUTS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(dir) = STAGING.lock().unwrap_or_else(|e| e.into_inner()).take() {
        let _ = std::fs::remove_dir_all(dir);
    }
    for (dir, created) in OBJECTS_TEMP
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .drain(..)
    {
        remove_objects_temp(&dir, &created);
    }
    guard
}

/// The hidden objects folders of runs in progress, each with the folders created for it (removed
/// by the interrupt handler).
type Registered = Vec<(PathBuf, Vec<PathBuf>)>;
static OBJECTS_TEMP: std::sync::Mutex<Registered> = std::sync::Mutex::new(Vec::new());

/// The lock file of an objects folder (`.objects-XXXXXX.lock` beside `.objects-XXXXXX`): held
/// (`flock`) by the run writing into the folder, for as long as it runs.
fn objects_lock_of(dir: &Path) -> PathBuf {
    let mut name = dir.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Removes the objects folders under `reports_dir` left by runs that were killed (SIGKILL, a
/// crash: nothing of theirs ran to remove them): a folder whose lock file no process holds. A
/// live run holds its lock, so its folder is never touched; a folder without a lock file (an
/// older gatebench's) is left, and so is a lock file being taken this instant (it is created
/// before its folder, then locked; only a lock taken here is a dead run's). Returns the folders
/// removed.
pub fn remove_stale_objects(reports_dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(reports_dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(stem) = name
            .strip_prefix(".objects-")
            .and_then(|n| n.strip_suffix(".lock"))
        else {
            continue;
        };
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let lock = entry.path();
        let dir = reports_dir.join(format!(".objects-{stem}"));
        if let Some(_held) = crate::repo::workdir::try_lock(&lock) {
            let gone = match std::fs::symlink_metadata(&dir) {
                Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&dir).is_ok(),
                Ok(_) => false,
                Err(_) => true,
            };
            if gone {
                let _ = std::fs::remove_file(&lock);
                if dir != lock {
                    removed.push(dir);
                }
            }
        }
    }
    removed
}

/// Removes an objects folder (and its lock file) and the (still empty) folders created for it,
/// deepest first: a run that fails or is interrupted leaves nothing.
fn remove_objects_temp(dir: &Path, created: &[PathBuf]) {
    let _ = std::fs::remove_file(objects_lock_of(dir));
    // A trial finishing during an interrupt may still write an object while the folder is being
    // removed (`remove_dir_all` then fails, the folder not empty): try again for up to a second.
    for _ in 0..100 {
        if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    for d in created {
        let _ = std::fs::remove_dir(d);
    }
}

/// The hidden folder (`reports/.objects-XXXXXX`) finished trials' objects are written to while a
/// run goes on; moved into the run's staging folder at the end, removed if the run fails. Its
/// lock file (`.objects-XXXXXX.lock`) is held while the run lasts: a run killed before it could
/// remove the folder leaves it unlocked, and the next run removes it (`remove_stale_objects`).
struct ObjectsTemp {
    folder: Option<(PathBuf, Vec<PathBuf>)>,
    /// Held, never read: dropped (unlocked) with the folder's owner.
    _lock: Option<std::fs::File>,
}

impl ObjectsTemp {
    fn create(reports_dir: &Path) -> Result<ObjectsTemp> {
        let created: Vec<PathBuf> = reports_dir
            .ancestors()
            .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
            .map(Path::to_path_buf)
            .collect();
        std::fs::create_dir_all(reports_dir).map_err(|e| Error::io("create", reports_dir, e))?;
        remove_stale_objects(reports_dir);
        // Created and registered under the registry's lock: the interrupt handler, which drains
        // the registry, either sees the folder or runs before it exists.
        let mut registry = OBJECTS_TEMP.lock().unwrap_or_else(|e| e.into_inner());
        // The handler sets the flag before it drains the registry: after an interrupt nothing
        // new may be created that it could miss.
        if crate::repo::workdir::interrupted() {
            return Err(Error::Interrupted);
        }
        // The lock file first (a fresh name), locked, and only then its folder: a folder is
        // never seen without a lock held for it by the run that made it.
        let (dir, lock) = loop {
            let lock_path = tempfile::Builder::new()
                .prefix(".objects-")
                .suffix(".lock")
                .tempfile_in(reports_dir)
                .map_err(|e| Error::io("create a file in", reports_dir, e))?
                .into_temp_path()
                .keep()
                .map_err(|e| Error::io("create a file in", reports_dir, e.error))?;
            let dir = lock_path.with_extension("");
            // Another run sweeping took it the instant it was made (and removes it): another name.
            let Some(lock) = crate::repo::workdir::try_lock(&lock_path) else {
                continue;
            };
            match std::fs::create_dir(&dir) {
                Ok(()) => break (dir, lock),
                Err(e) => {
                    let _ = std::fs::remove_file(&lock_path);
                    return Err(Error::io("create", &dir, e));
                }
            }
        };
        registry.push((dir.clone(), created.clone()));
        drop(registry);
        Ok(ObjectsTemp {
            folder: Some((dir, created)),
            _lock: Some(lock),
        })
    }

    fn path(&self) -> &Path {
        self.folder
            .as_ref()
            .map_or(Path::new(""), |(d, _)| d.as_path())
    }

    /// Renames the folder to `to` (same file system: both under the reports folder).
    fn move_to(mut self, to: &Path) -> Result<()> {
        let (from, created) = self.folder.take().unwrap_or_default();
        let moved = std::fs::rename(&from, to).map_err(|e| Error::io("rename into", to, e));
        forget_objects_temp(&from);
        if moved.is_err() {
            remove_objects_temp(&from, &created);
        } else {
            let _ = std::fs::remove_file(objects_lock_of(&from));
        }
        moved
    }
}

fn forget_objects_temp(dir: &Path) {
    OBJECTS_TEMP
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|(d, _)| d != dir);
}

impl Drop for ObjectsTemp {
    fn drop(&mut self) {
        if let Some((dir, created)) = self.folder.take() {
            remove_objects_temp(&dir, &created);
            forget_objects_temp(&dir);
        }
    }
}

/// A run's outputs are written into a hidden staging folder, then renamed into place. The folder
/// is registered in a slot the interrupt handler empties (a run's: `STAGING`; a matrix's: its
/// own), and removed when dropped unless published.
pub struct Staging {
    dir: PathBuf,
    slot: &'static std::sync::Mutex<Option<PathBuf>>,
}

impl Staging {
    fn register(dir: PathBuf) -> Staging {
        Staging::register_in(&STAGING, dir)
    }

    /// Registers `dir` in `slot` (which the interrupt handler removes).
    pub fn register_in(slot: &'static std::sync::Mutex<Option<PathBuf>>, dir: PathBuf) -> Staging {
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(dir.clone());
        Staging { dir, slot }
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Renames the complete staging folder to `dir` (which must not exist).
    pub fn publish(self, dir: &Path) -> Result<()> {
        rename_noreplace(&self.dir, dir).map_err(|e| Error::io("rename into", dir, e))?;
        self.slot.lock().unwrap_or_else(|e| e.into_inner()).take();
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        // Published: the folder is gone from here. Failed: nothing half-written stays.
        let _ = std::fs::remove_dir_all(&self.dir);
        let mut staging = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        if staging.as_deref() == Some(self.dir.as_path()) {
            staging.take();
        }
    }
}

/// Writes a run that is already complete (`merge`, `replay`) under `reports_dir`, all or nothing
/// like `run`: a free id is reserved (and set in `results`), the outputs staged, then renamed.
pub fn write_run(reports_dir: &Path, results: &mut RunResults) -> Result<PathBuf> {
    write_run_with(reports_dir, results, None)
}

/// [`write_run`], and with `views` the per-trial logs (`trials/`) as `run` writes them.
pub fn write_run_with(
    reports_dir: &Path,
    results: &mut RunResults,
    views: Option<&crate::output::store::trial_logs::Views>,
) -> Result<PathBuf> {
    let _lock = OUTPUTS.lock().unwrap_or_else(|e| e.into_inner());
    let (run_id, staging) = reserve_run_dir(reports_dir, &results.run_id)?;
    let staging = Staging::register(staging);
    results.run_id = run_id;
    let dir = reports_dir.join(&results.run_id);
    outputs::write_all_with(staging.path(), results, views)?;
    staging.publish(&dir)?;
    results.objects = Some(crate::output::store::objects::Store::new(
        dir.join(crate::output::store::objects::DIR),
    ));
    Ok(dir)
}

/// `rename(2)` that fails rather than replace an existing (even empty) folder.
pub fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    };
    let (from, to) = (c(from)?, c(to)?);
    // SAFETY: both are valid NUL-terminated paths that outlive the call.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The staging folder of run `id`: hidden (runs are listed by their id, `output/store/runs.rs`).
fn staging_name(id: &str) -> String {
    format!(".{id}.partial")
}

/// Checks, before any trial runs, that files can be created in `dir`. Folders it had to create
/// for the check are removed again (when still empty): an interrupted run leaves nothing.
pub fn probe_writable(dir: &Path) -> Result<()> {
    let unwritable = |e: std::io::Error| {
        Error::invalid(
            dir,
            format!("the reports folder cannot be written ({e}); nothing was run"),
        )
    };
    let missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
        .collect();
    // Under the outputs lock: the interrupt handler takes it before it exits, so it never ends
    // the process between the probe's creation and its removal.
    let _outputs = OUTPUTS.lock().unwrap_or_else(|e| e.into_inner());
    std::fs::create_dir_all(dir).map_err(unwritable)?;
    let probed = tempfile::Builder::new()
        .prefix(".gatebench-probe")
        .tempfile_in(dir)
        .map(drop)
        .map_err(unwritable);
    for created in missing {
        // Fails harmlessly when something was written there meanwhile.
        let _ = std::fs::remove_dir(created);
    }
    probed
}

/// Reserves the run's name under `reports_dir`: `id` itself, or `id-2`, `id-3`, ... when a run of
/// the same second and process (or a shard of it) already took it. Creating the hidden staging
/// folder `.<id>.partial` is the reservation; the outputs are written there and renamed to
/// `<reports_dir>/<id>` when complete, so concurrent runs never share a folder and no run folder
/// is ever seen half-written. Returns the id and the staging folder.
pub fn reserve_run_dir(reports_dir: &Path, id: &str) -> Result<(String, PathBuf)> {
    std::fs::create_dir_all(reports_dir).map_err(|e| Error::io("create", reports_dir, e))?;
    for n in 1..1000 {
        let candidate = if n == 1 {
            id.to_owned()
        } else {
            format!("{id}-{n}")
        };
        if reports_dir.join(&candidate).exists() {
            continue;
        }
        let staging = reports_dir.join(staging_name(&candidate));
        match std::fs::create_dir(&staging) {
            Ok(()) => return Ok((candidate, staging)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io("create", staging, e)),
        }
    }
    Err(Error::Internal(format!(
        "no free run folder name for {id} under {}",
        reports_dir.display()
    )))
}

pub use crate::ids::sanitize;
