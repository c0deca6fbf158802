//! Trials and non-determinism: per fixture, whether its k trials were good in all (pass^k), some
//! (flaky) or none; over fixtures, pass^k and pass@1 with Wilson intervals and the rate at which
//! trials of one fixture disagree on the verdict (seed 004's Reviewer Disagreement).
//!
//! An error or a timeout is a trial that was not good: a fixture detected in two trials and timed
//! out in the third is flaky, because its detection cannot be relied on.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

/// Groups trials by fixture (sorted by id).
pub fn per_fixture<'a>(trials: impl IntoIterator<Item = &'a TrialRecord>) -> Vec<FixtureTrials> {
    let mut by_fixture: BTreeMap<&str, Vec<&TrialRecord>> = BTreeMap::new();
    for t in trials {
        by_fixture.entry(&t.fixture).or_default().push(t);
    }
    by_fixture
        .into_values()
        .filter_map(|ts| {
            let first = ts.first()?;
            let good = ts.iter().filter(|t| t.outcome.is_good()).count() as u64;
            let n = ts.len() as u64;
            let mut verdicts = BTreeMap::new();
            let mut cost = CostTotal::default();
            for t in &ts {
                *verdicts.entry(verdict_key(t)).or_default() += 1;
                cost.merge(&t.cost);
            }
            Some(FixtureTrials {
                fixture: first.fixture.clone(),
                category: first.category.clone(),
                golden: first.golden,
                trials: n,
                good,
                consistency: match good {
                    0 => Consistency::None,
                    g if g == n => Consistency::All,
                    _ => Consistency::Flaky,
                },
                disagree: verdicts.len() > 1,
                verdicts,
                cost,
                duration_ms: ts.iter().map(|t| t.duration_ms).sum(),
            })
        })
        .collect()
}

/// pass^k, pass@1 and disagreement over a set of trials; `None` unless some fixture ran more than
/// once (with one trial each, pass^k is pass@1 and nothing can disagree).
pub fn repeat_metrics<'a>(
    trials: impl IntoIterator<Item = &'a TrialRecord>,
) -> Option<RepeatMetrics> {
    let fixtures = per_fixture(trials);
    let k = fixtures.iter().map(|f| f.trials).max()?;
    if k < 2 {
        return None;
    }
    let all = fixtures
        .iter()
        .filter(|f| f.consistency == Consistency::All)
        .count() as u64;
    let good: u64 = fixtures.iter().map(|f| f.good).sum();
    let trials: u64 = fixtures.iter().map(|f| f.trials).sum();
    let repeated: Vec<&FixtureTrials> = fixtures.iter().filter(|f| f.trials > 1).collect();
    let disagree = repeated.iter().filter(|f| f.disagree).count() as u64;
    let flaky_fixtures: Vec<String> = fixtures
        .iter()
        .filter(|f| f.consistency == Consistency::Flaky)
        .map(|f| f.fixture.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    Some(RepeatMetrics {
        k,
        pass_hat_k: Rate::new(all, fixtures.len() as u64),
        pass_at_1: Rate::new(good, trials),
        disagreement: Rate::new(disagree, repeated.len() as u64),
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
