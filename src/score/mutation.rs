//! The mutation score: detected over viable mutants run, with Wilson intervals, per operator, per
//! kind and per golden, and the survivors (mutants a pipeline passed), from the trial records.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::score::outcome::Outcome;
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
}

/// (golden, operator) of a mutant id `<golden>--<operator>--<site>`.
fn parts(id: &str) -> Option<(&str, &str)> {
    let mut it = id.splitn(3, "--");
    Some((it.next()?, it.next()?))
}

/// The mutation score of the mutant trials among `trials`; `None` when there are none.
pub fn of(trials: &[TrialRecord]) -> Option<MutationScore> {
    let mutants: Vec<&TrialRecord> = trials
        .iter()
        .filter(|t| !t.golden && t.category.starts_with(PREFIX))
        .collect();
    if mutants.is_empty() {
        return None;
    }
    let mut all = (0, 0);
    let mut groups: [BTreeMap<String, (u64, u64)>; 3] = Default::default();
    let (mut survivors, mut wrong_reason, mut errors) = (Vec::new(), Vec::new(), 0);
    for t in mutants {
        match t.outcome {
            Outcome::Error | Outcome::Timeout => {
                errors += 1;
                continue;
            }
            Outcome::FalsePass => survivors.push(t.fixture.clone()),
            Outcome::WrongReason => wrong_reason.push(t.fixture.clone()),
            _ => {}
        }
        let hit = u64::from(t.outcome == Outcome::Detected);
        all.0 += hit;
        all.1 += 1;
        let (golden, operator) = parts(&t.fixture).unwrap_or(("?", "?"));
        let kind = t.kind.map_or("?", |k| k.as_str());
        for (group, key) in groups.iter_mut().zip([operator, kind, golden]) {
            let e = group.entry(key.to_owned()).or_default();
            e.0 += hit;
            e.1 += 1;
        }
    }
    let rates = |g: &BTreeMap<String, (u64, u64)>| {
        g.iter()
            .map(|(k, (d, n))| (k.clone(), Rate::new(*d, *n)))
            .collect()
    };
    survivors.dedup();
    wrong_reason.dedup();
    Some(MutationScore {
        score: Rate::new(all.0, all.1),
        per_operator: rates(&groups[0]),
        per_kind: rates(&groups[1]),
        per_golden: rates(&groups[2]),
        survivors,
        wrong_reason,
        errors,
    })
}

/// The mutation section of the summaries (terminal and markdown): score, survivors first, then
/// the operators below 1.0.
pub fn summary_lines(m: &MutationScore) -> Vec<String> {
    let pct = |r: &Rate| {
        format!(
            "{}/{} = {:.3} [{:.3}, {:.3}]",
            r.numerator,
            r.denominator,
            r.value.unwrap_or(0.0),
            r.low,
            r.high
        )
    };
    let mut out = vec![format!("Mutation score: {}", pct(&m.score))];
    out.push(format!(
        "Survivors (passed by the pipeline): {}",
        m.survivors.len()
    ));
    out.extend(m.survivors.iter().map(|s| format!("  - {s}")));
    if !m.wrong_reason.is_empty() {
        out.push(format!(
            "Not localized (wrong reason): {}",
            m.wrong_reason.len()
        ));
        out.extend(m.wrong_reason.iter().map(|s| format!("  - {s}")));
    }
    if m.errors > 0 {
        out.push(format!("Mutant trials without an answer: {}", m.errors));
    }
    for (name, group) in [("operator", &m.per_operator), ("golden", &m.per_golden)] {
        let below: Vec<String> = group
            .iter()
            .filter(|(_, r)| r.numerator < r.denominator)
            .map(|(k, r)| format!("  - {k}: {}", pct(r)))
            .collect();
        out.push(format!(
            "Per {name}: {} of {} at 1.0{}",
            group.len() - below.len(),
            group.len(),
            if below.is_empty() { "" } else { "; below:" }
        ));
        out.extend(below);
    }
    out
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
}
