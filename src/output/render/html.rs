//! `report.html`: one self-contained file a person opens. Rendered with minijinja from
//! `templates/report.html`, with Chart.js (vendored under `assets/chart.js/`) inlined, so it works
//! offline: headline figures, per-category recall and false-pass rate with their Wilson
//! intervals, convergence rounds, a fixture table filterable by outcome, and for each failing
//! trial what was planted and what the pipeline said.

use std::collections::BTreeMap;

use minijinja::value::Serde;
use minijinja::{Environment, Value};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::output::render::reported::{self, RoundOne};
use crate::output::render::summary;
use crate::output::store::results::{FixtureInfo, RunResults};
use crate::output::store::trial_logs::{self, Views};
use crate::score::metrics::{Metrics, ThresholdResult};
use crate::score::outcome::{ConvergenceStatus, Outcome};
use crate::score::rate::Rate;
use crate::score::record::TrialRecord;

const TEMPLATE: &str = include_str!("../../../templates/report.html");
/// Chart.js, minified, exactly as published on npm (`assets/chart.js/README.md`).
const CHART_JS: &str = include_str!("../../../assets/chart.js/chart.umd.min.js");

#[derive(Serialize)]
struct Context<'a> {
    scenario: &'a str,
    pipeline: &'a str,
    run_id: &'a str,
    started_at: &'a str,
    duration: String,
    gatebench_version: &'a str,
    fixture_count: u64,
    trial_count: u64,
    trials_per_fixture: u32,
    exit_code: i32,
    shard: Option<String>,
    merged_from: &'a [String],
    all_met: bool,
    figures: Vec<Figure>,
    thresholds: Vec<&'a ThresholdResult>,
    ratchet: Option<&'a crate::score::ratchet::RatchetResult>,
    outcome_counts: Vec<OutcomeCount>,
    /// How many rows the fixture table has (the rows themselves are streamed: `write_to`).
    row_count: usize,
    /// How many trials failed (their details are streamed: `write_to`).
    failing_count: usize,
    chart_data: ChartData,
    /// The verifier-neutral tables (header row first), per category and per kind.
    ground_truth: Vec<Vec<Vec<String>>>,
    noise: String,
    /// With a semantic fixture: the "By tier" table (header row first).
    tiers: Option<Vec<Vec<String>>>,
    /// The trial logs were written beside the report (`trials/<case>/`): rows link to them.
    linked: bool,
    /// Runs with mutants: the mutation score, survivors first (`mutation_html.rs`).
    mutation: Option<crate::output::render::mutation_html::MutationSection>,
}

#[derive(Serialize)]
struct TrialView {
    fixture: String,
    trial: u32,
    outcome: &'static str,
    reason: String,
    /// The trial log folder, relative to the report, when written.
    log: Option<String>,
    attempts: usize,
    rounds: Vec<trial_logs::RoundView>,
}

#[derive(Serialize)]
struct PlantedView {
    description: String,
    golden: Option<String>,
    diff: Option<String>,
    locus: Vec<crate::corpus::model::fixture::LocusEntry>,
    locus_text: Vec<String>,
}

#[derive(Serialize)]
struct Figure {
    label: &'static str,
    value: String,
    detail: String,
    bad: bool,
}

#[derive(Serialize)]
struct Row {
    fixture: String,
    category: String,
    golden: bool,
    trial: u32,
    outcome: &'static str,
    good: bool,
    reason: String,
    rounds: String,
    duration_ms: u64,
    /// The anchor of its failing-trial details, when it failed.
    detail: Option<String>,
    /// Its case id: the trial view is `#trial=<case>`, its log folder `trials/<case>/`.
    case: String,
    /// Its log folder (`trials/<case>/`), when the trial logs were written beside the report.
    log: Option<String>,
    retried: bool,
}

#[derive(Serialize)]
struct Failing {
    anchor: String,
    fixture: String,
    trial: u32,
    category: String,
    outcome: &'static str,
    reason: String,
    description: String,
    golden: Option<String>,
    expected_verdict: String,
    expected: Vec<String>,
    round_one: Option<RoundOne>,
    later_rounds: Vec<String>,
}

#[derive(Serialize)]
struct OutcomeCount {
    outcome: &'static str,
    count: u64,
    good: bool,
}

/// A rate as the charts take it: value and interval, `null` when nothing was measured.
#[derive(Serialize)]
struct ChartRate {
    value: f64,
    low: f64,
    high: f64,
    of: String,
}

fn chart_rate(r: &Option<Rate>) -> Option<ChartRate> {
    let r = (*r)?;
    Some(ChartRate {
        value: r.value?,
        low: r.low,
        high: r.high,
        of: format!("{}/{}", r.numerator, r.denominator),
    })
}

#[derive(Serialize)]
struct ChartData {
    categories: Vec<String>,
    recall: Vec<Option<ChartRate>>,
    false_pass_rate: Vec<Option<ChartRate>>,
    /// First-PASS round buckets (`1`, `2`, ..., `never`) and trial counts in each.
    rounds: Vec<String>,
    as_expected: Vec<u64>,
    off_expectation: Vec<u64>,
}

fn show_rate(r: &Option<Rate>) -> (String, String) {
    match r {
        Some(Rate {
            value: Some(v),
            low,
            high,
            numerator,
            denominator,
        }) => (
            format!("{v:.3}"),
            format!("95% CI [{low:.2}, {high:.2}], {numerator}/{denominator} trials"),
        ),
        _ => ("n/a".into(), "nothing measured".into()),
    }
}

fn figures(m: &Metrics, thresholds: &[ThresholdResult]) -> Vec<Figure> {
    let broken = |name: &str| thresholds.iter().any(|t| t.name == name && !t.met);
    let (fpr, fpr_detail) = show_rate(&m.false_pass_rate);
    let (recall, recall_detail) = show_rate(&m.recall);
    let (far, far_detail) = show_rate(&m.false_alarm_rate);
    vec![
        Figure {
            label: "false-pass rate",
            value: fpr,
            detail: fpr_detail,
            bad: broken("false-pass rate") || m.count(Outcome::FalsePass) > 0,
        },
        Figure {
            label: "recall",
            value: recall,
            detail: recall_detail,
            bad: broken("recall"),
        },
        Figure {
            label: "false-alarm rate",
            value: far,
            detail: far_detail,
            bad: broken("false alarms"),
        },
        Figure {
            label: "localization",
            value: show_rate(&m.ground_truth.localization).0,
            detail: format!(
                "caught omissions with a finding at the locus; {}",
                show_rate(&m.ground_truth.localization).1
            ),
            bad: broken("localization"),
        },
        Figure {
            label: "finding precision",
            value: show_rate(&m.ground_truth.finding_precision).0,
            detail: format!(
                "FAIL-level findings at the locus; 95% CI {}",
                show_rate(&m.ground_truth.finding_precision)
                    .1
                    .trim_start_matches("95% CI ")
            ),
            bad: broken("finding precision"),
        },
        Figure {
            label: "errors and timeouts",
            value: m.errors.to_string(),
            detail: format!("of {} trials", m.trials),
            bad: broken("errors and timeouts"),
        },
        Figure {
            label: "rounds off expectation",
            value: m.rounds_off.to_string(),
            detail: "trials converging at another round than expected".into(),
            bad: broken("rounds off expectation"),
        },
    ]
}

fn rounds_text(t: &TrialRecord) -> String {
    let verdicts: Vec<&str> = t
        .rounds
        .iter()
        .map(|r| r.verdict.map_or("no answer", |v| v.as_str()))
        .collect();
    verdicts.join(" → ")
}

fn anchor(t: &TrialRecord) -> String {
    format!("trial-{}-{}", t.fixture, t.trial)
}

fn chart_data(results: &RunResults) -> ChartData {
    let measured: Vec<(&String, &Metrics)> = results
        .metrics
        .per_category
        .iter()
        .filter(|(_, m)| m.recall.is_some())
        .collect();
    let mut buckets: BTreeMap<(u32, String), (u64, u64)> = BTreeMap::new();
    for t in &results.trials {
        if let Some(c) = &t.convergence {
            let key = c
                .actual
                .map_or((u32::MAX, "never".to_owned()), |r| (r, r.to_string()));
            let entry = buckets.entry(key).or_default();
            if c.status == ConvergenceStatus::AsExpected {
                entry.0 += 1;
            } else {
                entry.1 += 1;
            }
        }
    }
    ChartData {
        categories: measured.iter().map(|(c, _)| (*c).clone()).collect(),
        recall: measured
            .iter()
            .map(|(_, m)| chart_rate(&m.recall))
            .collect(),
        false_pass_rate: measured
            .iter()
            .map(|(_, m)| chart_rate(&m.false_pass_rate))
            .collect(),
        rounds: buckets.keys().map(|(_, k)| k.clone()).collect(),
        as_expected: buckets.values().map(|v| v.0).collect(),
        off_expectation: buckets.values().map(|v| v.1).collect(),
    }
}

/// Renders the run as one self-contained HTML file.
pub fn render(results: &RunResults) -> Result<String> {
    render_with(results, &Views::new(), false)
}

/// Renders the run as one self-contained HTML file, with what each fixture planted (`views`,
/// for the trial view's diff and locus) and, when `linked`, links to the trial log folders: the
/// bytes [`write`] streams into its file.
pub fn render_with(results: &RunResults, views: &Views, linked: bool) -> Result<String> {
    let mut out = Vec::new();
    write_to(&mut out, results, views, linked).map_err(|e| Error::Internal(e.to_string()))?;
    String::from_utf8(out).map_err(|e| Error::Internal(format!("rendering report.html: {e}")))
}

/// Writes `report.html` to `path` atomically, streamed into the file (`write_to`).
pub fn write(
    path: &std::path::Path,
    results: &RunResults,
    views: &Views,
    linked: bool,
) -> Result<()> {
    crate::atomic::write_atomic_with(path, |w| write_to(w, results, views, linked))
}

/// Where the per-trial parts go in the rendered page shell, in document order: each failing
/// trial's details, the fixture table's rows (JSON), and the trial views (JSON). Markers cannot
/// come from the data: the template autoescapes `<`.
const FAILING: &str = "<!--gatebench:failing-->";
const ROWS: &str = "<!--gatebench:rows-->";
const TRIALS: &str = "<!--gatebench:trials-->";

fn internal(what: &str, e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::other(format!("rendering report.html: {what}: {e}"))
}

/// Writes the run as one self-contained HTML file into `out`, streaming what grows with the
/// trials: the page shell (headline, thresholds, charts, the script) is rendered from the
/// template with nothing per trial in it, and between its pieces each failing trial's details
/// (the template's `failing_details` macro, one trial at a time), the table's rows and the trial
/// views (JSON, one trial at a time, `<`, `>` and `&` escaped so that no text can close the
/// `<script>` element they sit in) are written in turn. The page's script builds one page of
/// the table at a time and a trial's view when it is opened.
pub fn write_to(
    out: &mut dyn std::io::Write,
    results: &RunResults,
    views: &Views,
    linked: bool,
) -> std::io::Result<()> {
    // Every character HTML forbids (controls, noncharacters: a finding's title may hold any) is
    // replaced on the way out, whatever part of the page it is in.
    let mut text = crate::output::render::escape::HtmlText::new(out);
    write_page(&mut text, results, views, linked)?;
    text.finish()
}

/// What the page shell is rendered from: everything but the per-trial parts.
fn context(results: &RunResults, linked: bool) -> Context<'_> {
    let m = &results.metrics.overall;
    let outcome_counts: Vec<OutcomeCount> = Outcome::ALL
        .iter()
        .map(|o| OutcomeCount {
            outcome: o.as_str(),
            count: m.count(*o),
            good: o.is_good(),
        })
        .collect();
    let mut thresholds: Vec<&ThresholdResult> = results.thresholds.iter().collect();
    // Broken thresholds first: they are what the reader came for.
    thresholds.sort_by_key(|t| t.met);
    Context {
        scenario: &results.scenario.name,
        pipeline: &results.pipeline,
        run_id: &results.run_id,
        started_at: &results.started_at,
        duration: format!("{:.2}s", results.duration_ms as f64 / 1000.0),
        gatebench_version: &results.gatebench_version,
        fixture_count: m.fixtures,
        trial_count: m.trials,
        trials_per_fixture: results.trial_count,
        exit_code: results.exit_code,
        shard: results
            .shard
            .as_ref()
            .map(|s| format!("{}/{}", s.index, s.count)),
        merged_from: &results.merged_from,
        all_met: results.thresholds.iter().all(|t| t.met),
        figures: figures(m, &results.thresholds),
        thresholds,
        ratchet: results.ratchet.as_ref(),
        outcome_counts,
        row_count: results.trials.len(),
        failing_count: results
            .trials
            .iter()
            .filter(|t| !t.outcome.is_good())
            .count(),
        chart_data: chart_data(results),
        ground_truth: if m.ground_truth.localization.is_some() {
            vec![
                summary::ground_truth_table(results, false).into_rows(),
                summary::ground_truth_table(results, true).into_rows(),
            ]
        } else {
            Vec::new()
        },
        noise: summary::noise_line(m),
        tiers: crate::output::render::tiers::table(&results.metrics).map(|t| t.into_rows()),
        linked,
        mutation: crate::output::render::mutation_html::section(results),
    }
}

/// The fixture table's rows as one JSON array, one trial at a time.
fn write_rows(
    out: &mut dyn std::io::Write,
    results: &RunResults,
    linked: bool,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut json = ScriptJson(out);
    json.write_all(b"[")?;
    for (i, t) in results.trials.iter().enumerate() {
        if i > 0 {
            json.write_all(b",")?;
        }
        let case = trial_logs::case_of(results, &t);
        let row = Row {
            fixture: t.fixture.clone(),
            category: t.category.clone(),
            golden: t.golden,
            trial: t.trial,
            outcome: t.outcome.as_str(),
            good: t.outcome.is_good(),
            reason: t.reason.clone(),
            rounds: rounds_text(&t),
            duration_ms: t.duration_ms,
            detail: (!t.outcome.is_good()).then(|| anchor(&t)),
            log: linked.then(|| format!("{}/{case}/", trial_logs::TRIALS)),
            case,
            retried: t.retried,
        };
        serde_json::to_writer(&mut json, &row).map_err(std::io::Error::other)?;
    }
    json.write_all(b"]")
}

/// [`write_to`]'s page, before the characters HTML forbids are replaced.
fn write_page(
    out: &mut dyn std::io::Write,
    results: &RunResults,
    views: &Views,
    linked: bool,
) -> std::io::Result<()> {
    let mut env = Environment::new();
    env.add_template("report.html", TEMPLATE)
        .map_err(|e| internal("the template", e))?;
    let template = env
        .get_template("report.html")
        .map_err(|e| internal("the template", e))?;
    let mut context = Value::from(Serde(&context(results, linked)));
    // The library is inlined as is: a safe string is not HTML-escaped.
    context = minijinja::context! {
        chart_js => Value::from_safe_string(chart_js().to_owned()),
        ..context
    };
    let mut captured = template
        .render_captured(context)
        .map_err(|e| internal("the page", e))?;
    let shell = captured.output().to_owned();
    let (before_failing, rest) = split_at_marker(&shell, FAILING)?;
    let (before_rows, rest) = split_at_marker(rest, ROWS)?;
    let (before_trials, after) = split_at_marker(rest, TRIALS)?;

    out.write_all(before_failing.as_bytes())?;
    for t in results.trials.iter().filter(|t| !t.outcome.is_good()) {
        let failing = failing(&t, results.fixtures.find(&t.fixture).as_deref(), results);
        let html = captured
            .with_state_mut(|state| {
                state.call_macro("failing_details", &[Value::from(Serde(&failing))])
            })
            .map_err(|e| internal("a failing trial", e))?;
        out.write_all(html.as_bytes())?;
    }
    out.write_all(before_rows.as_bytes())?;
    write_rows(&mut *out, results, linked)?;
    out.write_all(before_trials.as_bytes())?;
    write_trial_views(&mut ScriptJson(&mut *out), results, views, linked)?;
    out.write_all(after.as_bytes())
}

/// The text before `marker` and after it; the marker must be in the page once.
fn split_at_marker<'a>(text: &'a str, marker: &str) -> std::io::Result<(&'a str, &'a str)> {
    let at = text
        .find(marker)
        .ok_or_else(|| internal("the template", format!("no {marker}")))?;
    Ok((&text[..at], &text[at + marker.len()..]))
}

/// JSON inside a `<script>` element: `<`, `>` and `&` written as `\u003c`, `\u003e`, `\u0026`
/// (they only occur inside JSON strings, where those escapes mean the same character), so no
/// text can end the element (`</script>`) or open a comment in it. ASCII bytes never occur
/// inside a multi-byte UTF-8 sequence, so replacing them byte by byte is safe.
struct ScriptJson<'a>(&'a mut dyn std::io::Write);

impl std::io::Write for ScriptJson<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut start = 0;
        for (i, b) in buf.iter().enumerate() {
            let escaped: &[u8] = match b {
                b'<' => b"\\u003c",
                b'>' => b"\\u003e",
                b'&' => b"\\u0026",
                _ => continue,
            };
            self.0.write_all(&buf[start..i])?;
            self.0.write_all(escaped)?;
            start = i + 1;
        }
        self.0.write_all(&buf[start..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// What the trial view (`#trial=<case>`) shows: `{"cases": {case: view}, "fixtures": {id:
/// planted}}`, one trial at a time (its reports read back from the run's objects, written, and
/// dropped).
fn write_trial_views(
    json: &mut ScriptJson<'_>,
    results: &RunResults,
    views: &Views,
    linked: bool,
) -> std::io::Result<()> {
    use std::io::Write;
    json.write_all(b"{\"cases\":{")?;
    for (i, t) in results.trials.iter().enumerate() {
        if i > 0 {
            json.write_all(b",")?;
        }
        let t = &*crate::output::store::objects::resolved(results.objects.as_ref(), &t)
            .map_err(|e| internal("a trial's reports", e))?;
        let case = trial_logs::case_of(results, t);
        let view = TrialView {
            fixture: t.fixture.clone(),
            trial: t.trial,
            outcome: t.outcome.as_str(),
            reason: t.reason.clone(),
            log: linked.then(|| format!("{}/{case}/", trial_logs::TRIALS)),
            attempts: t.attempts.len(),
            rounds: trial_logs::rounds_view(
                t,
                views
                    .get(&t.fixture)
                    .map_err(|e| internal("a fixture's view", e))?
                    .as_ref(),
            ),
        };
        serde_json::to_writer(&mut *json, &case).map_err(std::io::Error::other)?;
        json.write_all(b":")?;
        serde_json::to_writer(&mut *json, &view).map_err(std::io::Error::other)?;
    }
    json.write_all(b"},\"fixtures\":{")?;
    for (i, f) in results.fixtures.iter().enumerate() {
        if i > 0 {
            json.write_all(b",")?;
        }
        let view = views
            .get(&f.id)
            .map_err(|e| internal("a fixture's view", e))?;
        let view = view.as_ref();
        let locus = view.map(|v| v.locus.clone()).unwrap_or_default();
        let planted = PlantedView {
            description: f.description.clone(),
            golden: f.golden.clone(),
            diff: view.and_then(|v| v.planted_diff.clone()),
            locus_text: locus.iter().map(trial_logs::locus_text).collect(),
            locus,
        };
        serde_json::to_writer(&mut *json, &f.id).map_err(std::io::Error::other)?;
        json.write_all(b":")?;
        serde_json::to_writer(&mut *json, &planted).map_err(std::io::Error::other)?;
    }
    json.write_all(b"}}")
}

/// One failing trial's details: what was planted, what the pipeline said.
fn failing(t: &TrialRecord, info: Option<&FixtureInfo>, results: &RunResults) -> Failing {
    Failing {
        anchor: anchor(t),
        fixture: t.fixture.clone(),
        trial: t.trial,
        category: t.category.clone(),
        outcome: t.outcome.as_str(),
        reason: t.reason.clone(),
        description: info.map(|f| f.description.clone()).unwrap_or_default(),
        golden: info.and_then(|f| f.golden.clone()),
        expected_verdict: info
            .map_or("unknown", |f| f.expected_verdict.as_str())
            .to_owned(),
        expected: info
            .map(|f| reported::expected_lines(&f.expected_findings))
            .unwrap_or_default(),
        round_one: reported::round_one(t, results.objects.as_ref()),
        later_rounds: t
            .rounds
            .iter()
            .skip(1)
            .map(|r| {
                format!(
                    "round {}: {}{}",
                    r.round,
                    r.verdict.map_or("no answer", |v| v.as_str()),
                    r.error
                        .as_ref()
                        .map(|e| format!(" ({e})"))
                        .unwrap_or_default()
                )
            })
            .collect(),
    }
}

/// The vendored library without its trailing source-map comment (the map is not shipped).
fn chart_js() -> &'static str {
    let trimmed = CHART_JS.trim_end();
    match trimmed.rfind("\n//# sourceMappingURL=") {
        Some(at) => &trimmed[..at],
        None => trimmed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vendored_chart_library_cannot_close_the_script_element_it_is_inlined_in() {
        assert!(chart_js().starts_with("/*!\n * Chart.js v4."));
        assert!(!chart_js().to_ascii_lowercase().contains("</script"));
        assert!(!chart_js().contains("sourceMappingURL"));
    }

    /// Data that would end the `<script>` element it is embedded in, or open a comment there,
    /// is written escaped, and reads back the same.
    #[test]
    fn embedded_json_cannot_close_the_script_element_it_is_written_into() {
        let text = "a </script><script>alert(1)</script> <!-- & </SCRIPT > é";
        let mut out = Vec::new();
        serde_json::to_writer(ScriptJson(&mut out), &text).unwrap();
        let written = String::from_utf8(out).unwrap();
        assert!(!written.contains('<'), "{written}");
        assert!(!written.contains('>'), "{written}");
        assert!(!written.contains('&'), "{written}");
        assert_eq!(serde_json::from_str::<String>(&written).unwrap(), text);
    }

    /// The page shell has each place the per-trial parts stream into exactly once, in order.
    #[test]
    fn the_page_has_each_streamed_part_once_and_in_order() {
        let at = |marker: &str| {
            assert_eq!(TEMPLATE.matches(marker).count(), 1, "{marker}");
            TEMPLATE.find(marker).unwrap()
        };
        assert!(at(FAILING) < at(ROWS) && at(ROWS) < at(TRIALS));
    }
}
