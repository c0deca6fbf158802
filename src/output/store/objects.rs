//! The run's object store (`reports/<run>/objects/<sha256>.json`): each round's report, process
//! and fixer records stored once per distinct content, `results.json` holding their references.

use gatebench_gittree::hex;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::score::record::TrialRecord;

/// The folder of a run's objects, beside its `results.json`.
pub const DIR: &str = "objects";

/// A content-addressed folder of JSON objects: the file name is the sha256 of the (compact) JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    pub fn new(dir: impl Into<PathBuf>) -> Store {
        Store { dir: dir.into() }
    }

    /// The store of the run whose results file is `results_file`.
    pub fn beside(results_file: &Path) -> Store {
        Store::new(results_file.parent().unwrap_or(Path::new(".")).join(DIR))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of object `hash`: only for a reference in its format (64 hex digits), so that a
    /// reference read from a file cannot name a path outside the store.
    fn path_of(&self, hash: &str) -> Result<PathBuf> {
        let hash = crate::ids::object_ref(&self.dir, hash)?;
        Ok(self.dir.join(format!("{hash}.json")))
    }

    /// Stores `value` (once per distinct content: an object already there is not written again)
    /// and returns its reference, the sha256 of its JSON.
    pub fn put<T: Serialize>(&self, value: &T) -> Result<String> {
        let bytes = serde_json::to_vec(value)
            .map_err(|e| Error::Internal(format!("serializing an object: {e}")))?;
        let hash = hex(&Sha256::digest(&bytes));
        let path = self.path_of(&hash)?;
        if !path.is_file() {
            // The store's folder is made by its owner (the run, or `outputs::write_all_with`):
            // one removed under a running trial by an interrupt is not made again.
            crate::atomic::write_atomic_into_existing(&path, &bytes)?;
        }
        Ok(hash)
    }

    /// Reads the object `hash`, checking that its content still has that hash.
    pub fn get<T: DeserializeOwned>(&self, hash: &str) -> Result<T> {
        let path = self.path_of(hash)?;
        // A missing or unreadable object is a results file that cannot be used: bad input.
        // Read as every file from outside is (`crate::input`): a stored object is a report or a
        // process record, bounded as a results file is.
        let bytes = crate::input::read(
            &path,
            crate::corpus::loader::yaml::MAX_JSON_BYTES,
            crate::input::Links::Refuse,
        )
        .map_err(|e| {
            Error::invalid(
                &path,
                format!("a stored object the results name cannot be read: {e}"),
            )
        })?;
        if hex(&Sha256::digest(&bytes)) != hash {
            return Err(Error::invalid(
                &path,
                "the object's content does not match its name (changed or damaged)",
            ));
        }
        // Stored objects are gatebench's own JSON, which never gives a key twice: a report
        // stored with `overall` twice would be read as its last.
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| Error::invalid(&path, format!("not a stored object: {e}")))?;
        if let Some((key, _)) = gatebench_report::json::duplicate_keys(text)
            .into_iter()
            .next()
        {
            return Err(Error::invalid(
                &path,
                format!("not a stored object: the key `{key}` is given twice in one object"),
            ));
        }
        serde_json::from_str(text)
            .map_err(|e| Error::invalid(&path, format!("not a stored object: {e}")))
    }

    /// Moves what a trial's rounds hold in full (reports, process and fixer records) into the
    /// store, leaving references. On an error the trial keeps whatever was not moved yet.
    pub fn externalize(&self, trial: &mut TrialRecord) -> Result<()> {
        for round in &mut trial.rounds {
            if let Some(report) = &round.report {
                round.report_ref = Some(self.put(report)?);
                round.report = None;
            }
            if let Some(process) = &round.process {
                round.process_ref = Some(self.put(process)?);
                round.process = None;
            }
            if let Some(fixer) = &round.fixer {
                round.fixer_ref = Some(self.put(fixer)?);
                round.fixer = None;
            }
            if let Some(diff) = &round.fix_diff {
                round.fix_diff_ref = Some(self.put(diff)?);
                round.fix_diff = None;
            }
        }
        Ok(())
    }

    /// Links into this store (a copy where a link cannot be made) every object `trial` references
    /// by hash without holding it, from the first of `sources` that has it: a run written from
    /// another run's records (`replay`, `merge`) gets its own objects without reading them into
    /// memory. An object in none of them is an error naming it.
    pub fn adopt(&self, sources: &[&Store], trial: &TrialRecord) -> Result<()> {
        for round in &trial.rounds {
            let referenced = [
                (round.report.is_none(), &round.report_ref),
                (round.process.is_none(), &round.process_ref),
                (round.fixer.is_none(), &round.fixer_ref),
                (round.fix_diff.is_none(), &round.fix_diff_ref),
            ];
            for hash in referenced
                .into_iter()
                .filter_map(|(absent, hash)| hash.as_ref().filter(|_| absent))
            {
                let to = self.path_of(hash)?;
                if to.is_file() {
                    continue;
                }
                let Some(from) = sources
                    .iter()
                    .filter_map(|s| s.path_of(hash).ok())
                    .find(|p| p.is_file())
                else {
                    return Err(Error::invalid(
                        &self.dir,
                        format!(
                            "trial {} [{}] references object {hash}, which none of the runs read holds",
                            trial.fixture, trial.trial
                        ),
                    ));
                };
                if std::fs::hard_link(&from, &to).is_err() {
                    std::fs::copy(&from, &to).map_err(|e| Error::io("copy", &from, e))?;
                }
            }
        }
        Ok(())
    }

    /// Restores in full what a trial's rounds hold by reference; the references stay.
    pub fn resolve(&self, trial: &mut TrialRecord) -> Result<()> {
        for round in &mut trial.rounds {
            if let (None, Some(hash)) = (&round.report, &round.report_ref) {
                round.report = Some(self.get(hash)?);
            }
            if let (None, Some(hash)) = (&round.process, &round.process_ref) {
                round.process = Some(self.get(hash)?);
            }
            if let (None, Some(hash)) = (&round.fixer, &round.fixer_ref) {
                round.fixer = Some(self.get(hash)?);
            }
            if let (None, Some(hash)) = (&round.fix_diff, &round.fix_diff_ref) {
                round.fix_diff = Some(self.get(hash)?);
            }
        }
        Ok(())
    }
}

/// `trial` with what it holds by reference read back from `store` (a copy, dropped by the caller
/// when done: a run's outputs resolve one trial at a time, never the whole run at once), or
/// `trial` itself when it holds no references or there is no store.
pub fn resolved<'a>(
    store: Option<&Store>,
    trial: &'a TrialRecord,
) -> Result<std::borrow::Cow<'a, TrialRecord>> {
    match store {
        Some(store) if has_references(trial) => {
            let mut full = trial.clone();
            store.resolve(&mut full)?;
            Ok(std::borrow::Cow::Owned(full))
        }
        _ => Ok(std::borrow::Cow::Borrowed(trial)),
    }
}

/// Drops what a trial holds in full where it also holds the reference (restored earlier by
/// [`Store::resolve`]): memory keeps the references only.
pub fn release(trial: &mut TrialRecord) {
    for round in &mut trial.rounds {
        if round.report_ref.is_some() {
            round.report = None;
        }
        if round.process_ref.is_some() {
            round.process = None;
        }
        if round.fixer_ref.is_some() {
            round.fixer = None;
        }
        if round.fix_diff_ref.is_some() {
            round.fix_diff = None;
        }
    }
}

/// Whether a trial holds something by reference that is not restored.
pub fn has_references(trial: &TrialRecord) -> bool {
    trial.rounds.iter().any(|r| {
        (r.report.is_none() && r.report_ref.is_some())
            || (r.process.is_none() && r.process_ref.is_some())
            || (r.fixer.is_none() && r.fixer_ref.is_some())
            || (r.fix_diff.is_none() && r.fix_diff_ref.is_some())
    })
}

/// Whether a trial holds in full something its run's store should hold (`externalize` failed).
pub fn holds_content(trial: &TrialRecord) -> bool {
    trial.rounds.iter().any(|r| {
        r.report.is_some() || r.process.is_some() || r.fixer.is_some() || r.fix_diff.is_some()
    })
}
