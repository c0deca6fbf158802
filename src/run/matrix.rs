//! A matrix run (`pipelines:` in a scenario): every selected fixture under each pipeline, each
//! pipeline's run a complete run folder of its own (`pipelines/<name>/`, written by
//! `execute::run_selected` exactly as a single run), then the matrix outputs beside them
//! (`output/render/matrix.rs`). The whole folder is staged and published at once, like a single run.

use std::path::PathBuf;
use std::time::{Instant, SystemTime};

use crate::corpus;
use crate::error::{Error, Result};
use crate::output::render::matrix::write_all;
use crate::output::store::matrix::{self, MatrixResults, MatrixRun, PIPELINES};
use crate::output::store::objects;
use crate::output::store::results::RunResults;
use crate::run::baseline;
use crate::run::execute::{self, Finished, Progress};
use crate::run::folders;
use crate::run::interrupt;
use crate::run::options::RunOptions;
use gatebench_report::time::utc_stamp;

/// What a finished matrix run left behind.
#[derive(Debug)]
pub struct MatrixFinished {
    pub matrix: MatrixResults,
    /// Each pipeline's run, by name, in the scenario's order; `dir` is its final folder.
    pub runs: Vec<(String, Finished)>,
    /// The matrix run's folder.
    pub dir: PathBuf,
}

/// Runs a matrix scenario. Everything a single run checks before it starts is checked for every
/// pipeline first (fixtures, selection, category bars, baselines, sandbox requirements), so no
/// pipeline runs when another could not.
pub fn execute(
    options: &RunOptions,
    progress: &Progress<'_>,
) -> std::result::Result<MatrixFinished, Vec<Error>> {
    let scenario = &options.scenario;
    if !scenario.is_matrix() {
        return Err(vec![Error::invalid(
            &scenario.file,
            "not a matrix scenario (it has no `pipelines:`)",
        )]);
    }
    let corpus = execute::load_corpus(options)?;
    let entries = scenario.per_pipeline();
    let mut selected = Vec::new();
    for (_, entry) in &entries {
        // Selection is the matrix's; the category bars and baselines are each pipeline's.
        selected =
            execute::check_selection(entry, &options.fixtures_dir, &corpus, &options.filters)
                .map_err(|e| vec![e])?;
        baseline::load(&entry.file, &entry.spec.thresholds).map_err(|e| vec![e])?;
        crate::pipeline::command::preflight(&entry.spec.pipeline)
            .map_err(|reason| vec![Error::invalid(&entry.file, reason)])?;
    }
    run_all(options, &corpus, &selected, &entries, progress).map_err(|e| vec![e])
}

fn run_all(
    options: &RunOptions,
    corpus: &corpus::Corpus,
    selected: &[corpus::Entry<'_>],
    entries: &[(Option<String>, crate::corpus::scenario::Scenario)],
    progress: &Progress<'_>,
) -> Result<MatrixFinished> {
    let started_at = SystemTime::now();
    let clock = Instant::now();
    let scenario = &options.scenario;
    folders::probe_writable(&options.reports_dir)?;
    let suffix = options
        .shard
        .map(|s| format!("-shard{}of{}", s.index, s.count))
        .unwrap_or_default();
    let id = format!(
        "{}{suffix}",
        execute::run_id(
            started_at,
            &scenario.spec.name,
            &std::process::id().to_string()
        )
    );
    // The reservation and the staging folder are taken under the outputs lock, and registered
    // before it is released: an interrupt from here on removes the whole folder.
    let (run_id, staging) = {
        let _outputs = interrupt::lock_outputs();
        if interrupt::interrupted() {
            return Err(Error::Interrupted);
        }
        let (run_id, dir) = folders::reserve_run_dir(&options.reports_dir, &id)?;
        (run_id, folders::Staging::register(dir))
    };
    let pipelines_dir = staging.path().join(PIPELINES);
    std::fs::create_dir(&pipelines_dir).map_err(|e| Error::io("create", &pipelines_dir, e))?;
    let count = entries.len();
    let mut published: Vec<(String, Finished)> = Vec::new();
    for (i, (name, entry)) in entries.iter().enumerate() {
        let name = name.clone().unwrap_or_else(|| "pipeline".into());
        let mut pipeline_options = options.clone();
        pipeline_options.scenario = entry.clone();
        pipeline_options.reports_dir = pipelines_dir.clone();
        // One result cache for the matrix and single runs alike.
        pipeline_options.cache_in = Some(options.cache_dir());
        let offset = |record: &crate::score::record::TrialRecord, done: usize, total: usize| {
            progress(record, i * total + done, total * count)
        };
        let finished = execute::run_selected(&pipeline_options, corpus, selected, &offset)?;
        published.push((name, finished));
    }
    let _outputs = interrupt::lock_outputs();
    if interrupt::interrupted() {
        return Err(Error::Interrupted);
    }
    let dir = options.reports_dir.join(&run_id);
    let mut runs = Vec::new();
    for (name, mut finished) in published {
        let to = pipelines_dir.join(&name);
        folders::rename_noreplace(&finished.dir, &to)
            .map_err(|e| Error::io("rename into", &to, e))?;
        // The JUnit cases read reports through each run's object store: in staging until the
        // matrix is published (then moved to the final folder below).
        finished.results.objects = Some(objects::Store::new(to.join(objects::DIR)));
        runs.push((name, finished));
    }
    let (_, rfc3339) = utc_stamp(started_at);
    let views: Vec<(String, &RunResults)> = runs
        .iter()
        .map(|(name, f)| (name.clone(), &f.results))
        .collect();
    let matrix = matrix::build(
        MatrixRun {
            run_id: run_id.clone(),
            scenario: scenario.spec.name.clone(),
            scenario_file: scenario.file.display().to_string(),
            started_at: rfc3339,
            duration_ms: clock.elapsed().as_millis() as u64,
        },
        &views,
    );
    write_all(staging.path(), &matrix, &views, true)?;
    staging.publish(&dir)?;
    for (name, finished) in &mut runs {
        finished.dir = dir.join(PIPELINES).join(name.as_str());
        finished.results.objects = Some(objects::Store::new(finished.dir.join(objects::DIR)));
    }
    Ok(MatrixFinished { matrix, runs, dir })
}
