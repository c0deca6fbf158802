//! `gatebench import REPO --id ID --out FIXTURES`: a golden written from an existing git repository.

use std::path::PathBuf;

use gatebench::corpus::import::{self, ImportOptions, DEFAULT_MAX_FILE_SIZE};
use gatebench::exit_code;

use crate::cli::CmdResult;

#[derive(clap::Args)]
pub struct ImportArgs {
    /// The repository to import (a work tree, or a bare repository without --staged/--unstaged).
    pub repo: PathBuf,
    /// The base commit (committed on `main` in the fixture). Default: the merge base of the head
    /// with `main` (or `master`).
    #[arg(long)]
    pub base: Option<String>,
    /// The head commit (the feature branch in the fixture). Default: HEAD.
    #[arg(long)]
    pub head: Option<String>,
    /// Also import the index, against the head, as the `staged` layer.
    #[arg(long)]
    pub staged: bool,
    /// Also import the work tree, against the index, as the `unstaged` layer (untracked files
    /// that are not ignored included).
    #[arg(long)]
    pub unstaged: bool,
    /// The fixture id: lowercase letters, digits and dashes.
    #[arg(long)]
    pub id: String,
    /// The fixtures folder; the fixture is written to OUT/ID.
    #[arg(long, default_value = "fixtures")]
    pub out: PathBuf,
    /// Replace OUT/ID if it exists.
    #[arg(long)]
    pub force: bool,
    /// Files larger than this many bytes are left out (unless --allow names them).
    #[arg(long, default_value_t = DEFAULT_MAX_FILE_SIZE)]
    pub max_file_size: u64,
    /// A glob of repository paths to keep although they are too large or look like secrets
    /// (`.env`, `*.pem`, `id_rsa*`, `*.key`, `credentials*`, a private key block). Repeatable.
    #[arg(long, value_name = "GLOB")]
    pub allow: Vec<String>,
    /// The fixture's description (default: the repository and the commits).
    #[arg(long)]
    pub description: Option<String>,
}

pub fn run(args: ImportArgs) -> CmdResult {
    let opts = ImportOptions {
        repo: args.repo,
        base: args.base,
        head: args.head,
        staged: args.staged,
        unstaged: args.unstaged,
        id: args.id,
        out: args.out,
        force: args.force,
        max_file_size: args.max_file_size,
        allow: args.allow,
        description: args.description,
    };
    let imported = import::import(&opts).map_err(|e| vec![e])?;
    outln!("wrote {}", imported.folder.join("fixture.yaml").display());
    outln!("  base: {}", imported.base_commit);
    outln!("  head: {}", imported.head_commit);
    for (layer, written, deleted) in &imported.layers {
        outln!("  layer {layer}: {written} files written, {deleted} deleted");
    }
    if !imported.placeholders.is_empty() {
        outln!("placeholders introduced in ledger files:");
        for (layer, path, placeholder) in &imported.placeholders {
            outln!("  {path} ({layer}): {placeholder}");
        }
    }
    if !imported.disarmed.is_empty() {
        outln!(
            "stored as *.fixture (the suffix is removed when materialized): {}",
            imported.disarmed.join(", ")
        );
    }
    if !imported.left_out.is_empty() {
        outln!("left out (in no layer of the fixture):");
        for (path, why) in &imported.left_out {
            outln!("  {path}: {why}");
        }
    }
    if !imported.lossy.is_empty() {
        outln!("kept with a loss:");
        for (path, why) in &imported.lossy {
            outln!("  {path}: {why}");
        }
    }
    for (layer, path, why) in &imported.literal {
        outln!("ids kept as recorded in {path} ({layer}): {why}");
    }
    outln!("next: gatebench check, then gatebench run with a scenario that selects it");
    Ok(exit_code::SUCCESS)
}
