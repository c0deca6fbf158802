//! Scoring a trial from what it recorded: round 1's report against the fixture's expectation,
//! the round of the first PASS against the expected convergence, and the cost of every round.
//! The runner scores a trial it just ran, a cache hit and `gatebench replay` re-score a recorded
//! one, all with this one function, so a recorded run scores exactly as a fresh one would.

use crate::corpus::Fixture;
use crate::score::cost::CostTotal;
use crate::score::locus;
use crate::score::outcome::{self, Outcome};
use crate::score::record::TrialRecord;
use crate::score::typing::KindMap;
use gatebench_report::check as report_check;
use gatebench_report::Verdict;

/// How a run scores: the pipeline's mapping onto the taxonomy, and whether the fixtures'
/// reference-gate matchers apply (the built-in gate only).
#[derive(Debug, Clone, Default)]
pub struct Scoring {
    pub kinds: KindMap,
    pub gate_matchers: bool,
}

/// Sets `outcome`, `reason`, `matchers`, `ground_truth`, `fail_findings`, `convergence`, `cost`
/// and `modified_*` of `record` from its rounds and `harness_error`.
pub fn score(fixture: &Fixture, scoring: &Scoring, record: &mut TrialRecord) {
    record.matchers.clear();
    record.ground_truth = None;
    record.fail_findings = None;
    record.kind = fixture.expect.kind;
    record.convergence = None;
    let mut cost = CostTotal::default();
    let mut modified: Vec<String> = Vec::new();
    for round in &record.rounds {
        cost.add(round.cost.as_ref());
        if round.fixer.is_some() {
            cost.add(round.fix_cost.as_ref());
        }
        modified.extend(round.modified_paths.iter().cloned());
    }
    modified.sort();
    modified.dedup();
    record.cost = cost;
    record.modified_repo = !modified.is_empty();
    record.modified_paths = modified;

    if let Some(reason) = &record.harness_error {
        record.outcome = Outcome::Error;
        record.reason = reason.clone();
        return;
    }
    debug_assert!(
        !fixture.is_slim(),
        "{} scored against a slim fixture (no locus, no matchers): load it in full",
        fixture.id
    );
    let Some(first) = record.rounds.first() else {
        record.outcome = Outcome::Error;
        record.reason = "the trial did not run".into();
        return;
    };
    match (&first.error, &first.report) {
        (Some(reason), _) => {
            record.outcome = if first.timed_out {
                Outcome::Timeout
            } else {
                Outcome::Error
            };
            record.reason = reason.clone();
        }
        (None, Some(value)) => match report_check::check_value(value.clone()) {
            Ok((report, _)) => match report.verdict() {
                Some(verdict) => {
                    let scored = outcome::score(
                        fixture,
                        verdict,
                        &report,
                        &scoring.kinds,
                        scoring.gate_matchers,
                    );
                    record.outcome = scored.outcome;
                    record.reason = scored.reason;
                    record.matchers = scored.matchers;
                    record.ground_truth = scored.ground_truth;
                    record.fail_findings = Some(locus::fail_level(&report.findings).count() as u32);
                }
                None => {
                    record.outcome = Outcome::Error;
                    record.reason = "the pipeline reported an error".into();
                }
            },
            Err(reason) => {
                record.outcome = Outcome::Error;
                record.reason = reason.to_string();
            }
        },
        (None, None) => {
            record.outcome = Outcome::Error;
            record.reason = "round 1 recorded neither a report nor an error".into();
        }
    }
    let converged_at = record
        .rounds
        .iter()
        .find(|r| r.verdict == Some(Verdict::Pass))
        .map(|r| r.round);
    record.convergence = outcome::convergence(fixture, converged_at);
}
