//! Outcomes: what one fixture trial came to, scored against what a correct gate must say
//! (docs/CONCEPTS.md#outcomes), and how its rounds compare with the expected convergence.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::corpus::model::corpus::{Fixture, Matcher};
use crate::corpus::model::fixture::{ExpectedRounds, FindingMatcher};
use crate::score::locus::{self, GroundTruthScore};
use crate::score::typing::KindMap;
use gatebench_report::{Finding, Report, Verdict};

// Its name (`false-pass`) is derived once for `results.json` (serde), the outputs and `list
// --outcome` (strum), in declaration order (`ALL`). Not a doc comment: the results schema would
// carry it.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Outcome {
    /// Omission fixture: FAIL or BLOCKED (caught), with a finding at the locus (localized).
    Detected,
    /// Omission fixture: FAIL or BLOCKED, but no finding at the locus (or not the expected verdict).
    WrongReason,
    /// Omission fixture: PASS. The worst failure of a gate.
    FalsePass,
    /// Golden: PASS.
    Passed,
    /// Golden: FAIL or BLOCKED.
    FalseAlarm,
    /// No usable answer: the pipeline failed, its report was unusable, or the fixture broke.
    Error,
    /// The pipeline did not answer in time.
    Timeout,
}

impl Outcome {
    pub const ALL: &'static [Outcome] = <Outcome as strum::VariantArray>::VARIANTS;

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether the trial is what a correct gate gives.
    pub fn is_good(self) -> bool {
        matches!(self, Outcome::Detected | Outcome::Passed)
    }
}

/// Whether one matcher was met, and by which finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatcherResult {
    pub matcher: FindingMatcher,
    /// Index into the round-1 report's `findings` of the first finding that matched.
    pub matched_finding: Option<usize>,
}

fn matches(m: &Matcher, f: &Finding) -> bool {
    let eq =
        |want: &Option<String>, got: Option<&str>| want.as_deref().is_none_or(|w| got == Some(w));
    eq(&m.spec.validator, f.validator.as_deref())
        && eq(&m.spec.requirement, f.requirement_id.as_deref())
        && eq(&m.spec.obligation, f.obligation_id.as_deref())
        && eq(&m.spec.path, f.location.as_ref().map(|l| l.path.as_str()))
        && m.pattern
            .as_ref()
            .is_none_or(|p| p.is_match(&f.title) || p.is_match(&f.description))
}

/// What one round-1 report came to against the fixture's expectation.
#[derive(Debug, Clone)]
pub struct Scored {
    pub outcome: Outcome,
    pub reason: String,
    pub matchers: Vec<MatcherResult>,
    pub ground_truth: Option<GroundTruthScore>,
}

/// Scores a fixture against the verdict and report of its first round. An omission is `detected`
/// when the verdict is the expected FAIL or BLOCKED (caught) and a finding points at the locus
/// (localized); caught but not localized is `wrong-reason`. With `gate_matchers` (the built-in
/// gate only) the fixture's reference-gate matchers must be met too.
pub fn score(
    fixture: &Fixture,
    verdict: Verdict,
    report: &Report,
    kinds: &KindMap,
    gate_matchers: bool,
) -> Scored {
    let matchers: Vec<MatcherResult> = fixture
        .expect
        .findings
        .iter()
        .map(|m| MatcherResult {
            matcher: m.spec.clone(),
            matched_finding: report.findings.iter().position(|f| matches(m, f)),
        })
        .collect();
    let scored = |outcome, reason: String, ground_truth| Scored {
        outcome,
        reason,
        matchers: matchers.clone(),
        ground_truth,
    };
    let Some(kind) = fixture.expect.kind.filter(|_| !fixture.is_golden()) else {
        return match verdict {
            Verdict::Pass => scored(Outcome::Passed, "the golden passed".into(), None),
            other => {
                let first = report
                    .findings
                    .first()
                    .map(|f| format!(": {}", f.title))
                    .unwrap_or_default();
                scored(
                    Outcome::FalseAlarm,
                    format!(
                        "the golden got {} with {} finding(s){first}",
                        other.as_str(),
                        report.findings.len()
                    ),
                    None,
                )
            }
        };
    };
    let mut ground_truth = locus::score(&report.findings, kind, &fixture.expect.locus, kinds);
    ground_truth.caught = verdict != Verdict::Pass && verdict == fixture.expect.verdict;
    if verdict == Verdict::Pass {
        return scored(
            Outcome::FalsePass,
            "the gate said PASS on a known omission".into(),
            Some(ground_truth),
        );
    }
    if verdict != fixture.expect.verdict {
        return scored(
            Outcome::WrongReason,
            format!(
                "expected verdict {}, got {}",
                fixture.expect.verdict.as_str(),
                verdict.as_str()
            ),
            Some(ground_truth),
        );
    }
    if !ground_truth.localized {
        let locus: Vec<String> = fixture.expect.locus.iter().map(|e| e.describe()).collect();
        return scored(
            Outcome::WrongReason,
            format!(
                "{}, but no finding points at the locus ({})",
                verdict.as_str(),
                locus.join("; ")
            ),
            Some(ground_truth),
        );
    }
    let missing: Vec<String> = matchers
        .iter()
        .filter(|r| r.matched_finding.is_none())
        .map(|r| describe(&r.matcher))
        .collect();
    if gate_matchers && !missing.is_empty() {
        return scored(
            Outcome::WrongReason,
            format!(
                "{} at the locus, but no finding matched {}",
                verdict.as_str(),
                missing.join("; ")
            ),
            Some(ground_truth),
        );
    }
    scored(
        Outcome::Detected,
        format!("{} with a finding at the locus", verdict.as_str()),
        Some(ground_truth),
    )
}

/// A matcher as one line: `validator=task-set-complete path=specs/...`.
pub fn describe(m: &FindingMatcher) -> String {
    let mut parts = Vec::new();
    for (key, value) in [
        ("validator", &m.validator),
        ("requirement", &m.requirement),
        ("obligation", &m.obligation),
        ("path", &m.path),
        ("pattern", &m.pattern),
    ] {
        if let Some(v) = value {
            parts.push(format!("{key}={v}"));
        }
    }
    parts.join(" ")
}

/// How the round at which a trial converged compares with the fixture's expectation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ConvergenceStatus {
    AsExpected,
    /// Converged, but after more rounds than expected.
    Late,
    /// Converged in fewer rounds than expected (or at all, when it was expected never to).
    Early,
    /// Expected to converge, never did within the round limit.
    NeverConverged,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Convergence {
    /// The expected round of the first PASS; `None` means never.
    pub expected: Option<u32>,
    /// The round of the first PASS; `None` means never.
    pub actual: Option<u32>,
    pub status: ConvergenceStatus,
}

/// The convergence of a trial, for fixtures that state an expectation (goldens converge in round
/// 1 implicitly; omission fixtures without fixes state none).
pub fn convergence(fixture: &Fixture, actual: Option<u32>) -> Option<Convergence> {
    let expected = match fixture.expect.rounds {
        Some(ExpectedRounds::After(n)) => Some(n),
        Some(ExpectedRounds::Never) => None,
        None if fixture.is_golden() => Some(1),
        None => return None,
    };
    let status = match (expected, actual) {
        (Some(e), Some(a)) if a == e => ConvergenceStatus::AsExpected,
        (Some(e), Some(a)) if a > e => ConvergenceStatus::Late,
        (Some(_), Some(_)) => ConvergenceStatus::Early,
        (Some(_), None) => ConvergenceStatus::NeverConverged,
        (None, None) => ConvergenceStatus::AsExpected,
        (None, Some(_)) => ConvergenceStatus::Early,
    };
    Some(Convergence {
        expected,
        actual,
        status,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_outcome_has_one_name_in_json_and_in_the_outputs() {
        let names: Vec<&str> = Outcome::ALL.iter().map(|o| o.as_str()).collect();
        assert_eq!(
            names,
            [
                "detected",
                "wrong-reason",
                "false-pass",
                "passed",
                "false-alarm",
                "error",
                "timeout"
            ]
        );
        for o in Outcome::ALL {
            assert_eq!(serde_json::to_value(o).unwrap(), o.as_str());
        }
    }
}
