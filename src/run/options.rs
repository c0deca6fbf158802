//! Run options, resolved in one place from the command line, then the scenario file, then the
//! built-in defaults (the first that says something wins).

use std::path::PathBuf;

use crate::corpus::scenario::Scenario;
use crate::shard::Shard;

/// What the command line may override. `None` / empty means "not given".
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub filters: Vec<String>,
    pub jobs: Option<usize>,
    pub trials: Option<u32>,
    pub max_rounds: Option<u32>,
    pub fixtures_dir: Option<PathBuf>,
    pub work_dir: Option<PathBuf>,
    pub reports_dir: Option<PathBuf>,
    pub keep: bool,
    /// `--no-cache`: run every trial even when the result cache holds it.
    pub no_cache: bool,
    /// Run only this shard of the selection (`--shard i/n`).
    pub shard: Option<Shard>,
    /// `--retries N`: re-runs of a trial that ended in `error` or `timeout`.
    pub retries: Option<u32>,
}

/// Everything a run needs, resolved.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub scenario: Scenario,
    pub fixtures_dir: PathBuf,
    /// Extra id globs; a fixture must match one of them (when any are given).
    pub filters: Vec<String>,
    pub jobs: usize,
    pub trials: u32,
    pub max_rounds: u32,
    /// Where temporary repositories go (`None`: the system temp dir).
    pub work_dir: Option<PathBuf>,
    pub keep: bool,
    /// Runs are written to `<reports_dir>/<run-id>/`; the result cache is `<reports_dir>/.cache/`.
    pub reports_dir: PathBuf,
    /// Ignore the result cache when reading (trials are still written to it).
    pub no_cache: bool,
    /// Run only this shard of the selection (`shard.rs`).
    pub shard: Option<Shard>,
    /// Re-runs of a trial that ended in `error` or `timeout` (infrastructure), never of a verdict.
    pub retries: u32,
    /// The result cache's folder when not `<reports_dir>/.cache/` (a matrix run writes each
    /// pipeline's run inside its own folder, but keeps one cache).
    pub cache_in: Option<PathBuf>,
}

impl RunOptions {
    pub fn resolve(scenario: Scenario, o: Overrides) -> RunOptions {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let jobs = o
            .jobs
            .or(scenario.spec.jobs)
            .filter(|j| *j > 0)
            .unwrap_or(cores)
            .min(crate::corpus::scenario::MAX_JOBS);
        RunOptions {
            fixtures_dir: o.fixtures_dir.unwrap_or_else(|| scenario.fixtures_dir()),
            filters: o.filters,
            jobs,
            trials: o.trials.unwrap_or(scenario.spec.trials).max(1),
            max_rounds: o.max_rounds.unwrap_or(scenario.spec.max_rounds).max(1),
            work_dir: o.work_dir,
            keep: o.keep,
            no_cache: o.no_cache,
            reports_dir: o.reports_dir.unwrap_or_else(|| PathBuf::from("reports")),
            shard: o.shard,
            retries: o.retries.unwrap_or(scenario.spec.retries),
            cache_in: None,
            scenario,
        }
    }

    /// The result cache's folder.
    pub fn cache_dir(&self) -> PathBuf {
        self.cache_in
            .clone()
            .unwrap_or_else(|| self.reports_dir.join(".cache"))
    }
}
