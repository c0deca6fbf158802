//! How each fixture's outcomes changed between two sets of trials (newly passing falsely, newly
//! missed, newly alarmed, fixed). `compare` reports these changes; the ratchet fails a run on the
//! regressions among them.

use std::borrow::Borrow;
use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::score::outcome::Outcome;
use crate::score::record::TrialRecord;

/// How one fixture's outcomes changed between two runs. A fixture's outcomes are those of all its
/// trials; "good" means every trial was `detected` (omission) or `passed` (golden).
//
// Its id in JSON (`new-false-pass`, serde) and its words in the outputs (`newly passes falsely`,
// strum) are each written once.
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
    JsonSchema,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    /// A trial passes falsely now; none did before.
    #[strum(serialize = "newly passes falsely")]
    NewFalsePass,
    /// A golden fails now (false alarm); none of its trials did before.
    #[strum(serialize = "newly alarmed")]
    NewlyAlarmed,
    /// An omission fixture detected in every trial before is not now (wrong reason, error, timeout).
    #[strum(serialize = "newly missed")]
    NewlyMissed,
    /// A golden that passed in every trial before now errors or times out.
    #[strum(serialize = "newly erroring")]
    NewlyErroring,
    /// Not good before, good now.
    #[strum(serialize = "fixed")]
    Fixed,
    /// Outcomes differ, but neither a regression nor a fix (e.g. wrong-reason to error).
    #[strum(serialize = "changed")]
    Changed,
    /// In the new run only.
    #[strum(serialize = "added")]
    Added,
    /// In the base run only (not run, or no longer in the corpus).
    #[strum(serialize = "not in the new run")]
    Removed,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether the change makes the gate worse on a fixture it handled before.
    pub fn is_regression(self) -> bool {
        matches!(
            self,
            ChangeKind::NewFalsePass
                | ChangeKind::NewlyAlarmed
                | ChangeKind::NewlyMissed
                | ChangeKind::NewlyErroring
        )
    }
}

/// One fixture whose outcomes differ between the runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FixtureChange {
    pub fixture: String,
    pub category: String,
    pub kind: ChangeKind,
    /// The base run's outcomes (`detected`, `detected x2, false-pass`), `-` when absent.
    pub base: String,
    /// The new run's outcomes, `-` when absent.
    pub new: String,
}

struct FixtureOutcomes {
    category: String,
    golden: bool,
    outcomes: Vec<Outcome>,
}

fn by_fixture<T: Borrow<TrialRecord>>(
    trials: impl IntoIterator<Item = T>,
) -> BTreeMap<String, FixtureOutcomes> {
    let mut map: BTreeMap<String, FixtureOutcomes> = BTreeMap::new();
    for t in trials {
        let t = t.borrow();
        map.entry(t.fixture.clone())
            .or_insert_with(|| FixtureOutcomes {
                category: t.category.clone(),
                golden: t.golden,
                outcomes: Vec::new(),
            })
            .outcomes
            .push(t.outcome);
    }
    map
}

/// `detected`, `detected x2, false-pass`: the outcomes of a fixture's trials, counted.
pub fn show_outcomes(outcomes: &[Outcome]) -> String {
    if outcomes.is_empty() {
        return "-".into();
    }
    let mut counts: BTreeMap<Outcome, usize> = BTreeMap::new();
    for o in outcomes {
        *counts.entry(*o).or_default() += 1;
    }
    counts
        .iter()
        .map(|(o, n)| {
            if *n == 1 {
                o.as_str().to_owned()
            } else {
                format!("{} x{n}", o.as_str())
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn classify(base: &FixtureOutcomes, new: &FixtureOutcomes) -> Option<ChangeKind> {
    let has = |f: &FixtureOutcomes, o: Outcome| f.outcomes.contains(&o);
    let all = |f: &FixtureOutcomes, o: Outcome| f.outcomes.iter().all(|x| *x == o);
    let good = if new.golden {
        Outcome::Passed
    } else {
        Outcome::Detected
    };
    if has(new, Outcome::FalsePass) && !has(base, Outcome::FalsePass) {
        return Some(ChangeKind::NewFalsePass);
    }
    if has(new, Outcome::FalseAlarm) && !has(base, Outcome::FalseAlarm) {
        return Some(ChangeKind::NewlyAlarmed);
    }
    if all(base, good) && !all(new, good) {
        return Some(if new.golden {
            ChangeKind::NewlyErroring
        } else {
            ChangeKind::NewlyMissed
        });
    }
    if !all(base, good) && all(new, good) {
        return Some(ChangeKind::Fixed);
    }
    let mut b = base.outcomes.clone();
    let mut n = new.outcomes.clone();
    b.sort();
    n.sort();
    (b != n).then_some(ChangeKind::Changed)
}

/// Every fixture whose outcomes differ between `base` and `new`, sorted by kind, then id.
pub fn fixture_changes<B: Borrow<TrialRecord>, N: Borrow<TrialRecord>>(
    base: impl IntoIterator<Item = B>,
    new: impl IntoIterator<Item = N>,
) -> Vec<FixtureChange> {
    let base_map = by_fixture(base);
    let new_map = by_fixture(new);
    let ids: BTreeSet<&str> = base_map
        .keys()
        .chain(new_map.keys())
        .map(String::as_str)
        .collect();
    let mut changes = Vec::new();
    for id in ids {
        let (b, n) = (base_map.get(id), new_map.get(id));
        let kind = match (b, n) {
            (Some(b), Some(n)) => classify(b, n),
            (None, Some(_)) => Some(ChangeKind::Added),
            (Some(_), None) => Some(ChangeKind::Removed),
            (None, None) => None,
        };
        if let Some(kind) = kind {
            let category = n.or(b).map(|f| f.category.clone()).unwrap_or_default();
            changes.push(FixtureChange {
                fixture: id.to_owned(),
                category,
                kind,
                base: b.map_or("-".into(), |f| show_outcomes(&f.outcomes)),
                new: n.map_or("-".into(), |f| show_outcomes(&f.outcomes)),
            });
        }
    }
    changes.sort_by(|a, b| (a.kind, &a.fixture).cmp(&(b.kind, &b.fixture)));
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(id: &str, golden: bool, outcome: Outcome) -> TrialRecord {
        let mut t = TrialRecord::named(id, "c", golden, 0);
        t.outcome = outcome;
        t
    }

    #[test]
    fn each_kind_of_change_is_named() {
        use Outcome::*;
        let base = vec![
            trial("a", false, Detected),
            trial("b", false, Detected),
            trial("c", true, Passed),
            trial("d", false, WrongReason),
            trial("e", true, Passed),
            trial("f", false, WrongReason),
            trial("g", false, Detected),
            trial("h", false, Detected),
        ];
        let new = vec![
            trial("a", false, FalsePass),
            trial("b", false, WrongReason),
            trial("c", true, FalseAlarm),
            trial("d", false, Detected),
            trial("e", true, Timeout),
            trial("f", false, Error),
            trial("g", false, Detected),
            trial("i", false, Detected),
        ];
        let got: Vec<(String, ChangeKind)> = fixture_changes(&base, &new)
            .into_iter()
            .map(|c| (c.fixture, c.kind))
            .collect();
        let want = [
            ("a", ChangeKind::NewFalsePass),
            ("c", ChangeKind::NewlyAlarmed),
            ("b", ChangeKind::NewlyMissed),
            ("e", ChangeKind::NewlyErroring),
            ("d", ChangeKind::Fixed),
            ("f", ChangeKind::Changed),
            ("i", ChangeKind::Added),
            ("h", ChangeKind::Removed),
        ]
        .map(|(f, k)| (f.to_owned(), k));
        assert_eq!(got, want);
        assert_eq!(
            got.iter().filter(|(_, k)| k.is_regression()).count(),
            4,
            "{got:?}"
        );
    }

    #[test]
    fn a_false_pass_in_one_of_several_trials_is_new_when_none_was_before() {
        use Outcome::*;
        let base = vec![trial("a", false, WrongReason), trial("a", false, Detected)];
        let new = vec![trial("a", false, FalsePass), trial("a", false, Detected)];
        let changes = fixture_changes(&base, &new);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].kind, ChangeKind::NewFalsePass);
        assert_eq!(changes[0].new, "detected, false-pass");
    }
}
