//! Scoring a trial from what it recorded: round 1's report against the fixture's expectation,
//! the round of the first PASS against the expected convergence, and the cost of every round.
//! The runner scores a trial it just ran, a cache hit and `gatebench replay` re-score a recorded
//! one, all with this one function, so a recorded run scores exactly as a fresh one would.

use crate::corpus::Fixture;
use crate::score::cost::CostTotal;
use crate::score::outcome::{self, Outcome};
use crate::score::record::TrialRecord;
use gatebench_report::check as report_check;
use gatebench_report::Verdict;

/// Sets `outcome`, `reason`, `matchers`, `convergence`, `cost` and `modified_*` of `record` from
/// its rounds and `harness_error`.
pub fn score(fixture: &Fixture, record: &mut TrialRecord) {
    record.matchers.clear();
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
                    let (o, reason, matchers) = outcome::score(fixture, verdict, &report);
                    record.outcome = o;
                    record.reason = reason;
                    record.matchers = matchers;
                }
                None => {
                    record.outcome = Outcome::Error;
                    record.reason = "the pipeline reported an error".into();
                }
            },
            Err(reason) => {
                record.outcome = Outcome::Error;
                record.reason = reason;
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
