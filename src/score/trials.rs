//! Trials and non-determinism: per fixture, whether its k trials were good in all (pass^k), some
//! (flaky) or none; over fixtures, pass^k and pass@1 with Wilson intervals and the rate at which
//! trials of one fixture disagree on the verdict (Reviewer Disagreement,
//! docs/CONCEPTS.md#loom-eval-metrics).
//!
//! An error or a timeout is a trial that was not good: a fixture detected in two trials and timed
//! out in the third is flaky, because its detection cannot be relied on.

use std::borrow::Borrow;
use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::corpus::taxonomy::{Kind, Signal, Tier};
use crate::score::cost::CostTotal;
use crate::score::rate::Rate;
use crate::score::record::TrialRecord;

/// How a fixture's trials went together.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Consistency {
    /// Good (detected, or passed for a golden) in every trial: pass^k holds.
    All,
    /// Good in some trials, not all.
    Flaky,
    /// Good in none.
    None,
}

/// One fixture across its trials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FixtureTrials {
    pub fixture: String,
    pub category: String,
    pub golden: bool,
    pub trials: u64,
    /// Trials whose outcome was good (detected, or passed for a golden).
    pub good: u64,
    pub consistency: Consistency,
    /// Round-1 verdicts across trials (`pass`, `fail`, `blocked`, or `none` for no usable answer).
    pub verdicts: BTreeMap<String, u64>,
    /// The trials gave more than one round-1 verdict.
    pub disagree: bool,
    pub cost: CostTotal,
    /// Wall time of its trials, summed.
    pub duration_ms: u64,
}

/// Figures over fixtures that ran more than once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RepeatMetrics {
    /// The most trials any fixture had.
    pub k: u64,
    /// Fixtures good in every one of their trials / fixtures.
    pub pass_hat_k: Rate,
    /// Good trials / trials: the chance that one trial is good.
    pub pass_at_1: Rate,
    /// Fixtures whose trials gave more than one round-1 verdict / fixtures with 2 or more trials.
    pub disagreement: Rate,
    pub flaky: u64,
    /// The flaky fixtures, by id.
    pub flaky_fixtures: Vec<String>,
}

fn verdict_key(t: &TrialRecord) -> String {
    t.rounds
        .first()
        .and_then(|r| r.verdict)
        .map_or_else(|| "none".to_owned(), |v| v.as_str().to_owned())
}

/// Trials grouped by fixture as they come, one at a time, in fixture order (a run's trials are
/// read back from its spool sorted by fixture, then trial): holds the fixture being read, never
/// the trials, and the finished summaries only when asked to keep them (a run of one trial per
/// fixture needs none, and would otherwise hold one per fixture).
#[derive(Debug, Default)]
pub struct PerFixture {
    open: Option<(FixtureTrials, Planted)>,
}

/// What a fixture's trials say was planted in it, beside its category: the groups its metrics
/// are counted in (`metrics.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Planted {
    /// The taxonomy kind (goldens have none).
    pub kind: Option<Kind>,
    pub tier: Tier,
    pub signal: Option<Signal>,
}

impl Planted {
    /// What `t` says was planted.
    pub fn of(t: &TrialRecord) -> Planted {
        Planted {
            kind: t.kind,
            tier: t.tier,
            signal: t.signal,
        }
    }
}

impl PerFixture {
    /// Adds a trial; returns the fixture it closes (with what was planted in it) when it is the
    /// first trial of the next fixture. Trials of one fixture must come together.
    pub fn add(&mut self, t: &TrialRecord) -> Option<(FixtureTrials, Planted)> {
        let closed = match &self.open {
            Some((f, _)) if f.fixture == t.fixture => None,
            Some((f, _)) => {
                debug_assert!(f.fixture < t.fixture, "trials must come in fixture order");
                self.open.take()
            }
            None => None,
        };
        let (f, _) = self.open.get_or_insert_with(|| {
            let f = FixtureTrials {
                fixture: t.fixture.clone(),
                category: t.category.clone(),
                golden: t.golden,
                trials: 0,
                good: 0,
                consistency: Consistency::None,
                verdicts: BTreeMap::new(),
                disagree: false,
                cost: CostTotal::default(),
                duration_ms: 0,
            };
            (f, Planted::of(t))
        });
        f.trials += 1;
        f.good += u64::from(t.outcome.is_good());
        f.consistency = match f.good {
            0 => Consistency::None,
            g if g == f.trials => Consistency::All,
            _ => Consistency::Flaky,
        };
        *f.verdicts.entry(verdict_key(t)).or_default() += 1;
        f.disagree = f.verdicts.len() > 1;
        f.cost.merge(&t.cost);
        f.duration_ms += t.duration_ms;
        closed
    }

    /// The last fixture, once every trial was added.
    pub fn close(&mut self) -> Option<(FixtureTrials, Planted)> {
        self.open.take()
    }
}

/// Groups trials by fixture (sorted by id); trials of one fixture must come together.
pub fn per_fixture<T: Borrow<TrialRecord>>(
    trials: impl IntoIterator<Item = T>,
) -> Vec<FixtureTrials> {
    let mut fixtures = PerFixture::default();
    let mut out: Vec<FixtureTrials> = trials
        .into_iter()
        .filter_map(|t| fixtures.add(t.borrow()))
        .map(|(f, _)| f)
        .collect();
    out.extend(fixtures.close().map(|(f, _)| f));
    out
}

/// pass^k, pass@1 and disagreement over a set of trials; `None` unless some fixture ran more than
/// once (with one trial each, pass^k is pass@1 and nothing can disagree).
pub fn repeat_metrics<T: Borrow<TrialRecord>>(
    trials: impl IntoIterator<Item = T>,
) -> Option<RepeatMetrics> {
    let mut sums = RepeatSums::default();
    for f in per_fixture(trials) {
        sums.add(&f);
    }
    sums.finish()
}

/// [`RepeatMetrics`] summed one fixture at a time (and the fixture count): what a set of
/// fixtures' summaries give, without holding them. Only the flaky fixtures' ids are kept.
#[derive(Debug, Default, Clone)]
pub struct RepeatSums {
    pub fixtures: u64,
    k: u64,
    all: u64,
    good: u64,
    trials: u64,
    repeated: u64,
    disagree: u64,
    flaky: BTreeSet<String>,
}

impl RepeatSums {
    pub fn add(&mut self, f: &FixtureTrials) {
        self.fixtures += 1;
        self.k = self.k.max(f.trials);
        self.all += u64::from(f.consistency == Consistency::All);
        self.good += f.good;
        self.trials += f.trials;
        if f.trials > 1 {
            self.repeated += 1;
            self.disagree += u64::from(f.disagree);
        }
        if f.consistency == Consistency::Flaky {
            self.flaky.insert(f.fixture.clone());
        }
    }

    /// `None` unless some fixture ran more than once.
    pub fn finish(self) -> Option<RepeatMetrics> {
        if self.k < 2 {
            return None;
        }
        let flaky_fixtures: Vec<String> = self.flaky.into_iter().collect();
        Some(RepeatMetrics {
            k: self.k,
            pass_hat_k: Rate::new(self.all, self.fixtures),
            pass_at_1: Rate::new(self.good, self.trials),
            disagreement: Rate::new(self.disagree, self.repeated),
            flaky: flaky_fixtures.len() as u64,
            flaky_fixtures,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::outcome::Outcome;
    use crate::score::record::RoundRecord;
    use gatebench_report::Verdict;

    fn trial(fixture: &str, n: u32, outcome: Outcome, verdict: Option<Verdict>) -> TrialRecord {
        let mut round = RoundRecord::new(1, 1);
        round.verdict = verdict;
        let mut record = TrialRecord::named(fixture, "c", false, n);
        record.outcome = outcome;
        record.rounds = vec![round];
        record
    }

    #[test]
    fn a_fixture_detected_in_some_trials_is_flaky_and_breaks_pass_hat_k() {
        let ts = vec![
            trial("a", 0, Outcome::Detected, Some(Verdict::Fail)),
            trial("a", 1, Outcome::FalsePass, Some(Verdict::Pass)),
            trial("a", 2, Outcome::Detected, Some(Verdict::Fail)),
            trial("b", 0, Outcome::Detected, Some(Verdict::Fail)),
            trial("b", 1, Outcome::Detected, Some(Verdict::Fail)),
            trial("b", 2, Outcome::Detected, Some(Verdict::Fail)),
        ];
        let m = repeat_metrics(&ts).unwrap();
        assert_eq!(m.k, 3);
        assert_eq!((m.pass_hat_k.numerator, m.pass_hat_k.denominator), (1, 2));
        assert_eq!((m.pass_at_1.numerator, m.pass_at_1.denominator), (5, 6));
        assert_eq!(
            (m.disagreement.numerator, m.disagreement.denominator),
            (1, 2)
        );
        assert_eq!(m.flaky_fixtures, vec!["a"]);
    }

    #[test]
    fn a_timeout_among_detections_makes_the_fixture_flaky() {
        let ts = vec![
            trial("a", 0, Outcome::Detected, Some(Verdict::Fail)),
            trial("a", 1, Outcome::Timeout, None),
        ];
        let f = per_fixture(&ts);
        assert_eq!(f[0].consistency, Consistency::Flaky);
        assert!(f[0].disagree);
        assert_eq!(f[0].verdicts.get("none"), Some(&1));
    }

    #[test]
    fn one_trial_per_fixture_has_no_repeat_metrics() {
        let ts = vec![trial("a", 0, Outcome::Detected, Some(Verdict::Fail))];
        assert!(repeat_metrics(&ts).is_none());
    }
}
