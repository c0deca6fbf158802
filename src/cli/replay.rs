//! `gatebench replay`: re-score a recorded run from its saved reports.

use std::path::PathBuf;

use gatebench::output::render::summary;

use crate::cli::CmdResult;

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// A results file or a run folder under reports/.
    pub recorded: PathBuf,
    /// The fixtures to score against (default: the recorded scenario's).
    #[arg(long)]
    pub fixtures: Option<PathBuf>,
    #[arg(long, default_value = "reports")]
    pub reports_dir: PathBuf,
}

pub fn run(args: ReplayArgs) -> CmdResult {
    let ReplayArgs {
        recorded,
        fixtures,
        reports_dir,
    } = args;
    cmd_replay(recorded, fixtures, reports_dir)
}

fn cmd_replay(recorded: PathBuf, fixtures: Option<PathBuf>, reports_dir: PathBuf) -> CmdResult {
    let finished = gatebench::run::replay::replay(&gatebench::run::replay::ReplayOptions {
        recorded,
        fixtures_dir: fixtures,
        reports_dir,
    })?;
    let results = &finished.results;
    out!("{}", summary::terminal(results));
    outln!(
        "replay of {} (no pipeline invoked)",
        results.replay_of.as_deref().unwrap_or("?")
    );
    outln!("results: {}", finished.dir.join("results.json").display());
    Ok(results.exit_code)
}
