//! Every file a run leaves in its folder, all rendered from the same `RunResults`: `results.json`
//! (the source of truth), `summary.md`, `junit.xml` and `report.html` (the last two streamed into
//! their files); and the GitHub step summary.

use std::io::Write;
use std::path::Path;

use crate::atomic;
use crate::error::{Error, Result};
use crate::output::render::html;
use crate::output::render::junit;
use crate::output::render::summary;
use crate::output::store::objects::{self, Store};
use crate::output::store::results::{RunResults, SCHEMA_VERSION};
use crate::output::store::trial_logs::{self, Views};

/// The files `write_all` writes, in a run's folder.
pub const FILES: [&str; 4] = ["results.json", "summary.md", "junit.xml", "report.html"];
/// The folders `write_all_with` writes beside them (`run` only: the per-trial logs).
pub const DIRS: [&str; 1] = [crate::output::store::trial_logs::TRIALS];

/// Writes every output of a run into `dir`, each atomically; `results.json` first, so that a
/// failure in a reporter never loses the record. What the trials hold in full (reports, process
/// and fixer records) is moved into the run's object store (`dir/objects/`) first, leaving
/// references (`results.objects` then names that store): trials already moved there by the
/// runner are left as they are.
pub fn write_all(dir: &Path, results: &mut RunResults) -> Result<()> {
    write_all_with(dir, results, None)
}

/// `write_all`, and with `views` (what each fixture planted) the per-trial logs too
/// (`trials/<case>/`, `trial_logs.rs`), which `junit.xml` and `report.html` then link to.
pub fn write_all_with(dir: &Path, results: &mut RunResults, views: Option<&Views>) -> Result<()> {
    let store = Store::new(dir.join(objects::DIR));
    std::fs::create_dir_all(store.dir()).map_err(|e| Error::io("create", store.dir(), e))?;
    // A run written from records read back (`replay`, `merge`) references objects in the runs
    // it was read from: linked into this one, one trial at a time.
    let sources: Vec<Store> = results
        .objects
        .take()
        .into_iter()
        .chain(std::mem::take(&mut results.sources))
        .filter(|source| *source != store)
        .collect();
    let sources: Vec<&Store> = sources.iter().collect();
    // A run's own trials were moved into its store as each ended (the runner), and are read back
    // from its spool; trials in memory (a run read back, or whose store failed meanwhile) are
    // linked and moved here.
    if results.trials.in_memory() || !sources.is_empty() {
        for trial in results.trials.to_mut()? {
            if !sources.is_empty() {
                store.adopt(&sources, trial)?;
            }
            store.externalize(trial)?;
        }
    }
    results.schema_version = SCHEMA_VERSION;
    results.objects = Some(store);
    // One trial per fixture: `fixture_trials` restates the trials; `results::read` recomputes it.
    let fixture_trials = if results.trial_count <= 1 {
        std::mem::take(&mut results.fixture_trials)
    } else {
        Vec::new()
    };
    let written = atomic::write_json_compact_atomic(&dir.join("results.json"), results);
    if !fixture_trials.is_empty() {
        results.fixture_trials = fixture_trials;
    }
    written?;
    // A trial that could not be read back from the run's spool would leave the file short.
    results.trials.check()?;
    results.fixtures.check()?;
    // The trial logs and the HTML trial view show every round's report: each reads one trial's
    // back from the objects at a time (the record on disk keeps the references). The four
    // outputs below only read the run, and are written two at a time (each reads the spool on
    // its own, by position).
    let linked = views.is_some();
    let none = Views::new();
    let results = &*results;
    let (logs_and_summary, junit_and_html) = rayon::join(
        || -> Result<()> {
            if let Some(views) = views {
                trial_logs::write(dir, results, views)?;
            }
            atomic::write_atomic(
                &dir.join("summary.md"),
                summary::markdown(results).as_bytes(),
            )
        },
        || -> Result<()> {
            junit::write(&dir.join("junit.xml"), results, linked)?;
            html::write(
                &dir.join("report.html"),
                results,
                views.unwrap_or(&none),
                linked,
            )
        },
    );
    logs_and_summary?;
    junit_and_html?;
    // Likewise for the logs, the summary, junit.xml and report.html.
    results.trials.check()?;
    results.fixtures.check()
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
