//! `gatebench import`: a golden fixture written from an existing git repository. Reading the
//! repository's layers (`source.rs`), deciding what is kept and turning ledger ids into
//! placeholders (`redact.rs`), and writing the fixture folder (`write.rs`).

use std::path::{Path, PathBuf};

use git2::Repository;
use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::error::{Error, Result};

mod redact;
mod source;
mod write;

/// The default `--max-file-size`: 1 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1024 * 1024;

/// What to import, and where to.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The repository (its work tree, or a bare repository without `staged`/`unstaged`).
    pub repo: PathBuf,
    /// The base commit; `None`: the merge base of the head with `main` (or `master`).
    pub base: Option<String>,
    /// The head commit; `None`: `HEAD`.
    pub head: Option<String>,
    /// Import the index (against the head) as the `staged` layer.
    pub staged: bool,
    /// Import the work tree (against the index) as the `unstaged` layer: tracked files as they are
    /// in the work tree, and untracked files that are not ignored.
    pub unstaged: bool,
    pub id: String,
    /// The fixtures folder; the fixture is written to `out/<id>`.
    pub out: PathBuf,
    /// Replace an existing `out/<id>`.
    pub force: bool,
    /// Files larger than this (bytes) are left out unless `allow` names them.
    pub max_file_size: u64,
    /// Globs (matched against repository paths) of files kept although they are over the size
    /// limit or look like secrets.
    pub allow: Vec<String>,
    /// The fixture's description; `None`: one naming the repository and commits.
    pub description: Option<String>,
}

/// What an import wrote and what it could not keep.
#[derive(Debug, Clone, Default)]
pub struct Imported {
    /// The fixture folder written (`out/<id>`).
    pub folder: PathBuf,
    pub base_commit: String,
    pub head_commit: String,
    /// Per layer: name, files written, paths deleted.
    pub layers: Vec<(String, usize, usize)>,
    /// Files in no layer of the fixture: path, why.
    pub left_out: Vec<(String, String)>,
    /// Files kept with less than they had: path, what was lost.
    pub lossy: Vec<(String, String)>,
    /// Files stored with the `.fixture` suffix (repository paths).
    pub disarmed: Vec<String>,
    /// Placeholders introduced: layer, path, placeholder.
    pub placeholders: Vec<(String, String, String)>,
    /// Ids left as they are in a ledger file: layer, path, why.
    pub literal: Vec<(String, String, String)>,
}

/// Imports the repository `opts.repo` as a golden fixture `opts.out/<id>`.
pub fn import(opts: &ImportOptions) -> Result<Imported> {
    check_id(&opts.id, &opts.out)?;
    let folder = opts.out.join(&opts.id);
    if folder.exists() && !opts.force {
        return Err(Error::invalid(
            &folder,
            "the fixture folder exists; pass --force to replace it",
        ));
    }
    let allow = allow_set(&opts.allow, &opts.repo)?;
    let limit = source::ReadLimit {
        max_file_size: opts.max_file_size,
        allow: &allow,
    };
    let repo = Repository::open(&opts.repo).map_err(|e| {
        Error::invalid(&opts.repo, format!("not a git repository: {}", e.message()))
    })?;
    let mut imported = Imported {
        folder,
        ..Imported::default()
    };
    let sources = source::read_layers(&repo, opts, &limit, &mut imported)?;
    let kept = redact::keep(&sources, opts, &allow, &mut imported);
    imported.lossy = redact::losses(&kept);
    let templated = redact::templated(&sources, &kept, &mut imported);
    write::write_fixture(opts, &sources, &kept, &templated, &mut imported)?;
    Ok(imported)
}

/// The loader's id rule: lowercase letters, digits and dashes, not starting with a dash.
fn check_id(id: &str, out: &Path) -> Result<()> {
    let ok = !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !id.starts_with('-');
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(
            out,
            format!("fixture id `{id}` must be lowercase letters, digits and dashes"),
        ))
    }
}

fn allow_set(globs: &[String], repo: &Path) -> Result<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        let glob =
            Glob::new(glob).map_err(|e| Error::invalid(repo, format!("--allow `{glob}`: {e}")))?;
        builder.add(glob);
    }
    builder
        .build()
        .map_err(|e| Error::invalid(repo, format!("--allow: {e}")))
}

#[cfg(test)]
mod tests;
