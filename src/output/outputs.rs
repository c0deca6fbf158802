//! Every file a run leaves in its folder, all rendered from the same `RunResults`: `results.json`
//! (the source of truth), `summary.md`, `junit.xml` and `report.html`; and the GitHub step summary.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};
use crate::output::atomic;
use crate::output::html;
use crate::output::junit;
use crate::output::results::RunResults;
use crate::output::summary;
use crate::output::trial_logs::{self, Views};

/// The files `write_all` writes, in a run's folder.
pub const FILES: [&str; 4] = ["results.json", "summary.md", "junit.xml", "report.html"];
/// The folders `write_all_with` writes beside them (`run` only: the per-trial logs).
pub const DIRS: [&str; 1] = [crate::output::trial_logs::TRIALS];

/// Writes every output of a run into `dir`, each atomically; `results.json` first, so that a
/// failure in a reporter never loses the record.
pub fn write_all(dir: &Path, results: &RunResults) -> Result<()> {
    write_all_with(dir, results, None)
}

/// `write_all`, and with `views` (what each fixture planted) the per-trial logs too
/// (`trials/<case>/`, `trial_logs.rs`), which `junit.xml` and `report.html` then link to.
pub fn write_all_with(dir: &Path, results: &RunResults, views: Option<&Views>) -> Result<()> {
    atomic::write_json_atomic(&dir.join("results.json"), results)?;
    if let Some(views) = views {
        trial_logs::write(dir, results, views)?;
    }
    let linked = views.is_some();
    atomic::write_atomic(
        &dir.join("summary.md"),
        summary::markdown(results).as_bytes(),
    )?;
    atomic::write_atomic(
        &dir.join("junit.xml"),
        junit::render_linked(results, linked)?.as_bytes(),
    )?;
    let none = Views::new();
    atomic::write_atomic(
        &dir.join("report.html"),
        html::render_with(results, views.unwrap_or(&none), linked)?.as_bytes(),
    )?;
    Ok(())
}

/// Appends the Markdown summary to the file GitHub Actions names in `$GITHUB_STEP_SUMMARY`, so a
/// pull request's checks page shows it. Appends: other steps may have written there already.
pub fn append_step_summary(path: &Path, results: &RunResults) -> Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| Error::io("open the step summary", path, e))?;
    let mut text = summary::markdown(results);
    text.push('\n');
    file.write_all(text.as_bytes())
        .map_err(|e| Error::io("append to the step summary", path, e))
}
