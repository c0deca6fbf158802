//! Outcomes: what one fixture trial came to, scored against what a correct gate must say
//! (DESIGN.md's table), and how its rounds compare with the expected convergence.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::corpus::fixture::{ExpectedRounds, FindingMatcher};
use crate::corpus::loader::{Fixture, Matcher};
use gatebench_report::{Finding, Report, Verdict};

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Omission fixture: FAIL or BLOCKED, with the expected findings.
    Detected,
    /// Omission fixture: FAIL or BLOCKED, but not for the planted omission (or not the expected verdict).
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
    pub const ALL: [Outcome; 7] = [
        Outcome::Detected,
        Outcome::WrongReason,
        Outcome::FalsePass,
        Outcome::Passed,
        Outcome::FalseAlarm,
        Outcome::Error,
        Outcome::Timeout,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Detected => "detected",
            Outcome::WrongReason => "wrong-reason",
            Outcome::FalsePass => "false-pass",
            Outcome::Passed => "passed",
            Outcome::FalseAlarm => "false-alarm",
            Outcome::Error => "error",
            Outcome::Timeout => "timeout",
        }
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

/// Scores a fixture against the verdict and report of its first round.
pub fn score(
    fixture: &Fixture,
    verdict: Verdict,
    report: &Report,
) -> (Outcome, String, Vec<MatcherResult>) {
    let results: Vec<MatcherResult> = fixture
        .expect
        .findings
        .iter()
        .map(|m| MatcherResult {
            matcher: m.spec.clone(),
            matched_finding: report.findings.iter().position(|f| matches(m, f)),
        })
        .collect();
    if fixture.is_golden() {
        return match verdict {
            Verdict::Pass => (Outcome::Passed, "the golden passed".into(), results),
            other => {
                let first = report
                    .findings
                    .first()
                    .map(|f| format!(": {}", f.title))
                    .unwrap_or_default();
                (
                    Outcome::FalseAlarm,
                    format!(
                        "the golden got {} with {} finding(s){first}",
                        other.as_str(),
                        report.findings.len()
                    ),
                    results,
                )
            }
        };
    }
    if verdict == Verdict::Pass {
        return (
            Outcome::FalsePass,
            "the gate said PASS on a known omission".into(),
            results,
        );
    }
    let missing: Vec<String> = results
        .iter()
        .filter(|r| r.matched_finding.is_none())
        .map(|r| describe(&r.matcher))
        .collect();
    if verdict != fixture.expect.verdict {
        return (
            Outcome::WrongReason,
            format!(
                "expected verdict {}, got {}",
                fixture.expect.verdict.as_str(),
                verdict.as_str()
            ),
            results,
        );
    }
    if missing.is_empty() {
        (
            Outcome::Detected,
            format!("{} with the expected finding(s)", verdict.as_str()),
            results,
        )
    } else {
        (
            Outcome::WrongReason,
            format!(
                "{}, but no finding matched {}",
                verdict.as_str(),
                missing.join("; ")
            ),
            results,
        )
    }
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
