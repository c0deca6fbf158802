//! `gatebench compare BASE NEW`: two runs side by side.

use std::path::{Path, PathBuf};

use gatebench::exit_code;
use gatebench::output::store::runs;

use crate::cli::CmdResult;

#[derive(clap::Args)]
pub struct CompareArgs {
    pub base: PathBuf,
    pub new: PathBuf,
    #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
    pub format: CompareFormat,
    /// Write the comparison here instead of standard output.
    #[arg(long)]
    pub output: Option<PathBuf>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum CompareFormat {
    Text,
    Markdown,
}

pub fn run(args: CompareArgs) -> CmdResult {
    let CompareArgs {
        base,
        new,
        format,
        output,
    } = args;
    cmd_compare(&base, &new, format, output)
}

fn cmd_compare(
    base: &Path,
    new: &Path,
    format: CompareFormat,
    output: Option<PathBuf>,
) -> CmdResult {
    let (base_results, new_results) = match (runs::read(base), runs::read(new)) {
        (Ok(b), Ok(n)) => (b, n),
        (b, n) => return Err(b.err().into_iter().chain(n.err()).collect()),
    };
    let comparison = gatebench::output::render::compare::compare(
        &base_results,
        &new_results,
        &base.display().to_string(),
        &new.display().to_string(),
    );
    let text = match format {
        CompareFormat::Text => gatebench::output::render::compare::text(&comparison),
        CompareFormat::Markdown => gatebench::output::render::compare::markdown(&comparison),
    };
    match output {
        Some(file) => {
            gatebench::atomic::write_atomic(&file, text.as_bytes()).map_err(|e| vec![e])?
        }
        None => out!("{text}"),
    }
    Ok(if comparison.regressions().next().is_some() {
        exit_code::THRESHOLDS
    } else {
        exit_code::SUCCESS
    })
}
