//! The semantic tier's ground truth, as committed: `fixtures/semantic-validation.json`. One entry
//! per candidate (planted or not), with the status its runs proved and the evidence: the commands,
//! exit codes, failing and not-run tests, and the tree each ran on. Written by
//! `gatebench mutate --validate`; read by every run that selects the semantic tier, which plants
//! the `loud` and `silent` entries and refuses a stale record (a candidate whose key changed).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::mutate::semantic::runs::Observed;

/// The record's file name, in the fixtures folder.
pub const FILE: &str = "semantic-validation.json";

/// Bumped when a record written before would be misread.
pub const FORMAT: u32 = 1;

/// What a candidate's runs proved.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Status {
    /// Planted: the golden's own suite fails on it (a gate that re-runs the tests catches it).
    Loud,
    /// Planted: the golden's own suite stays green, and the change is proved to hide a fault.
    Silent,
    /// A code mutant no test of the suite kills: equivalent, or untested; not planted.
    Survived,
    /// A test mutant that every code mutant it was tried with still fails: it does not weaken
    /// verification; not planted.
    Equivalent,
    /// A test mutant with no code mutant of its obligation that the original test kills, or a
    /// lying agent whose hollowed suite is not green: nothing proves it; not planted.
    Unproven,
    /// A test mutant that fails on the golden: a broken test, not a hollowed one; not planted.
    Broken,
    /// The mutated project does not build (Rust); not planted.
    Unviable,
    /// The suite did not finish within its timeout; not planted.
    Timeout,
    /// The suite could not run; not planted.
    Error,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether an entry with this status is planted as an omission.
    pub fn planted(self) -> bool {
        matches!(self, Status::Loud | Status::Silent)
    }
}

/// One run, as the record keeps it (the passing tests counted, not named).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// What the run was: `golden`, `mutant`, or `with <code mutant id>`.
    pub role: String,
    /// The git tree id of the files it ran on.
    pub tree: String,
    pub command: Vec<String>,
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub build_failed: bool,
    pub failing: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<String>,
    pub passed: usize,
}

impl Evidence {
    pub fn of(role: impl Into<String>, o: &Observed) -> Evidence {
        Evidence {
            role: role.into(),
            tree: o.tree.clone(),
            command: o.command.clone(),
            exit_code: o.exit_code,
            timed_out: o.timed_out,
            build_failed: o.build_failed,
            failing: o.failing.clone(),
            not_run: o.not_run.clone(),
            passed: o.passed.len(),
        }
    }
}

/// Lines of one file a candidate changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    pub path: String,
    pub lines: [u32; 2],
}

/// One candidate's entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub id: String,
    pub golden: String,
    pub operator: String,
    /// `code`, `test` or `lying-agent`.
    pub family: String,
    /// The candidate's key (`Candidate::key`): its tree, operator, site and command.
    pub key: String,
    pub status: Status,
    pub description: String,
    pub obligations: Vec<String>,
    pub places: Vec<Place>,
    /// The code mutant that proves a test mutant, or that a lying agent hides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with: Option<String>,
    pub runs: Vec<Evidence>,
}

/// A golden's suite, as validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Golden {
    pub command: Vec<String>,
    /// What the suite ran on when the record was written (interpreter and versions); not part
    /// of any key.
    pub toolchain: String,
    pub baseline: Evidence,
}

/// The whole record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub format: u32,
    pub goldens: BTreeMap<String, Golden>,
    /// Entries by status.
    pub counts: BTreeMap<String, usize>,
    pub mutants: Vec<Entry>,
}

impl Record {
    pub fn new(goldens: BTreeMap<String, Golden>, mut mutants: Vec<Entry>) -> Record {
        mutants.sort_by(|a, b| a.id.cmp(&b.id));
        let mut counts = BTreeMap::new();
        for m in &mutants {
            *counts.entry(m.status.as_str().to_owned()).or_insert(0) += 1;
        }
        Record {
            format: FORMAT,
            goldens,
            counts,
            mutants,
        }
    }

    /// The record's path in a fixtures folder.
    pub fn path(fixtures: &Path) -> PathBuf {
        fixtures.join(FILE)
    }

    /// The record of a fixtures folder; `None` when it has none.
    pub fn load(fixtures: &Path) -> Result<Option<Record>> {
        let path = Record::path(fixtures);
        let bytes = match crate::input::read(&path, 64 << 20, crate::input::Links::Refuse) {
            Ok(b) => b,
            Err(crate::input::ReadError::Missing) => return Ok(None),
            Err(e) => return Err(Error::invalid(&path, format!("cannot be read: {e}"))),
        };
        let record: Record = serde_json::from_slice(&bytes)
            .map_err(|e| Error::invalid(&path, format!("is not a validation record: {e}")))?;
        if record.format != FORMAT {
            return Err(Error::invalid(
                &path,
                format!(
                    "has format {}, this gatebench reads {FORMAT}: run `gatebench mutate --validate`",
                    record.format
                ),
            ));
        }
        Ok(Some(record))
    }

    /// Writes the record (pretty, one key a line, so a change reads as a diff).
    pub fn write(&self, fixtures: &Path) -> Result<()> {
        crate::atomic::write_json_atomic(&Record::path(fixtures), self)
    }

    /// This record (of some goldens) with the entries of every other golden of `earlier` kept:
    /// validating one golden replaces that golden's entries only.
    pub fn merged_into(self, earlier: Record) -> Record {
        let mut goldens = earlier.goldens;
        goldens.retain(|g, _| !self.goldens.contains_key(g));
        let mut mutants: Vec<Entry> = earlier
            .mutants
            .into_iter()
            .filter(|m| !self.goldens.contains_key(&m.golden))
            .collect();
        goldens.extend(self.goldens);
        mutants.extend(self.mutants);
        Record::new(goldens, mutants)
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.mutants
            .binary_search_by(|m| m.id.as_str().cmp(id))
            .ok()
            .map(|i| &self.mutants[i])
    }
}
