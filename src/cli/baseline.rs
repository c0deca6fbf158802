//! `gatebench baseline`: a run written as the ratchet's baseline.

use std::path::{Path, PathBuf};

use gatebench::exit_code;
use gatebench::output::store::runs;

use crate::cli::CmdResult;

#[derive(clap::Args)]
pub struct BaselineArgs {
    /// A results.json or run folder (default: the newest run under --reports-dir).
    pub run: Option<PathBuf>,
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value = "reports")]
    pub reports_dir: PathBuf,
}

pub fn run(args: BaselineArgs) -> CmdResult {
    let BaselineArgs {
        run,
        out,
        reports_dir,
    } = args;
    cmd_baseline(run.as_deref(), &out, &reports_dir)
}

fn cmd_baseline(run: Option<&Path>, out: &Path, reports_dir: &Path) -> CmdResult {
    let (file, results) = runs::named_or_newest(run, reports_dir).map_err(|e| vec![e])?;
    let baseline = gatebench::run::baseline::baseline_of(&results).map_err(|e| vec![e])?;
    gatebench::atomic::write_json_atomic(out, &baseline).map_err(|e| vec![e])?;
    outln!(
        "baseline of {} ({} fixtures, {} trials) written to {}",
        file.display(),
        baseline.metrics.overall.fixtures,
        baseline.trials.len(),
        out.display()
    );
    Ok(exit_code::SUCCESS)
}
