//! `junit.xml` (quick-junit), so any CI test viewer shows a run: one test suite per category, one
//! test case per fixture trial (`classname` = category, `name` = `fixture [trial]`), failures
//! carrying the reason; and a `thresholds` suite with one case per threshold.

use std::collections::BTreeMap;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::error::{Error, Result};
use crate::output::objects::Store;
use crate::output::reported;
use crate::output::results::{FixtureInfo, RunResults};
use crate::output::trial_logs;
use crate::score::outcome::Outcome;
use crate::score::record::TrialRecord;

fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// The failure text: what was expected, what round 1 reported, and how the rounds went.
fn description(
    trial: &TrialRecord,
    fixture: Option<&FixtureInfo>,
    objects: Option<&Store>,
) -> String {
    let mut lines = Vec::new();
    if let Some(f) = fixture {
        lines.push(format!("planted: {}", f.description));
        lines.push(format!("expected: {}", f.expected_verdict.as_str()));
        lines.extend(
            reported::expected_lines(&f.expected_findings)
                .into_iter()
                .map(|l| format!("  {l}")),
        );
    }
    if let Some(r) = reported::round_one(trial, objects) {
        match (r.verdict, &r.error) {
            (Some(v), _) => lines.push(format!(
                "round 1: {} with {} finding(s)",
                v.as_str(),
                r.findings.len()
            )),
            (None, Some(e)) => lines.push(format!("round 1: no usable answer: {e}")),
            (None, None) => lines.push("round 1: no usable answer".into()),
        }
        lines.extend(r.findings.iter().map(|f| format!("  {}", f.line())));
        if r.unreadable > 0 {
            lines.push(format!("  ({} finding(s) could not be read)", r.unreadable));
        }
    }
    for round in trial.rounds.iter().skip(1) {
        let verdict = round.verdict.map_or("no answer", |v| v.as_str());
        lines.push(format!("round {}: {verdict}", round.round));
    }
    lines.join("\n")
}

/// One trial as a test case (`name` = `fixture [trial]`, `classname` = category); `log` is the
/// trial's log folder, named in `system-out`.
pub fn case(
    trial: &TrialRecord,
    fixture: Option<&FixtureInfo>,
    log: Option<String>,
    objects: Option<&Store>,
) -> TestCase {
    let status = match trial.outcome {
        Outcome::Detected | Outcome::Passed => TestCaseStatus::success(),
        other => {
            let kind = match other {
                Outcome::Error | Outcome::Timeout => NonSuccessKind::Error,
                _ => NonSuccessKind::Failure,
            };
            let mut status = TestCaseStatus::non_success(kind);
            status
                .set_type(other.as_str())
                .set_message(format!("{}: {}", other.as_str(), trial.reason))
                .set_description(description(trial, fixture, objects));
            status
        }
    };
    let mut case = TestCase::new(format!("{} [{}]", trial.fixture, trial.trial), status);
    case.set_classname(trial.category.clone())
        .set_time(ms(trial.duration_ms));
    let mut out: Vec<String> = fixture.map(|f| f.description.clone()).into_iter().collect();
    if let Some(dir) = log {
        out.push(format!("trial log: {dir}/ (relative to the run folder)"));
    }
    if !out.is_empty() {
        case.set_system_out(out.join("\n"));
    }
    case
}

/// Renders the run as JUnit XML.
pub fn render(results: &RunResults) -> Result<String> {
    render_linked(results, false)
}

/// Renders the run as JUnit XML; with `linked`, each case's `system-out` names its trial log
/// folder (`trials/<case>`, `trial_logs.rs`).
pub fn render_linked(results: &RunResults, linked: bool) -> Result<String> {
    report(results, linked)
        .to_string()
        .map_err(|e| Error::Internal(format!("rendering junit.xml: {e}")))
}

/// Writes the run as JUnit XML to `path` atomically, serialized straight into the file (no copy
/// of the whole text in memory); `linked` as for [`render_linked`].
pub fn write(path: &std::path::Path, results: &RunResults, linked: bool) -> Result<()> {
    let report = report(results, linked);
    crate::output::atomic::write_atomic_with(path, |w| {
        report.serialize(w).map_err(std::io::Error::other)
    })
}

fn report(results: &RunResults, linked: bool) -> Report {
    let fixtures: BTreeMap<&str, &FixtureInfo> = results
        .fixtures
        .iter()
        .map(|f| (f.id.as_str(), f))
        .collect();
    let mut by_category: BTreeMap<&str, Vec<&TrialRecord>> = BTreeMap::new();
    for t in &results.trials {
        by_category.entry(t.category.as_str()).or_default().push(t);
    }
    let mut report = Report::new(format!("gatebench {}", results.scenario.name));
    report.set_time(ms(results.duration_ms));
    for (category, trials) in by_category {
        let mut suite = TestSuite::new(category);
        suite.set_time(ms(trials.iter().map(|t| t.duration_ms).sum()));
        suite.add_test_cases(trials.iter().map(|t| {
            let log = linked
                .then(|| format!("{}/{}", trial_logs::TRIALS, trial_logs::case_of(results, t)));
            case(
                t,
                fixtures.get(t.fixture.as_str()).copied(),
                log,
                results.objects.as_ref(),
            )
        }));
        report.add_test_suite(suite);
    }
    let mut thresholds = TestSuite::new("thresholds");
    thresholds.add_test_cases(results.thresholds.iter().map(|t| {
        let status = if t.met {
            TestCaseStatus::success()
        } else {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_type("threshold")
                .set_message(format!("{}: {} (bar {})", t.name, t.figure, t.bar));
            s
        };
        let mut case = TestCase::new(t.name.clone(), status);
        case.set_classname("thresholds");
        case
    }));
    report.add_test_suite(thresholds);
    report
}
