//! The mutation section of `report.html`: the score with its Wilson interval, survivors first
//! (each with what its mutation changed), then tables per operator (score, loop, cost, unviable),
//! per kind and per golden; built from the run's `MutationScore` and its trials.

use serde::Serialize;

use crate::output::store::results::RunResults;
use crate::output::store::trial_logs;
use std::collections::{BTreeMap, BTreeSet};

use crate::output::render::mutation_summary::mean;
use crate::score::mutation::{parts, MutantLoop, MutationScore};
use crate::score::outcome::Outcome;
use crate::score::rate::Rate;

/// What the template's mutation section shows.
#[derive(Serialize)]
pub struct MutationSection {
    pub score: String,
    pub interval: String,
    pub of: String,
    pub perfect: bool,
    pub survivors: Vec<Mutant>,
    pub wrong_reason: Vec<Mutant>,
    pub errors: u64,
    pub loop_line: String,
    pub unviable: String,
    /// (operator, reason, an unviable mutant that gave it).
    pub unviable_reasons: Vec<[String; 3]>,
    pub per_operator: Vec<OperatorRow>,
    /// (kind or golden, rate cells) tables.
    pub per_kind: Vec<RateRow>,
    pub per_golden: Vec<RateRow>,
}

/// A listed mutant: the trial view opens it (`#trial=<case>`), the diff is filled in by the page
/// from the embedded planted diff of `fixture`.
#[derive(Serialize)]
pub struct Mutant {
    pub fixture: String,
    pub case: String,
    pub golden: String,
    pub operator: String,
    pub kind: String,
    pub description: String,
    pub reason: String,
    /// How many of its trials ended this way, of how many.
    pub trials: String,
}

#[derive(Serialize)]
pub struct RateRow {
    pub name: String,
    pub score: String,
    pub interval: String,
    pub of: String,
    pub perfect: bool,
}

#[derive(Serialize)]
pub struct OperatorRow {
    pub rate: RateRow,
    pub as_expected: String,
    pub off: bool,
    pub mean_rounds: String,
    pub rounds_run: u64,
    pub total_ms: u64,
    pub mean_ms: String,
    pub unviable: String,
}

fn rate_row(name: &str, r: &Rate) -> RateRow {
    RateRow {
        name: name.to_owned(),
        score: r.value.map_or("n/a".into(), |v| format!("{v:.3}")),
        interval: format!("[{:.3}, {:.3}]", r.low, r.high),
        of: format!("{}/{}", r.numerator, r.denominator),
        perfect: r.numerator == r.denominator,
    }
}

/// The mutants of `ids` with the trials of `results` that ended in `outcome`.
fn listed(results: &RunResults, ids: &[String], outcome: Outcome) -> Vec<Mutant> {
    /// A listed mutant's trials: the first that ended in `outcome` (its case, kind and reason),
    /// how many did, of how many.
    #[derive(Default)]
    struct Seen {
        first: Option<(String, String, String)>,
        hits: usize,
        trials: usize,
    }
    // One pass over the trials: a weak pipeline's survivors are most of the run's trials.
    let wanted: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    for t in &results.trials {
        if !wanted.contains(t.fixture.as_str()) {
            continue;
        }
        let s = seen.entry(t.fixture.clone()).or_default();
        s.trials += 1;
        if t.outcome == outcome {
            s.hits += 1;
            if s.first.is_none() {
                s.first = Some((
                    trial_logs::case_of(results, &t),
                    t.kind.map_or("?", |k| k.as_str()).to_owned(),
                    t.reason.clone(),
                ));
            }
        }
    }
    ids.iter()
        .filter_map(|id| {
            let s = seen.get(id.as_str())?;
            let (case, kind, reason) = s.first.clone()?;
            let (golden, operator) = parts(id).unwrap_or_default();
            Some(Mutant {
                fixture: id.clone(),
                case,
                golden: golden.to_owned(),
                operator: operator.to_owned(),
                kind,
                description: results
                    .fixtures
                    .find(id)
                    .map_or_else(String::new, |f| f.description.clone()),
                reason,
                trials: format!("{}/{}", s.hits, s.trials),
            })
        })
        .collect()
}

/// The section of a run with mutants; `None` without.
pub fn section(results: &RunResults) -> Option<MutationSection> {
    let m: &MutationScore = results.metrics.mutation.as_ref()?;
    let empty = MutantLoop::default();
    let per_operator = m
        .per_operator
        .iter()
        .map(|(op, r)| {
            let l = m.per_operator_convergence.get(op).unwrap_or(&empty);
            OperatorRow {
                rate: rate_row(op, r),
                as_expected: format!("{}/{}", l.as_expected, l.trials),
                off: l.as_expected < l.trials,
                mean_rounds: mean(l.mean_rounds, 2),
                rounds_run: l.rounds_run,
                total_ms: l.total_ms,
                mean_ms: mean(l.mean_ms, 0),
                unviable: m.unviable.as_ref().map_or_else(
                    || "n/a".to_owned(),
                    |u| u.per_operator.get(op).map_or(0, |o| o.count).to_string(),
                ),
            }
        })
        .collect();
    let unviable_reasons = m
        .unviable
        .iter()
        .flat_map(|u| u.per_operator.iter())
        .flat_map(|(op, o)| {
            o.reasons
                .iter()
                .map(move |r| [op.clone(), r.reason.clone(), r.mutant.clone()])
        })
        .collect();
    let score = rate_row("", &m.score);
    Some(MutationSection {
        score: score.score,
        interval: score.interval,
        of: score.of,
        perfect: score.perfect,
        survivors: listed(results, &m.survivors, Outcome::FalsePass),
        wrong_reason: listed(results, &m.wrong_reason, Outcome::WrongReason),
        errors: m.errors,
        loop_line: crate::output::render::mutation_summary::loop_line(&m.convergence),
        unviable: crate::output::render::mutation_summary::unviable_line(m.unviable.as_ref()),
        unviable_reasons,
        per_operator,
        per_kind: m.per_kind.iter().map(|(k, r)| rate_row(k, r)).collect(),
        per_golden: m.per_golden.iter().map(|(k, r)| rate_row(k, r)).collect(),
    })
}
