//! `gatebench schema`: the committed JSON Schemas against the code.

use std::path::{Path, PathBuf};

use gatebench::exit_code;
use gatebench::schema;

use crate::cli::CmdResult;

#[derive(clap::Args)]
pub struct SchemaArgs {
    #[arg(long, default_value = "schemas")]
    pub dir: PathBuf,
    #[arg(long)]
    pub write: bool,
}

pub fn run(args: SchemaArgs) -> CmdResult {
    let SchemaArgs { dir, write } = args;
    cmd_schema(&dir, write)
}

fn cmd_schema(dir: &Path, write: bool) -> CmdResult {
    if write {
        schema::write_all(dir).map_err(|e| vec![e])?;
        outln!("schemas written to {}", dir.display());
        return Ok(exit_code::SUCCESS);
    }
    if !dir.is_dir() {
        return Err(vec![gatebench::error::Error::invalid(
            dir,
            "the schemas folder does not exist (`--dir`); `gatebench schema --write --dir DIR` creates it",
        )]);
    }
    let drifted = schema::drifted(dir);
    if drifted.is_empty() {
        outln!("schemas are current");
        Ok(exit_code::SUCCESS)
    } else {
        for name in &drifted {
            errln!(
                "error: {} differs from the code; run `gatebench schema --write`",
                dir.join(name).display()
            );
        }
        Ok(exit_code::USAGE)
    }
}
