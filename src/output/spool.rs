//! A run's trials as they finish, written to disk one JSON line each (an unnamed temporary file
//! beside the run folders), and read back one at a time, in (fixture, trial) order, by everything
//! rendered from the run. Memory holds an offset per trial, not the trials: a run's memory does
//! not grow with its trials' records (`docs/PERFORMANCE.md`, "Scale").
//!
//! [`Trials`] is what a [`RunResults`](crate::output::results::RunResults) holds: such a spool,
//! or the trials in memory (a run read back from `results.json`, a merge, a replay).

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::score::record::TrialRecord;

/// Finished trials being written, from any worker thread.
pub struct Spool {
    writer: Mutex<Writer>,
}

struct Writer {
    out: BufWriter<File>,
    /// Bytes written so far: the next record's offset.
    at: u64,
    /// (fixture, trial, offset, length) of every record written.
    index: Vec<(String, u32, u64, u32)>,
    /// The first write that failed: the spool is then incomplete, and `finish` says so.
    failed: Option<String>,
}

impl Spool {
    /// A spool in an unnamed temporary file in `dir` (gone with the process, whatever ends it).
    pub fn create(dir: &Path) -> Result<Spool> {
        let file = tempfile::tempfile_in(dir)
            .map_err(|e| Error::io("create a temporary file in", dir, e))?;
        Ok(Spool {
            writer: Mutex::new(Writer {
                out: BufWriter::with_capacity(1 << 16, file),
                at: 0,
                index: Vec::new(),
                failed: None,
            }),
        })
    }

    /// Appends a finished trial.
    pub fn push(&self, record: &TrialRecord) {
        let line = match serde_json::to_vec(record) {
            Ok(line) => line,
            Err(e) => {
                let mut w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
                w.failed.get_or_insert_with(|| {
                    format!("trial {} of {}: {e}", record.trial, record.fixture)
                });
                return;
            }
        };
        let mut w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        if w.failed.is_some() {
            return;
        }
        match w.out.write_all(&line).and_then(|()| w.out.write_all(b"\n")) {
            Ok(()) => {
                let at = w.at;
                w.index
                    .push((record.fixture.clone(), record.trial, at, line.len() as u32));
                w.at += line.len() as u64 + 1;
            }
            Err(e) => w.failed = Some(e.to_string()),
        }
    }

    /// The trials written, sorted by fixture id, then trial; an error if any could not be.
    pub fn finish(self) -> Result<Trials> {
        let w = self.writer.into_inner().unwrap_or_else(|p| p.into_inner());
        let Writer {
            out,
            mut index,
            failed,
            ..
        } = w;
        if let Some(e) = failed {
            return Err(Error::Internal(format!(
                "a finished trial could not be written to the run's spool: {e}"
            )));
        }
        let file = out.into_inner().map_err(|e| {
            Error::Internal(format!(
                "the run's spool could not be written: {}",
                e.error()
            ))
        })?;
        index.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        Ok(Trials(Repr::Spooled(Arc::new(Spooled {
            file,
            index: index.into_iter().map(|(_, _, at, len)| (at, len)).collect(),
            failed: Mutex::new(None),
        }))))
    }
}

/// A run's trials, sorted by fixture id, then trial: in memory, or in a spool on disk, read back
/// one at a time. Serialized as the list of trials either way.
#[derive(Clone, Default)]
pub struct Trials(Repr);

#[derive(Clone)]
enum Repr {
    Memory(Vec<TrialRecord>),
    Spooled(Arc<Spooled>),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Memory(Vec::new())
    }
}

struct Spooled {
    file: File,
    /// (offset, length) of each record, in order.
    index: Vec<(u64, u32)>,
    /// The first record that could not be read back (`Trials::check`).
    failed: Mutex<Option<String>>,
}

impl Spooled {
    fn read(&self, i: usize, buf: &mut Vec<u8>) -> std::result::Result<TrialRecord, String> {
        let (at, len) = self.index[i];
        buf.resize(len as usize, 0);
        self.file
            .read_exact_at(buf, at)
            .map_err(|e| e.to_string())?;
        serde_json::from_slice(buf).map_err(|e| e.to_string())
    }
}

/// Sorted by fixture id, then trial (stable), as every reader expects them.
impl From<Vec<TrialRecord>> for Trials {
    fn from(mut trials: Vec<TrialRecord>) -> Self {
        trials.sort_by(|a, b| (&a.fixture, a.trial).cmp(&(&b.fixture, b.trial)));
        Trials(Repr::Memory(trials))
    }
}

impl Trials {
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Memory(v) => v.len(),
            Repr::Spooled(s) => s.index.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every trial in order: borrowed from memory, or read back from the spool (a record that
    /// cannot be read ends the iteration, and [`Trials::check`] returns the error).
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            trials: self,
            next: 0,
            buf: Vec::new(),
        }
    }

    /// The `i`-th trial.
    pub fn get(&self, i: usize) -> Option<Cow<'_, TrialRecord>> {
        self.iter().nth(i)
    }

    /// Whether they are held in memory (`false`: read back from a spool on each use).
    pub fn in_memory(&self) -> bool {
        matches!(self.0, Repr::Memory(_))
    }

    /// The trials as a list in memory, to change them: a spool is read back into memory first.
    pub fn to_mut(&mut self) -> Result<&mut Vec<TrialRecord>> {
        if let Repr::Spooled(_) = &self.0 {
            let all: Vec<TrialRecord> = self.iter().map(Cow::into_owned).collect();
            self.check()?;
            self.0 = Repr::Memory(all);
        }
        match &mut self.0 {
            Repr::Memory(v) => Ok(v),
            Repr::Spooled(_) => unreachable!("read into memory above"),
        }
    }

    /// The trials as a list in memory.
    pub fn into_vec(mut self) -> Result<Vec<TrialRecord>> {
        Ok(std::mem::take(self.to_mut()?))
    }

    /// An error when a trial of the spool could not be read back: whatever was rendered from
    /// these trials is then incomplete.
    pub fn check(&self) -> Result<()> {
        match &self.0 {
            Repr::Memory(_) => Ok(()),
            Repr::Spooled(s) => match s.failed.lock().unwrap_or_else(|p| p.into_inner()).take() {
                None => Ok(()),
                Some(e) => Err(Error::Internal(format!(
                    "a trial could not be read back from the run's spool: {e}"
                ))),
            },
        }
    }
}

/// The trials of a [`Trials`], in order.
pub struct Iter<'a> {
    trials: &'a Trials,
    next: usize,
    buf: Vec<u8>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = Cow<'a, TrialRecord>;

    fn next(&mut self) -> Option<Self::Item> {
        let i = self.next;
        match &self.trials.0 {
            Repr::Memory(v) => {
                let t = v.get(i)?;
                self.next += 1;
                Some(Cow::Borrowed(t))
            }
            Repr::Spooled(s) => {
                if i >= s.index.len() {
                    return None;
                }
                match s.read(i, &mut self.buf) {
                    Ok(t) => {
                        self.next += 1;
                        Some(Cow::Owned(t))
                    }
                    Err(e) => {
                        self.next = s.index.len();
                        s.failed
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .get_or_insert(e);
                        None
                    }
                }
            }
        }
    }

    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        self.next = self.next.saturating_add(n);
        self.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.trials.len().saturating_sub(self.next);
        (0, Some(left))
    }
}

impl<'a> IntoIterator for &'a Trials {
    type Item = Cow<'a, TrialRecord>;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl std::fmt::Debug for Trials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Repr::Memory(v) => v.fmt(f),
            Repr::Spooled(s) => write!(f, "Trials(spooled, {})", s.index.len()),
        }
    }
}

impl Serialize for Trials {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Trials {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Vec::<TrialRecord>::deserialize(d).map(Trials::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::outcome::Outcome;

    fn record(fixture: &str, trial: u32) -> TrialRecord {
        let mut t = TrialRecord::named(fixture, "code", false, trial);
        t.outcome = Outcome::Detected;
        t.reason = format!("{fixture} trial {trial}: a reason with \"quotes\" and a\nnewline");
        t
    }

    /// Trials pushed from several threads in any order come back sorted by fixture, then trial,
    /// equal to what was pushed; and serialize as the same list held in memory.
    #[test]
    fn trials_pushed_in_any_order_from_threads_read_back_sorted_and_equal() {
        let dir = tempfile::tempdir().unwrap();
        let spool = Spool::create(dir.path()).unwrap();
        let mut pushed: Vec<TrialRecord> = Vec::new();
        for fixture in ["c-fixture", "a-fixture", "b-fixture"] {
            for trial in [2, 0, 1] {
                pushed.push(record(fixture, trial));
            }
        }
        std::thread::scope(|s| {
            for chunk in pushed.chunks(2) {
                let spool = &spool;
                s.spawn(move || chunk.iter().for_each(|t| spool.push(t)));
            }
        });
        let trials = spool.finish().unwrap();
        assert!(!trials.in_memory());
        assert_eq!(trials.len(), 9);
        let mut expected = pushed.clone();
        expected.sort_by(|a, b| (&a.fixture, a.trial).cmp(&(&b.fixture, b.trial)));
        let read: Vec<TrialRecord> = trials.iter().map(Cow::into_owned).collect();
        let json = |v: &[TrialRecord]| serde_json::to_string(v).unwrap();
        assert_eq!(json(&read), json(&expected));
        assert_eq!(
            serde_json::to_string(&trials).unwrap(),
            json(&expected),
            "serialized as the list"
        );
        assert_eq!(trials.get(4).unwrap().fixture, "b-fixture");
        assert_eq!(trials.get(4).unwrap().trial, 1);
        assert!(trials.get(9).is_none());
        trials.check().unwrap();
        // Read into memory to be changed: the same list.
        let mut owned = trials.clone();
        owned.to_mut().unwrap()[0].reason = "changed".into();
        assert!(owned.in_memory());
        assert_eq!(owned.get(0).unwrap().reason, "changed");
        assert_eq!(json(&owned.into_vec().unwrap()[1..]), json(&expected[1..]));
    }

    /// A record that cannot be read back ends the iteration, and `check` says so: nothing
    /// rendered from the trials passes for complete.
    #[test]
    fn a_record_that_cannot_be_read_back_is_an_error_not_a_shorter_run() {
        let file = tempfile::tempfile().unwrap();
        let good = serde_json::to_vec(&record("a", 0)).unwrap();
        file.write_all_at(&good, 0).unwrap();
        let spooled = Spooled {
            file,
            // The second record lies past the end of the file.
            index: vec![(0, good.len() as u32), (good.len() as u64 + 1, 50)],
            failed: Mutex::new(None),
        };
        let trials = Trials(Repr::Spooled(Arc::new(spooled)));
        assert_eq!(trials.len(), 2);
        assert_eq!(trials.iter().count(), 1);
        let err = trials.check().unwrap_err().to_string();
        assert!(err.contains("could not be read back"), "{err}");
        let mut copy = trials.clone();
        assert!(copy.to_mut().is_err());
    }

    #[test]
    fn an_empty_spool_is_no_trials() {
        let dir = tempfile::tempdir().unwrap();
        let trials = Spool::create(dir.path()).unwrap().finish().unwrap();
        assert!(trials.is_empty());
        assert_eq!(serde_json::to_string(&trials).unwrap(), "[]");
    }
}
