//! `gatebench run [SCENARIO]`: the main job.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use gatebench::corpus::scenario::Scenario;
use gatebench::error::Error;
use gatebench::exit_code;
use gatebench::output::render::summary;
use gatebench::output::store::results;
use gatebench::run::execute;
use gatebench::run::options::{Overrides, RunOptions};
use gatebench::run::progress::LiveProgress;

use crate::cli::CmdResult;

#[derive(clap::Args)]
pub struct RunArgs {
    /// The scenario file.
    #[arg(default_value = "scenarios/default.yaml")]
    pub scenario: PathBuf,
    /// Only fixtures whose id matches this glob (repeatable); their goldens run too.
    #[arg(long)]
    pub filter: Vec<String>,
    /// Parallel trials (default: the scenario's, else one per core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=gatebench::corpus::scenario::MAX_JOBS as i64))]
    pub jobs: Option<u16>,
    /// Trials per fixture (1 to 1000).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=gatebench::corpus::scenario::MAX_TRIALS as i64))]
    pub trials: Option<u32>,
    /// Verify/fix rounds per trial (1 to 100).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=gatebench::corpus::scenario::MAX_ROUNDS as i64))]
    pub max_rounds: Option<u32>,
    /// The fixtures folder (default: the scenario's).
    #[arg(long)]
    pub fixtures: Option<PathBuf>,
    /// Where temporary repositories go (point it at tmpfs for speed).
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    /// Keep the temporary repositories (their paths are in results.json).
    #[arg(long)]
    pub keep: bool,
    #[arg(long, default_value = "reports")]
    pub reports_dir: PathBuf,
    /// Print only the summary, no progress.
    #[arg(long)]
    pub quiet: bool,
    /// Run only shard I of N (1-based, e.g. `2/3`): fixtures are assigned by a hash of their id,
    /// every trial of a fixture on one shard. Merge the shards with `gatebench merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<gatebench::shard::Shard>,
    /// Run every trial even when the result cache (`<reports-dir>/.cache/`, external pipelines
    /// only) holds it; finished trials are still written to it.
    #[arg(long)]
    pub no_cache: bool,
    /// Re-run a trial whose outcome was `error` or `timeout` up to N more times (default: the
    /// scenario's `retries`, else 0); every attempt is recorded. Verdicts are never retried.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(..=gatebench::corpus::scenario::MAX_RETRIES as i64))]
    pub retries: Option<u32>,
}

pub fn run(args: RunArgs) -> CmdResult {
    cmd_run(args)
}

fn cmd_run(args: RunArgs) -> CmdResult {
    // First, while this is the only thread: what the run reads of a repository must not depend on
    // this machine's git configuration (`repo::hermetic`).
    // SAFETY: no other thread exists yet (the Ctrl-C handler and the run's threads start later).
    unsafe { gatebench::repo::hermetic::ignore_outside_config() }
        .map_err(|e| vec![Error::Internal(format!("configuring libgit2: {e}"))])?;
    gatebench::repo::hermetic::skip_read_verification();
    let scenario = Scenario::load(&args.scenario).map_err(|e| vec![e])?;
    let options = RunOptions::resolve(
        scenario,
        Overrides {
            filters: args.filter,
            jobs: args.jobs.map(usize::from),
            trials: args.trials,
            max_rounds: args.max_rounds,
            fixtures_dir: args.fixtures,
            work_dir: args.work_dir,
            reports_dir: Some(args.reports_dir),
            keep: args.keep,
            no_cache: args.no_cache,
            shard: args.shard,
            retries: args.retries,
        },
    );
    gatebench::run::interrupt::install();
    let live = LiveProgress::new(!args.quiet && std::io::stderr().is_terminal());
    let progress = |record: &gatebench::score::record::TrialRecord, done: usize, total: usize| {
        live.on_trial(record, done, total);
    };
    if options.scenario.is_matrix() {
        let finished = gatebench::run::matrix::execute(&options, &progress);
        live.finish();
        return matrix_done(finished?, options.keep);
    }
    let finished = execute::execute(&options, &progress);
    live.finish();
    let finished = finished?;
    out!("{}", summary::terminal(&finished.results));
    outln!("results: {}", finished.dir.join("results.json").display());
    outln!(
        "report:  {} (also summary.md, junit.xml)",
        finished.dir.join("report.html").display()
    );
    step_summary(&finished.results)?;
    // The summaries read the trials back from the run's spool: one that could not be read is
    // an error, not a shorter summary.
    finished.results.trials.check().map_err(|e| vec![e])?;
    finished.results.fixtures.check().map_err(|e| vec![e])?;
    if options.keep {
        outln!(
            "repositories kept under the work dir; each trial's path is in results.json (kept_at)"
        );
    }
    if gatebench::run::memory::exhausted() {
        errln!(
            "error: gatebench ran out of memory during the run: the trials that had not started \
             are recorded as errors (not run); the run above is partial. Give it more memory or \
             fewer --jobs."
        );
        return Ok(finished.results.exit_code.max(exit_code::ERRORS));
    }
    Ok(finished.results.exit_code)
}

/// A matrix run's terminal table, its folders, and its step summary.
fn matrix_done(finished: gatebench::run::matrix::MatrixFinished, keep: bool) -> CmdResult {
    let matrix = &finished.matrix;
    out!("{}", gatebench::output::render::matrix::terminal(matrix));
    outln!("matrix:  {}", finished.dir.join("matrix.json").display());
    outln!(
        "report:  {} (also summary.md, junit.xml)",
        finished.dir.join("report.html").display()
    );
    for (name, run) in &finished.runs {
        outln!("{name}: {}", run.dir.display());
    }
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|v| !v.is_empty()) {
        gatebench::output::render::matrix::append_step_summary(Path::new(&path), matrix)
            .map_err(|e| vec![e])?;
    }
    if keep {
        outln!(
            "repositories kept under the work dir; each trial's path is in its pipeline's \
             results.json (kept_at)"
        );
    }
    Ok(matrix.exit_code)
}

/// Appends the Markdown summary to `$GITHUB_STEP_SUMMARY` when GitHub Actions sets it.
pub fn step_summary(results: &results::RunResults) -> Result<(), Vec<Error>> {
    match std::env::var_os("GITHUB_STEP_SUMMARY").filter(|v| !v.is_empty()) {
        Some(path) => gatebench::output::outputs::append_step_summary(Path::new(&path), results)
            .map_err(|e| vec![e]),
        None => Ok(()),
    }
}
