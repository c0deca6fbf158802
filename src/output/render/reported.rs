//! What the pipeline said in a trial's first round (the round that is scored), in the shape the
//! reporters show it: JUnit failure texts, the HTML report's failing fixtures, `explain`.

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::output::store::objects::Store;
use crate::score::outcome;
use crate::score::record::TrialRecord;
use gatebench_report::{Finding, Verdict};

/// The most findings of one report any output shows (JUnit, the HTML report, `explain`, a trial's
/// view): the rest are counted and said to be left out. Outputs stay proportionate to what they
/// show: a report of a million findings, under the report size cap, no longer costs gigabytes of
/// memory and a page of a hundred megabytes.
pub const MAX_SHOWN_FINDINGS: usize = 50;
/// The most characters of one text of a finding (its title, description, validator, location)
/// any output shows; past it, the text is cut and says how much was left out.
pub const MAX_SHOWN_CHARS: usize = 2000;

/// `text` as an output shows it: at most [`MAX_SHOWN_CHARS`] characters, then how many more there
/// were.
pub fn shown(text: &str) -> String {
    match text.char_indices().nth(MAX_SHOWN_CHARS) {
        None => text.to_owned(),
        Some((cut, _)) => format!(
            "{}... ({} more characters not shown)",
            &text[..cut],
            text[cut..].chars().count()
        ),
    }
}

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
    /// Findings past the first [`MAX_SHOWN_FINDINGS`], not shown (nor read).
    pub left_out: usize,
}

fn flatten(index: usize, f: &Finding, trial: &TrialRecord) -> ReportedFinding {
    ReportedFinding {
        severity: f.severity,
        title: shown(&f.title),
        validator: f.validator.as_deref().map(shown),
        location: f.location.as_ref().map(|l| match l.line {
            Some(line) => shown(&format!("{}:{line}", l.path)),
            None => shown(&l.path),
        }),
        about: [f.requirement_id.as_deref(), f.obligation_id.as_deref()]
            .into_iter()
            .flatten()
            .map(shown)
            .collect(),
        description: shown(&f.description),
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
/// held by reference is read from `objects` (the run's object store), keeping only its first
/// [`MAX_SHOWN_FINDINGS`] findings: the rest are counted as they are skipped, never built.
pub fn round_one(trial: &TrialRecord, objects: Option<&Store>) -> Option<RoundOne> {
    let round = trial.rounds.first()?;
    let mut error = round.error.clone();
    let listed: Shown = match (&round.report, &round.report_ref, objects) {
        (Some(report), _, _) => Shown::of(report),
        (None, Some(hash), Some(store)) => match store.get::<ShownReport>(hash) {
            Ok(stored) => stored.findings,
            Err(e) => {
                error = Some(format!("the stored report could not be read: {e}"));
                Shown::default()
            }
        },
        _ => Shown::default(),
    };
    let mut findings = Vec::new();
    let mut unreadable = 0;
    for value in listed.first {
        match serde_json::from_value::<Finding>(value) {
            Ok(f) => findings.push(flatten(findings.len() + unreadable, &f, trial)),
            Err(_) => unreadable += 1,
        }
    }
    Some(RoundOne {
        verdict: round.verdict,
        error,
        findings,
        unreadable,
        left_out: listed.more,
    })
}

impl RoundOne {
    /// How many findings the report holds (shown and left out; unreadable ones aside).
    pub fn total(&self) -> usize {
        self.findings.len() + self.left_out
    }
}

/// The part of a report the outputs show: its first findings (as values), and how many more.
#[derive(Debug, Default)]
pub struct Shown {
    pub first: Vec<serde_json::Value>,
    pub more: usize,
}

impl Shown {
    /// The findings of a report held in memory.
    pub fn of(report: &serde_json::Value) -> Shown {
        let list = report
            .get("findings")
            .and_then(|f| f.as_array())
            .map_or(&[][..], Vec::as_slice);
        Shown {
            first: list.iter().take(MAX_SHOWN_FINDINGS).cloned().collect(),
            more: list.len().saturating_sub(MAX_SHOWN_FINDINGS),
        }
    }
}

/// A stored report read for display: `findings` only, streamed (every other key skipped unbuilt).
#[derive(Deserialize)]
struct ShownReport {
    #[serde(default)]
    findings: Shown,
}

impl<'de> Deserialize<'de> for Shown {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Shown, D::Error> {
        d.deserialize_any(ShownVisitor)
    }
}

/// Reads `findings` whatever it holds: an array gives its first values and a count of the rest;
/// anything else (a malformed report) no findings, as `Value::as_array` would.
struct ShownVisitor;

impl<'de> Visitor<'de> for ShownVisitor {
    type Value = Shown;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a list of findings")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shown, A::Error> {
        let mut shown = Shown::default();
        while shown.first.len() < MAX_SHOWN_FINDINGS {
            match seq.next_element::<serde_json::Value>()? {
                Some(v) => shown.first.push(v),
                None => return Ok(shown),
            }
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {
            shown.more += 1;
        }
        Ok(shown)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shown, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Shown::default())
    }

    fn visit_unit<E>(self) -> Result<Shown, E> {
        Ok(Shown::default())
    }

    fn visit_bool<E>(self, _: bool) -> Result<Shown, E> {
        Ok(Shown::default())
    }

    fn visit_i64<E>(self, _: i64) -> Result<Shown, E> {
        Ok(Shown::default())
    }

    fn visit_u64<E>(self, _: u64) -> Result<Shown, E> {
        Ok(Shown::default())
    }

    fn visit_f64<E>(self, _: f64) -> Result<Shown, E> {
        Ok(Shown::default())
    }

    fn visit_str<E>(self, _: &str) -> Result<Shown, E> {
        Ok(Shown::default())
    }
}

/// What a correct gate must report for a fixture, one line per expected finding.
pub fn expected_lines(matchers: &[crate::corpus::model::fixture::FindingMatcher]) -> Vec<String> {
    matchers
        .iter()
        .enumerate()
        .map(|(n, m)| format!("#{} {}", n + 1, outcome::describe(m)))
        .collect()
}
