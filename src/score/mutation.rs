//! The mutation score: detected over viable mutants run, with Wilson intervals, per operator, per
//! kind and per golden, and the survivors (mutants a pipeline passed), from the trial records.

use std::borrow::Borrow;
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::score::cost::CostTotal;
use crate::score::outcome::{ConvergenceStatus, Outcome};
use crate::score::rate::Rate;
use crate::score::record::TrialRecord;

/// The category prefix of a mutant's trials (`mutant-<family>`).
const PREFIX: &str = "mutant-";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MutationScore {
    /// Detected mutant trials over every mutant trial with a usable answer.
    pub score: Rate,
    pub per_operator: BTreeMap<String, Rate>,
    pub per_kind: BTreeMap<String, Rate>,
    pub per_golden: BTreeMap<String, Rate>,
    /// Mutant ids a pipeline passed (false passes), survivors first in every summary.
    pub survivors: Vec<String>,
    /// Mutant ids caught for another reason or with another verdict (`wrong-reason`).
    pub wrong_reason: Vec<String>,
    /// Mutant trials without a usable answer (errors, timeouts): not in the score.
    pub errors: u64,
    /// The verify, fix, re-verify loop over every mutant trial: rounds to converge against the
    /// expected round, and what the trials cost.
    #[serde(default)]
    pub convergence: MutantLoop,
    /// The same, per operator.
    #[serde(default)]
    pub per_operator_convergence: BTreeMap<String, MutantLoop>,
    /// The mutants generated for the run's selection that were unviable (not run, not in the
    /// score); `None` when the run did not record it (results written before it was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unviable: Option<Unviable>,
}

/// Convergence and cost of a set of mutant trials. Convergence counts the trials with a usable
/// answer (as the score does); time and cost count every trial, errors included: they were paid.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MutantLoop {
    /// Trials with a usable answer and an expected round (every mutant states one).
    pub trials: u64,
    /// Of those, the trials whose first PASS came in the expected round (for a mutant whose fix is
    /// expected to miss, the trials that never passed).
    pub as_expected: u64,
    /// Of those, the trials that reached a PASS at all.
    pub converged: u64,
    /// Mean round of the first PASS over the trials that reached one.
    pub mean_rounds: Option<f64>,
    /// Pipeline rounds run, summed over every trial.
    pub rounds_run: u64,
    /// Every trial, errors included.
    pub all_trials: u64,
    /// Wall time of every trial (materialization, rounds, fixes), summed, in ms.
    pub total_ms: u64,
    /// `total_ms` per trial; `None` without trials.
    pub mean_ms: Option<f64>,
    /// What the pipeline reported it cost (tokens, money), every round and fixer run summed;
    /// unknown where not reported.
    #[serde(default)]
    pub cost: CostTotal,
}

/// A [`MutantLoop`] being summed over trials; its means are set once, by `finish`.
#[derive(Default)]
struct LoopSum {
    sum: MutantLoop,
    /// The first-PASS rounds of the converged trials, summed.
    first_pass_rounds: u64,
}

impl LoopSum {
    fn add(&mut self, t: &TrialRecord) {
        let l = &mut self.sum;
        l.all_trials += 1;
        l.total_ms += t.duration_ms;
        l.rounds_run += t.rounds.len() as u64;
        l.cost.merge(&t.cost);
        if matches!(t.outcome, Outcome::Error | Outcome::Timeout) {
            return;
        }
        let Some(c) = &t.convergence else { return };
        l.trials += 1;
        l.as_expected += u64::from(c.status == ConvergenceStatus::AsExpected);
        if let Some(round) = c.actual {
            l.converged += 1;
            self.first_pass_rounds += u64::from(round);
        }
    }

    fn finish(self) -> MutantLoop {
        let mean = |total: u64, n: u64| (n > 0).then(|| total as f64 / n as f64);
        MutantLoop {
            mean_ms: mean(self.sum.total_ms, self.sum.all_trials),
            mean_rounds: mean(self.first_pass_rounds, self.sum.converged),
            ..self.sum
        }
    }
}

/// Unviable mutants: how many, and per operator how many with a few of their reasons.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Unviable {
    pub count: u64,
    pub per_operator: BTreeMap<String, UnviableOperator>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UnviableOperator {
    pub count: u64,
    /// Up to [`REASONS_KEPT`] distinct reasons, each with the first mutant that gave it.
    pub reasons: Vec<UnviableReason>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UnviableReason {
    pub mutant: String,
    pub reason: String,
}

/// Distinct reasons kept per operator.
pub const REASONS_KEPT: usize = 3;

impl Unviable {
    /// From the unviable mutants' (id, reason), in id order.
    pub fn of<'a>(mutants: impl IntoIterator<Item = (&'a str, &'a str)>) -> Unviable {
        let mut out = Unviable::default();
        for (id, reason) in mutants {
            let operator = parts(id).map_or("?", |(_, o)| o);
            out.count += 1;
            let entry = out.per_operator.entry(operator.to_owned()).or_default();
            entry.count += 1;
            if entry.reasons.len() < REASONS_KEPT
                && !entry.reasons.iter().any(|r| r.reason == reason)
            {
                entry.reasons.push(UnviableReason {
                    mutant: id.to_owned(),
                    reason: reason.to_owned(),
                });
            }
        }
        out
    }
}

/// (golden, operator) of a mutant id `<golden>--<operator>--<site>`.
pub fn parts(id: &str) -> Option<(&str, &str)> {
    let mut it = id.splitn(3, "--");
    Some((it.next()?, it.next()?))
}

/// The mutation score of the mutant trials among `trials`; `None` when there are none.
pub fn of<T: Borrow<TrialRecord>>(trials: impl IntoIterator<Item = T>) -> Option<MutationScore> {
    let mut tally = Tally::default();
    for t in trials {
        tally.add(t.borrow());
    }
    tally.finish()
}

/// The mutation score summed one trial at a time (trials that are not mutants are passed over).
#[derive(Default)]
pub struct Tally {
    all: (u64, u64),
    /// Detected and scored trials by operator, by kind, by golden.
    groups: [BTreeMap<String, (u64, u64)>; 3],
    survivors: Vec<String>,
    wrong_reason: Vec<String>,
    errors: u64,
    convergence: LoopSum,
    per_operator_convergence: BTreeMap<String, LoopSum>,
}

impl Tally {
    pub fn add(&mut self, t: &TrialRecord) {
        if t.golden || !t.category.starts_with(PREFIX) {
            return;
        }
        let operator = parts(&t.fixture).map_or("?", |(_, o)| o);
        self.convergence.add(t);
        self.per_operator_convergence
            .entry(operator.to_owned())
            .or_default()
            .add(t);
        match t.outcome {
            Outcome::Error | Outcome::Timeout => {
                self.errors += 1;
                return;
            }
            Outcome::FalsePass => self.survivors.push(t.fixture.clone()),
            Outcome::WrongReason => self.wrong_reason.push(t.fixture.clone()),
            _ => {}
        }
        let hit = u64::from(t.outcome == Outcome::Detected);
        self.all.0 += hit;
        self.all.1 += 1;
        let (golden, operator) = parts(&t.fixture).unwrap_or(("?", "?"));
        let kind = t.kind.map_or("?", |k| k.as_str());
        for (group, key) in self.groups.iter_mut().zip([operator, kind, golden]) {
            let e = group.entry(key.to_owned()).or_default();
            e.0 += hit;
            e.1 += 1;
        }
    }

    /// `None` when no mutant trial was added.
    pub fn finish(self) -> Option<MutationScore> {
        if self.convergence.sum.all_trials == 0 {
            return None;
        }
        let rates = |g: &BTreeMap<String, (u64, u64)>| {
            g.iter()
                .map(|(k, (d, n))| (k.clone(), Rate::new(*d, *n)))
                .collect()
        };
        let (mut survivors, mut wrong_reason) = (self.survivors, self.wrong_reason);
        survivors.dedup();
        wrong_reason.dedup();
        Some(MutationScore {
            score: Rate::new(self.all.0, self.all.1),
            per_operator: rates(&self.groups[0]),
            per_kind: rates(&self.groups[1]),
            per_golden: rates(&self.groups[2]),
            survivors,
            wrong_reason,
            errors: self.errors,
            convergence: self.convergence.finish(),
            per_operator_convergence: self
                .per_operator_convergence
                .into_iter()
                .map(|(k, l)| (k, l.finish()))
                .collect(),
            unviable: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(id: &str, outcome: Outcome) -> TrialRecord {
        let mut t = TrialRecord::named(id, "mutant-ledger", false, 0);
        t.outcome = outcome;
        t
    }

    #[test]
    fn survivors_are_listed_and_errors_left_out_of_the_score() {
        let trials = vec![
            trial("g--drop-obligation--a", Outcome::Detected),
            trial("g--drop-obligation--b", Outcome::FalsePass),
            trial("g--flip-obligation-status--a", Outcome::Error),
            TrialRecord::named("g", "golden", true, 0),
        ];
        let m = of(&trials).expect("mutant trials");
        assert_eq!((m.score.numerator, m.score.denominator), (1, 2));
        assert_eq!(m.survivors, vec!["g--drop-obligation--b".to_owned()]);
        assert_eq!(m.errors, 1);
        assert_eq!(m.per_operator["drop-obligation"].denominator, 2);
        assert!(!m.per_operator.contains_key("flip-obligation-status"));
        assert!(of(&trials[3..]).is_none());
    }

    fn looped(
        id: &str,
        outcome: Outcome,
        actual: Option<u32>,
        rounds: usize,
        ms: u64,
    ) -> TrialRecord {
        let mut t = trial(id, outcome);
        let expected = Some(2);
        t.convergence = Some(crate::score::outcome::Convergence {
            expected,
            actual,
            status: match actual {
                Some(2) => ConvergenceStatus::AsExpected,
                Some(_) => ConvergenceStatus::Early,
                None => ConvergenceStatus::NeverConverged,
            },
        });
        t.rounds = (1..=rounds as u32)
            .map(|round| {
                serde_json::from_value(serde_json::json!({
                    "round": round, "verdict": null, "timed_out": false,
                    "duration_ms": 0, "findings": 0
                }))
                .expect("a round record")
            })
            .collect();
        t.duration_ms = ms;
        t
    }

    #[test]
    fn convergence_and_cost_are_counted_per_operator_and_errors_only_cost_time() {
        let trials = vec![
            // Caught in round 1, fixed, passed in round 2: the expected loop.
            looped("g--drop-obligation--a", Outcome::Detected, Some(2), 2, 100),
            // Passed at once: a survivor converges early.
            looped("g--drop-obligation--b", Outcome::FalsePass, Some(1), 1, 40),
            // Never passed in three rounds.
            looped("g--delete-log--a", Outcome::Detected, None, 3, 300),
            // No answer: costs its time, not in the convergence counts.
            looped("g--delete-log--b", Outcome::Error, None, 1, 60),
        ];
        let m = of(&trials).expect("mutant trials");
        let drop = &m.per_operator_convergence["drop-obligation"];
        assert_eq!((drop.trials, drop.as_expected, drop.converged), (2, 1, 2));
        assert_eq!(drop.mean_rounds, Some(1.5));
        assert_eq!(
            (drop.rounds_run, drop.total_ms, drop.mean_ms),
            (3, 140, Some(70.0))
        );
        let log = &m.per_operator_convergence["delete-log"];
        assert_eq!((log.trials, log.as_expected, log.converged), (1, 0, 0));
        assert_eq!(log.mean_rounds, None);
        assert_eq!((log.all_trials, log.rounds_run, log.total_ms), (2, 4, 360));
        let all = &m.convergence;
        assert_eq!(
            (all.trials, all.as_expected, all.converged, all.all_trials),
            (3, 1, 2, 4)
        );
        assert_eq!(all.total_ms, 500);
        assert_eq!(all.mean_ms, Some(125.0));
    }

    #[test]
    fn unviable_mutants_are_counted_per_operator_with_distinct_reasons() {
        let u = Unviable::of([
            ("g--edit-approved-artifact--a", "equivalent"),
            ("g--edit-approved-artifact--b", "equivalent"),
            ("h--edit-approved-artifact--a", "does not parse"),
            ("g--unowned-change-staged--x", "equivalent"),
        ]);
        assert_eq!(u.count, 4);
        let edit = &u.per_operator["edit-approved-artifact"];
        assert_eq!(edit.count, 3);
        let reasons: Vec<(&str, &str)> = edit
            .reasons
            .iter()
            .map(|r| (r.mutant.as_str(), r.reason.as_str()))
            .collect();
        assert_eq!(
            reasons,
            [
                ("g--edit-approved-artifact--a", "equivalent"),
                ("h--edit-approved-artifact--a", "does not parse")
            ]
        );
        assert_eq!(u.per_operator["unowned-change-staged"].count, 1);
    }

    #[test]
    fn a_mutation_score_written_before_convergence_and_unviable_were_recorded_still_reads() {
        let m = of(&[trial("g--drop-obligation--a", Outcome::Detected)]).unwrap();
        let mut json = serde_json::to_value(&m).unwrap();
        let object = json.as_object_mut().unwrap();
        object.remove("convergence");
        object.remove("per_operator_convergence");
        object.remove("unviable");
        let back: MutationScore = serde_json::from_value(json).unwrap();
        assert_eq!(back.score, m.score);
        assert_eq!(back.unviable, None);
        assert_eq!(back.convergence, MutantLoop::default());
    }
}
