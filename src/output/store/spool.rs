//! A run's trials as they finish, written to disk one JSON line each (an unnamed temporary file
//! beside the run folders), and read back one at a time, in (fixture, trial) order, by everything
//! rendered from the run. Memory holds an offset and an id hash per trial, not the trials nor
//! their ids: a run's memory does not grow with its trials' records (`docs/PERFORMANCE.md`,
//! "Scale"). The run's fixtures (`FixtureInfo`) and what each planted (the trial logs' views) are
//! spooled the same way.
//!
//! [`Records`] is what a [`RunResults`](crate::output::store::results::RunResults) holds: such a spool,
//! or the records in memory (a run read back from `results.json`, a merge, a replay).

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::marker::PhantomData;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::score::record::TrialRecord;

/// What a spool holds: records written as JSON lines, read back sorted by their key.
pub trait Record: Serialize + DeserializeOwned + Clone {
    /// What one is called in errors.
    const NAME: &'static str;
    /// The order they are read back in: an id, then a number (a fixture, then its trial).
    fn key(&self) -> (&str, u32);
}

impl Record for TrialRecord {
    const NAME: &'static str = "trial";
    fn key(&self) -> (&str, u32) {
        (&self.fixture, self.trial)
    }
}

/// A run's trials: a spool, or a list in memory.
pub type Trials = Records<TrialRecord>;

/// Finished records being written, from any worker thread.
pub struct Spool<T> {
    writer: Mutex<Writer>,
    _records: PhantomData<fn(T)>,
}

struct Writer {
    out: BufWriter<File>,
    /// Bytes written so far: the next record's offset.
    at: u64,
    /// Where each record written is, and its order: no key is held (a run of 10,000 fixtures
    /// held 10,000 ids per spool here).
    index: Vec<Entry>,
    /// The first write that failed: the spool is then incomplete, and `finish` says so.
    failed: Option<String>,
}

/// One record written: its rank and number (its order), its id's hash (to find it), and where it
/// is in the file.
#[derive(Clone, Copy)]
struct Entry {
    rank: u32,
    n: u32,
    id: u64,
    at: u64,
    len: u32,
}

/// The hash `find` looks an id up by (in this process only: never written).
fn id_hash(id: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

impl<T: Record> Spool<T> {
    /// A spool in an unnamed temporary file in `dir` (gone with the process, whatever ends it).
    pub fn create(dir: &Path) -> Result<Spool<T>> {
        let file = tempfile::tempfile_in(dir)
            .map_err(|e| Error::io("create a temporary file in", dir, e))?;
        Ok(Spool {
            writer: Mutex::new(Writer {
                out: BufWriter::with_capacity(1 << 16, file),
                at: 0,
                index: Vec::new(),
                failed: None,
            }),
            _records: PhantomData,
        })
    }

    /// Appends a record. `rank` is its id's place among the ids written to this spool, in the
    /// order of the ids (a run passes each fixture's position in its list, which is sorted by
    /// id): the records are read back by rank, then by the number of their key. A rank out of
    /// the ids' order is found when they are read back, and is an error there (`check`).
    pub fn push(&self, rank: u32, record: &T) {
        let (id, n) = record.key();
        let line = match serde_json::to_vec(record) {
            Ok(line) => line,
            Err(e) => {
                let mut w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
                w.failed
                    .get_or_insert_with(|| format!("{} {id} {n}: {e}", T::NAME));
                return;
            }
        };
        let id = id_hash(id);
        let mut w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        if w.failed.is_some() {
            return;
        }
        match w.out.write_all(&line).and_then(|()| w.out.write_all(b"\n")) {
            Ok(()) => {
                let at = w.at;
                let len = line.len() as u32;
                w.index.push(Entry {
                    rank,
                    n,
                    id,
                    at,
                    len,
                });
                w.at += line.len() as u64 + 1;
            }
            Err(e) => w.failed = Some(e.to_string()),
        }
    }

    /// The records written, sorted by rank and number; an error if any could not be written.
    pub fn finish(self) -> Result<Records<T>> {
        let w = self.writer.into_inner().unwrap_or_else(|p| p.into_inner());
        let Writer {
            out,
            mut index,
            failed,
            ..
        } = w;
        if let Some(e) = failed {
            return Err(Error::Internal(format!(
                "a finished {} could not be written to the run's spool: {e}",
                T::NAME
            )));
        }
        let file = out.into_inner().map_err(|e| {
            Error::Internal(format!(
                "the run's spool could not be written: {}",
                e.error()
            ))
        })?;
        index.sort_by_key(|e| (e.rank, e.n));
        let mut by_id: Vec<(u64, u32)> = index
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id, i as u32))
            .collect();
        by_id.sort_unstable();
        // Collected from a borrow, not from `into_iter`: that would keep the entries' allocation
        // (twice this list's size, and more room besides) under the list (0.5 MB a spool at
        // 10,000 fixtures, by a heap profile).
        let positions: Vec<(u64, u32)> = index.iter().map(|e| (e.at, e.len)).collect();
        drop(index);
        Ok(Records(Repr::Spooled(Arc::new(Spooled {
            file,
            index: positions,
            by_id,
            failed: Mutex::new(None),
        }))))
    }
}

/// Records sorted by key (a run's trials by fixture id, then trial; its fixtures by id): in
/// memory, or in a spool on disk, read back one at a time. Serialized as their list either way.
pub struct Records<T>(Repr<T>);

enum Repr<T> {
    Memory(Vec<T>),
    Spooled(Arc<Spooled>),
}

impl<T: Clone> Clone for Records<T> {
    fn clone(&self) -> Self {
        Records(match &self.0 {
            Repr::Memory(v) => Repr::Memory(v.clone()),
            Repr::Spooled(s) => Repr::Spooled(s.clone()),
        })
    }
}

impl<T> Default for Records<T> {
    fn default() -> Self {
        Records(Repr::Memory(Vec::new()))
    }
}

struct Spooled {
    file: File,
    /// (offset, length) of each record, in order.
    index: Vec<(u64, u32)>,
    /// (id hash, position) of each record, sorted: `find` reads one record, not a binary search
    /// of them.
    by_id: Vec<(u64, u32)>,
    /// The first record that could not be read back (`Records::check`).
    failed: Mutex<Option<String>>,
}

impl Spooled {
    fn read<T: Record>(&self, i: usize, buf: &mut Vec<u8>) -> std::result::Result<T, String> {
        let (at, len) = self.index[i];
        buf.resize(len as usize, 0);
        self.file
            .read_exact_at(buf, at)
            .map_err(|e| e.to_string())?;
        serde_json::from_slice(buf).map_err(|e| e.to_string())
    }

    fn fail(&self, e: String) {
        self.failed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert(e);
    }
}

/// Sorted by key (stable), as every reader expects them.
impl<T: Record> From<Vec<T>> for Records<T> {
    fn from(mut records: Vec<T>) -> Self {
        records.sort_by(|a, b| a.key().cmp(&b.key()));
        Records(Repr::Memory(records))
    }
}

impl<T: Record> Records<T> {
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Memory(v) => v.len(),
            Repr::Spooled(s) => s.index.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every record in order: borrowed from memory, or read back from the spool (a record that
    /// cannot be read ends the iteration, and [`Records::check`] returns the error).
    pub fn iter(&self) -> Iter<'_, T> {
        Iter {
            records: self,
            next: 0,
            buf: Vec::new(),
            last: None,
        }
    }

    /// The `i`-th record.
    pub fn get(&self, i: usize) -> Option<Cow<'_, T>> {
        self.iter().nth(i)
    }

    /// The first record whose key's id is `id` (a binary search: a spool reads a few records
    /// back to find it).
    pub fn find(&self, id: &str) -> Option<Cow<'_, T>> {
        match &self.0 {
            Repr::Memory(v) => {
                let i = v.partition_point(|r| r.key().0 < id);
                v.get(i).filter(|r| r.key().0 == id).map(Cow::Borrowed)
            }
            Repr::Spooled(s) => {
                let h = id_hash(id);
                let mut buf = Vec::new();
                let first = s.by_id.partition_point(|&(x, _)| x < h);
                // Positions of one hash are in order: the first of the id is its first record
                // (another id of the same hash is read and passed over).
                for &(_, i) in s.by_id[first..].iter().take_while(|&&(x, _)| x == h) {
                    match s.read::<T>(i as usize, &mut buf) {
                        Ok(r) if r.key().0 == id => return Some(Cow::Owned(r)),
                        Ok(_) => {}
                        Err(e) => {
                            s.fail(e);
                            return None;
                        }
                    }
                }
                None
            }
        }
    }

    /// Whether they are held in memory (`false`: read back from a spool on each use).
    pub fn in_memory(&self) -> bool {
        matches!(self.0, Repr::Memory(_))
    }

    /// The records as a list in memory, to change them: a spool is read back into memory first.
    pub fn to_mut(&mut self) -> Result<&mut Vec<T>> {
        if let Repr::Spooled(_) = &self.0 {
            let all: Vec<T> = self.iter().map(Cow::into_owned).collect();
            self.check()?;
            self.0 = Repr::Memory(all);
        }
        match &mut self.0 {
            Repr::Memory(v) => Ok(v),
            Repr::Spooled(_) => unreachable!("read into memory above"),
        }
    }

    /// The records as a list in memory.
    pub fn into_vec(mut self) -> Result<Vec<T>> {
        Ok(std::mem::take(self.to_mut()?))
    }

    /// An error when a record of the spool could not be read back: whatever was rendered from
    /// these records is then incomplete.
    pub fn check(&self) -> Result<()> {
        match &self.0 {
            Repr::Memory(_) => Ok(()),
            Repr::Spooled(s) => match s.failed.lock().unwrap_or_else(|p| p.into_inner()).take() {
                None => Ok(()),
                Some(e) => Err(Error::Internal(format!(
                    "a {} could not be read back from the run's spool: {e}",
                    T::NAME
                ))),
            },
        }
    }
}

/// The records of a [`Records`], in order.
pub struct Iter<'a, T> {
    records: &'a Records<T>,
    next: usize,
    buf: Vec<u8>,
    /// The key of the last record read back from a spool: one out of order is an error (its
    /// rank was not its id's place, `Spool::push`).
    last: Option<(String, u32)>,
}

impl<'a, T: Record> Iterator for Iter<'a, T> {
    type Item = Cow<'a, T>;

    fn next(&mut self) -> Option<Self::Item> {
        let i = self.next;
        match &self.records.0 {
            Repr::Memory(v) => {
                let t = v.get(i)?;
                self.next += 1;
                Some(Cow::Borrowed(t))
            }
            Repr::Spooled(s) => {
                if i >= s.index.len() {
                    return None;
                }
                match s.read::<T>(i, &mut self.buf) {
                    Ok(t) => {
                        let (id, n) = t.key();
                        if let Some((last, m)) = &self.last {
                            if (id, n) < (last.as_str(), *m) {
                                self.next = s.index.len();
                                s.fail(format!(
                                    "{} {id} {n} was spooled after {last} {m}: out of order",
                                    T::NAME
                                ));
                                return None;
                            }
                        }
                        self.last = Some((id.to_owned(), n));
                        self.next += 1;
                        Some(Cow::Owned(t))
                    }
                    Err(e) => {
                        self.next = s.index.len();
                        s.fail(e);
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
        let left = self.records.len().saturating_sub(self.next);
        (0, Some(left))
    }
}

impl<'a, T: Record> IntoIterator for &'a Records<T> {
    type Item = Cow<'a, T>;
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Records<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Repr::Memory(v) => v.fmt(f),
            Repr::Spooled(s) => write!(f, "Records(spooled, {})", s.index.len()),
        }
    }
}

impl<T: Record> Serialize for Records<T> {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de, T: Record> Deserialize<'de> for Records<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Vec::<T>::deserialize(d).map(Records::from)
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
        // The rank of each fixture: its place among the ids, in their order.
        let rank = |t: &TrialRecord| (t.fixture.as_bytes()[0] - b'a') as u32;
        std::thread::scope(|s| {
            for chunk in pushed.chunks(2) {
                let spool = &spool;
                s.spawn(move || chunk.iter().for_each(|t| spool.push(rank(t), t)));
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
            by_id: Vec::new(),
            failed: Mutex::new(None),
        };
        let trials: Trials = Records(Repr::Spooled(Arc::new(spooled)));
        assert_eq!(trials.len(), 2);
        assert_eq!(trials.iter().count(), 1);
        let err = trials.check().unwrap_err().to_string();
        assert!(err.contains("could not be read back"), "{err}");
        let mut copy = trials.clone();
        assert!(copy.to_mut().is_err());
    }

    /// `find` gives the first record of an id, from a spool as from memory, and nothing for an
    /// id that is not there (before the first, between two, after the last).
    #[test]
    fn find_gives_the_first_record_of_an_id_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let spool = Spool::create(dir.path()).unwrap();
        let mut all = Vec::new();
        for (rank, fixture) in ["b", "d", "f", "h", "j"].into_iter().enumerate().rev() {
            for trial in [1, 0] {
                spool.push(rank as u32, &record(fixture, trial));
                all.push(record(fixture, trial));
            }
        }
        let spooled: Trials = spool.finish().unwrap();
        let memory: Trials = all.into();
        for trials in [&spooled, &memory] {
            for id in ["b", "d", "f", "h", "j"] {
                let found = trials.find(id).unwrap();
                assert_eq!((found.fixture.as_str(), found.trial), (id, 0));
            }
            for absent in ["a", "c", "i", "k", ""] {
                assert!(trials.find(absent).is_none(), "{absent}");
            }
            trials.check().unwrap();
        }
        assert!(Trials::default().find("a").is_none());
    }

    /// Ranks that do not follow the ids' order are found when the records are read back: the
    /// iteration ends there and `check` says which record came out of order.
    #[test]
    fn records_spooled_out_of_their_ids_order_are_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let spool = Spool::create(dir.path()).unwrap();
        spool.push(0, &record("b", 0));
        spool.push(1, &record("a", 0));
        spool.push(2, &record("c", 0));
        let trials: Trials = spool.finish().unwrap();
        assert_eq!(trials.iter().count(), 1);
        let err = trials.check().unwrap_err().to_string();
        assert!(err.contains("trial a 0 was spooled after b 0"), "{err}");
    }

    #[test]
    fn an_empty_spool_is_no_trials() {
        let dir = tempfile::tempdir().unwrap();
        let trials: Trials = Spool::create(dir.path()).unwrap().finish().unwrap();
        assert!(trials.is_empty());
        assert_eq!(serde_json::to_string(&trials).unwrap(), "[]");
    }
}
