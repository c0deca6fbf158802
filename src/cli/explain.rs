//! `gatebench explain FIXTURE`: what a fixture plants and what the last run said of it.

use std::path::{Path, PathBuf};

use gatebench::corpus;
use gatebench::exit_code;
use gatebench::output::store::runs;

use crate::cli::CmdResult;

#[derive(clap::Args)]
pub struct ExplainArgs {
    pub fixture: String,
    #[arg(long, default_value = "fixtures")]
    pub fixtures: PathBuf,
    /// The run to show (default: the newest run under --reports-dir).
    #[arg(long)]
    pub results: Option<PathBuf>,
    #[arg(long, default_value = "reports")]
    pub reports_dir: PathBuf,
}

pub fn run(args: ExplainArgs) -> CmdResult {
    let ExplainArgs {
        fixture,
        fixtures,
        results,
        reports_dir,
    } = args;
    cmd_explain(&fixtures, &fixture, results.as_deref(), &reports_dir)
}

fn cmd_explain(fixtures: &Path, id: &str, results: Option<&Path>, reports_dir: &Path) -> CmdResult {
    let corpus = gatebench::mutate::generate::with_mutant(corpus::load(fixtures)?, id);
    // No run yet is not an error for `explain`: it still shows the fixture.
    let last = match results {
        Some(p) => Some((p.display().to_string(), runs::read(p).map_err(|e| vec![e])?)),
        None => runs::newest(reports_dir).and_then(|dir| {
            // Unreadable (a matrix run's folder, say): the fixture alone, and why.
            runs::read(&dir)
                .map_err(|e| errln!("note: the newest run is not shown: {e}"))
                .ok()
                .map(|r| (dir.display().to_string(), r))
        }),
    };
    let text = gatebench::output::render::explain::explain(
        &corpus,
        id,
        last.as_ref().map(|(label, r)| (label.as_str(), r)),
    )
    .map_err(|e| vec![e])?;
    out!("{text}");
    Ok(exit_code::SUCCESS)
}
