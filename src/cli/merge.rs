//! `gatebench merge SHARD...`: the shards of a run combined and judged again.

use std::path::{Path, PathBuf};

use gatebench::output::render::summary;
use gatebench::output::store::runs;

use crate::cli::CmdResult;

#[derive(clap::Args)]
pub struct MergeArgs {
    /// The results.json (or run folder) of each shard.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
    #[arg(long, default_value = "reports")]
    pub reports_dir: PathBuf,
    /// The fixtures every shard's trials are scored again against (default: the recorded
    /// scenario's).
    #[arg(long)]
    pub fixtures: Option<PathBuf>,
}

pub fn run(args: MergeArgs) -> CmdResult {
    let MergeArgs {
        shards,
        reports_dir,
        fixtures,
    } = args;
    cmd_merge(&shards, &reports_dir, fixtures)
}

fn cmd_merge(shards: &[PathBuf], reports_dir: &Path, fixtures: Option<PathBuf>) -> CmdResult {
    let mut read = Vec::new();
    let mut errors = Vec::new();
    for path in shards {
        match runs::read(path) {
            Ok(r) => read.push((runs::results_file(path), r)),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut merged =
        gatebench::run::merge::merge_with(read, std::time::SystemTime::now(), fixtures.clone())?;
    // The trial logs as `run` writes them, from the scenario's fixtures when they still load.
    let views = gatebench::run::merge::views_of(&merged, fixtures.as_deref());
    if views.is_none() {
        errln!(
            "note: the scenario {} or its fixtures could not be loaded: no trial logs (trials/)",
            merged.scenario.file
        );
    }
    let dir = gatebench::run::folders::write_run_with(reports_dir, &mut merged, views.as_ref())
        .map_err(|e| vec![e])?;
    out!("{}", summary::terminal(&merged));
    outln!("merged {} shards", merged.merged_from.len());
    outln!("results: {}", dir.join("results.json").display());
    outln!(
        "report:  {} (also summary.md, junit.xml)",
        dir.join("report.html").display()
    );
    crate::cli::run::step_summary(&merged)?;
    Ok(merged.exit_code)
}
