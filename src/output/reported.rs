//! What the pipeline said in a trial's first round (the round that is scored), in the shape the
//! reporters show it: JUnit failure texts, the HTML report's failing fixtures, `explain`.

use serde::Serialize;

use crate::output::objects::Store;
use crate::score::outcome;
use crate::score::record::TrialRecord;
use gatebench_report::{Finding, Verdict};

/// One finding of the scored round, flattened for display.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportedFinding {
    pub severity: u8,
    pub title: String,
    pub validator: Option<String>,
    /// `path` or `path:line`.
    pub location: Option<String>,
    /// Requirement and obligation ids the finding is about.
    pub about: Vec<String>,
    pub description: String,
    /// 1-based numbers of the expected findings this one met.
    pub meets: Vec<usize>,
}

impl ReportedFinding {
    /// `[8] title (validator) at path:line`.
    pub fn line(&self) -> String {
        let mut s = format!("[{}] {}", self.severity, self.title);
        if let Some(v) = &self.validator {
            s.push_str(&format!(" ({v})"));
        }
        if let Some(l) = &self.location {
            s.push_str(&format!(" at {l}"));
        }
        if !self.meets.is_empty() {
            let n: Vec<String> = self.meets.iter().map(|n| format!("#{n}")).collect();
            s.push_str(&format!(" [meets expected {}]", n.join(", ")));
        }
        s
    }
}

/// The scored round of a trial.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundOne {
    /// `None` when the round gave no usable answer (see `error`).
    pub verdict: Option<Verdict>,
    pub error: Option<String>,
    pub findings: Vec<ReportedFinding>,
    /// Findings in the report that could not be read as findings (a malformed report).
    pub unreadable: usize,
}

fn flatten(index: usize, f: &Finding, trial: &TrialRecord) -> ReportedFinding {
    ReportedFinding {
        severity: f.severity,
        title: f.title.clone(),
        validator: f.validator.clone(),
        location: f.location.as_ref().map(|l| match l.line {
            Some(line) => format!("{}:{line}", l.path),
            None => l.path.clone(),
        }),
        about: [f.requirement_id.clone(), f.obligation_id.clone()]
            .into_iter()
            .flatten()
            .collect(),
        description: f.description.clone(),
        meets: trial
            .matchers
            .iter()
            .enumerate()
            .filter(|(_, m)| m.matched_finding == Some(index))
            .map(|(n, _)| n + 1)
            .collect(),
    }
}

/// The first round of a trial as the pipeline reported it; `None` when no round ran. A report
/// held by reference is read from `objects` (the run's object store).
pub fn round_one(trial: &TrialRecord, objects: Option<&Store>) -> Option<RoundOne> {
    let round = trial.rounds.first()?;
    let mut findings = Vec::new();
    let mut unreadable = 0;
    let mut error = round.error.clone();
    let stored: Option<serde_json::Value> = match (&round.report, &round.report_ref, objects) {
        (None, Some(hash), Some(store)) => match store.get(hash) {
            Ok(value) => Some(value),
            Err(e) => {
                error = Some(format!("the stored report could not be read: {e}"));
                None
            }
        },
        _ => None,
    };
    if let Some(list) = round
        .report
        .as_ref()
        .or(stored.as_ref())
        .and_then(|r| r.get("findings"))
        .and_then(|f| f.as_array())
    {
        for value in list {
            match serde_json::from_value::<Finding>(value.clone()) {
                Ok(f) => findings.push(flatten(findings.len() + unreadable, &f, trial)),
                Err(_) => unreadable += 1,
            }
        }
    }
    Some(RoundOne {
        verdict: round.verdict,
        error,
        findings,
        unreadable,
    })
}

/// What a correct gate must report for a fixture, one line per expected finding.
pub fn expected_lines(matchers: &[crate::corpus::fixture::FindingMatcher]) -> Vec<String> {
    matchers
        .iter()
        .enumerate()
        .map(|(n, m)| format!("#{} {}", n + 1, outcome::describe(m)))
        .collect()
}
