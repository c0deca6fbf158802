//! The result cache of external pipelines, under `<reports>/.cache/`: one file per finished trial,
//! keyed by content (what the fixture materializes, the pipeline's fingerprint, the trial index,
//! the round limit and base ref, gatebench's version). A re-run with nothing changed runs no
//! pipeline; an interrupted run resumes from the trials it finished, because each is written,
//! atomically, as it ends. A cached trial is re-scored against the fixture's current expectation,
//! so changing an expectation needs no re-run.
//!
//! Errors and timeouts are not cached: they are retried on the next run (a verifier that was
//! missing may have been installed, a timeout may have been load).

use gatebench_gittree::hex;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::atomic;
use crate::corpus::model::hash::repo_hash;
use crate::corpus::Fixture;
use crate::score::outcome::Outcome;
use crate::score::record::TrialRecord;

/// Bumped when an entry written before would be misread.
const FORMAT: u32 = 1;

#[derive(Serialize, Deserialize)]
struct Entry {
    format: u32,
    key: String,
    record: TrialRecord,
}

/// The cache of one run's pipeline.
#[derive(Debug)]
pub struct Cache {
    dir: PathBuf,
    pipeline: String,
    max_rounds: u32,
    base_ref: String,
    /// `false` under `--no-cache`: every trial runs (and is still written).
    read: bool,
}

impl Cache {
    pub fn new(
        dir: &Path,
        pipeline_fingerprint: &str,
        max_rounds: u32,
        base_ref: &str,
        read: bool,
    ) -> Cache {
        Cache {
            dir: dir.to_path_buf(),
            pipeline: pipeline_fingerprint.to_owned(),
            max_rounds,
            base_ref: base_ref.to_owned(),
            read,
        }
    }

    pub fn reads(&self) -> bool {
        self.read
    }

    /// The key of one trial of one fixture (an error when the fixture's files cannot be composed).
    pub fn key(&self, fixture: &Fixture, trial: u32) -> crate::error::Result<String> {
        let value = serde_json::json!({
            "format": FORMAT,
            "gatebench": env!("CARGO_PKG_VERSION"),
            "repo": repo_hash(fixture)?,
            "pipeline": self.pipeline,
            "trial": trial,
            "max_rounds": self.max_rounds,
            "base_ref": self.base_ref,
        });
        Ok(hex(&Sha256::digest(value.to_string().as_bytes())))
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    /// The recorded trial, when reading is on and the cache holds it (unscored: the caller scores).
    pub fn get(&self, fixture: &Fixture, trial: u32) -> Option<TrialRecord> {
        if !self.read {
            return None;
        }
        let key = self.key(fixture, trial).ok()?;
        let bytes = crate::input::read(
            &self.path(&key),
            crate::corpus::loader::yaml::MAX_JSON_BYTES,
            crate::input::Links::Refuse,
        )
        .ok()?;
        let entry: Entry = serde_json::from_slice(&bytes).ok()?;
        (entry.format == FORMAT && entry.key == key && entry.record.fixture == fixture.id)
            .then_some(entry.record)
    }

    /// Writes a finished trial, unless it is an error or a timeout (those are retried). A write
    /// that fails is returned: the caller makes it visible (a run that cannot be resumed from a
    /// trial must not pretend it can).
    pub fn put(
        &self,
        fixture: &Fixture,
        trial: u32,
        record: &TrialRecord,
    ) -> crate::error::Result<()> {
        if !cacheable(record) {
            return Ok(());
        }
        let key = self.key(fixture, trial)?;
        let entry = Entry {
            format: FORMAT,
            key: key.clone(),
            record: record.clone(),
        };
        atomic::write_json_atomic(&self.path(&key), &entry)
    }
}

/// Whether a finished trial is worth keeping: it ran, and no round errored or timed out.
pub fn cacheable(record: &TrialRecord) -> bool {
    record.harness_error.is_none()
        && !matches!(record.outcome, Outcome::Error | Outcome::Timeout)
        && record
            .rounds
            .iter()
            .all(|r| !r.timed_out && r.error.is_none() && r.fix_error.is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_that_cannot_be_written_says_so() {
        let corpus =
            crate::corpus::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")).unwrap();
        let fixture = corpus.get("subscription-cancel").unwrap();
        let mut record = TrialRecord::new(fixture, 0);
        record.outcome = Outcome::Passed;
        let dir = tempfile::tempdir().unwrap();
        // The cache folder's place is taken by a file: no entry can be written under it.
        let blocked = dir.path().join("cache");
        std::fs::write(&blocked, "not a folder").unwrap();
        let cache = Cache::new(&blocked, "p", 3, "main", true);
        assert!(cache.put(fixture, 0, &record).is_err());
        let cache = Cache::new(&dir.path().join("ok"), "p", 3, "main", true);
        cache.put(fixture, 0, &record).unwrap();
        assert_eq!(
            cache.get(fixture, 0).unwrap().fixture,
            "subscription-cancel"
        );
    }
}
