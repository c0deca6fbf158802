//! Trials and non-determinism: per fixture, whether its k trials were good in all (pass^k), some
//! (flaky) or none; over fixtures, pass^k and pass@1 with Wilson intervals and the rate at which
//! trials of one fixture disagree on the verdict (seed 004's Reviewer Disagreement).
//!
//! An error or a timeout is a trial that was not good: a fixture detected in two trials and timed
//! out in the third is flaky, because its detection cannot be relied on.

use std::borrow::Borrow;
use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::corpus::taxonomy::Kind;
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

/// Trials grouped by fixture as they come, one at a time (a run's trials are read back from its
/// spool one by one): holds one summary per fixture, never the trials.
#[derive(Debug, Default)]
pub struct PerFixture(BTreeMap<String, (FixtureTrials, Option<Kind>)>);

impl PerFixture {
    pub fn add(&mut self, t: &TrialRecord) {
        let (f, _) = match self.0.get_mut(&t.fixture) {
            Some(entry) => entry,
            None => self.0.entry(t.fixture.clone()).or_insert_with(|| {
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
                (f, t.kind)
            }),
        };
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
    }

    /// Every fixture so far, sorted by id, with the kind planted in it.
    pub fn iter(&self) -> impl Iterator<Item = (&FixtureTrials, Option<Kind>)> + Clone {
        self.0.values().map(|(f, kind)| (f, *kind))
    }

    pub fn finish(self) -> Vec<FixtureTrials> {
        self.0.into_values().map(|(f, _)| f).collect()
    }
}

/// Groups trials by fixture (sorted by id).
pub fn per_fixture<T: Borrow<TrialRecord>>(
    trials: impl IntoIterator<Item = T>,
) -> Vec<FixtureTrials> {
    let mut fixtures = PerFixture::default();
    for t in trials {
        fixtures.add(t.borrow());
    }
    fixtures.finish()
}

/// pass^k, pass@1 and disagreement over a set of trials; `None` unless some fixture ran more than
/// once (with one trial each, pass^k is pass@1 and nothing can disagree).
pub fn repeat_metrics<T: Borrow<TrialRecord>>(
    trials: impl IntoIterator<Item = T>,
) -> Option<RepeatMetrics> {
    repeat_of(per_fixture(trials).iter())
}

/// [`repeat_metrics`] from the fixtures' summaries.
pub fn repeat_of<'a>(
    fixtures: impl Iterator<Item = &'a FixtureTrials> + Clone,
) -> Option<RepeatMetrics> {
    let k = fixtures.clone().map(|f| f.trials).max()?;
    if k < 2 {
        return None;
    }
    let count = fixtures.clone().count() as u64;
    let all = fixtures
        .clone()
        .filter(|f| f.consistency == Consistency::All)
        .count() as u64;
    let good: u64 = fixtures.clone().map(|f| f.good).sum();
    let trials: u64 = fixtures.clone().map(|f| f.trials).sum();
    let repeated = fixtures.clone().filter(|f| f.trials > 1);
    let disagree = repeated.clone().filter(|f| f.disagree).count() as u64;
    let flaky_fixtures: Vec<String> = fixtures
        .filter(|f| f.consistency == Consistency::Flaky)
        .map(|f| f.fixture.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    Some(RepeatMetrics {
        k,
        pass_hat_k: Rate::new(all, count),
        pass_at_1: Rate::new(good, trials),
        disagreement: Rate::new(disagree, repeated.count() as u64),
        flaky: flaky_fixtures.len() as u64,
        flaky_fixtures,
    })
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
