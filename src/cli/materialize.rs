//! `gatebench materialize FIXTURE --out DIR`: one fixture built into a repository, left there.

use std::path::{Path, PathBuf};

use gatebench::corpus;
use gatebench::error::Error;
use gatebench::exit_code;
use gatebench::repo::materialize;

use crate::cli::CmdResult;

#[derive(clap::Args)]
pub struct MaterializeArgs {
    pub fixture: String,
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value = "fixtures")]
    pub fixtures: PathBuf,
}

pub fn run(args: MaterializeArgs) -> CmdResult {
    let MaterializeArgs {
        fixture,
        out,
        fixtures,
    } = args;
    cmd_materialize(&fixtures, &fixture, &out)
}

fn cmd_materialize(fixtures: &Path, id: &str, out: &Path) -> CmdResult {
    let corpus = corpus::load(fixtures)?;
    let fixture = corpus.get(id).ok_or_else(|| {
        vec![Error::invalid(
            fixtures,
            format!("no fixture with id `{id}`"),
        )]
    })?;
    if out.exists() && !out.is_dir() {
        return Err(vec![Error::invalid(
            out,
            "`--out` names a file; it must name a new or empty folder",
        )]);
    }
    if out.exists()
        && std::fs::read_dir(out)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return Err(vec![Error::invalid(
            out,
            "the output folder exists and is not empty",
        )]);
    }
    let m = materialize::materialize(fixture, out).map_err(|e| vec![e])?;
    outln!("{}", m.work_dir.display());
    for (layer, commit) in &m.commits {
        outln!("  {layer}: {commit}");
    }
    Ok(exit_code::SUCCESS)
}
