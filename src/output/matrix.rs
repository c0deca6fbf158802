//! A matrix run's own outputs (`pipelines:`): `matrix.json` (each pipeline's headline rates, and
//! each pair's differences with Newcombe 95% intervals), and, rendered from it and the
//! pipelines' results, the terminal table, `summary.md`, `junit.xml` (a suite per pipeline) and a
//! self-contained `report.html`, all showing the pipelines side by side.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

use minijinja::Environment;
use quick_junit::{Report, TestSuite};

use crate::output::escape;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::atomic;
use crate::error::{Error, Result};
use crate::output::compare::{rates, show_rate};
use crate::output::junit;
use crate::output::results::RunResults;
use crate::output::trial_logs;
use crate::score::changes::{fixture_changes, FixtureChange};
use crate::score::metrics::{Metrics, ThresholdResult};
use crate::score::outcome::Outcome;
use crate::score::rate::{difference_interval, Rate};

/// The version of `matrix.json`'s shape.
pub const SCHEMA_VERSION: u32 = 1;
/// The folder, in a matrix run's folder, that holds one complete run folder per pipeline.
pub const PIPELINES: &str = "pipelines";
/// The files a matrix run writes beside `pipelines/`.
pub const FILES: [&str; 4] = ["matrix.json", "summary.md", "junit.xml", "report.html"];

const TEMPLATE: &str = include_str!("../../templates/matrix.html");

/// `matrix.json`: what a matrix run found, pipeline by pipeline and pair by pair. Each
/// pipeline's full record is its own `pipelines/<name>/results.json`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MatrixResults {
    pub schema_version: u32,
    pub gatebench_version: String,
    pub run_id: String,
    pub scenario: String,
    pub scenario_file: String,
    /// RFC 3339.
    pub started_at: String,
    pub duration_ms: u64,
    /// The worst of the pipelines' exit codes, by the usual precedence (`exit_code.rs`).
    pub exit_code: i32,
    pub pipelines: Vec<PipelineSummary>,
    /// Every pair (earlier pipeline as base, later as new), differences `new - base`.
    pub pairs: Vec<PairDifferences>,
}

/// One pipeline of the matrix.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PipelineSummary {
    /// The name the scenario gives it.
    pub name: String,
    /// What ran (`builtin`, `legacy`, `command ...`).
    pub pipeline: String,
    /// Its run folder, relative to the matrix run's folder (`pipelines/<name>`).
    pub dir: String,
    pub run_id: String,
    /// Its own exit code: its thresholds judged against its trials.
    pub exit_code: i32,
    pub thresholds: Vec<ThresholdResult>,
    pub fixtures: u64,
    pub trials: u64,
    pub outcomes: BTreeMap<Outcome, u64>,
    pub errors: u64,
    pub rounds_off: u64,
    pub overall: Headline,
    pub per_category: BTreeMap<String, Headline>,
    /// Omission trials by the planted taxonomy kind.
    pub per_kind: BTreeMap<String, Headline>,
}

/// The headline rates of a set of trials, with Wilson 95% intervals (`None`: nothing measured).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Headline {
    pub false_pass_rate: Option<Rate>,
    pub recall: Option<Rate>,
    pub false_alarm_rate: Option<Rate>,
    pub localization: Option<Rate>,
    pub typing: Option<Rate>,
    pub finding_precision: Option<Rate>,
    pub requirement_recall: Option<Rate>,
    pub obligation_recall: Option<Rate>,
}

impl Headline {
    pub fn of(m: &Metrics) -> Headline {
        let [fp, recall, fa, loc, typing, prec, req, obl] = rates(m).map(|(_, r)| r);
        Headline {
            false_pass_rate: fp,
            recall,
            false_alarm_rate: fa,
            localization: loc,
            typing,
            finding_precision: prec,
            requirement_recall: req,
            obligation_recall: obl,
        }
    }

    /// (name as shown, rate), in the order every table shows them.
    pub fn named(&self) -> [(&'static str, Option<Rate>); 8] {
        [
            ("false-pass rate", self.false_pass_rate),
            ("recall", self.recall),
            ("false-alarm rate", self.false_alarm_rate),
            ("localization", self.localization),
            ("typing", self.typing),
            ("finding precision", self.finding_precision),
            ("requirement recall", self.requirement_recall),
            ("obligation recall", self.obligation_recall),
        ]
    }
}

/// Two pipelines compared on the same fixtures.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PairDifferences {
    pub base: String,
    pub new: String,
    pub overall: Vec<RateDifference>,
    /// Per category, every rate measured in both.
    pub per_category: BTreeMap<String, Vec<RateDifference>>,
    pub per_kind: BTreeMap<String, Vec<RateDifference>>,
    /// Fixtures whose outcomes differ between the two (as `compare` lists them: `new` against
    /// `base`).
    pub fixtures: Vec<FixtureChange>,
}

/// One rate in both pipelines and `new - base` with Newcombe's hybrid score 95% interval
/// (`rate.rs`); the difference is absent unless both measured the rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RateDifference {
    pub rate: String,
    pub base: Option<Rate>,
    pub new: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<Difference>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Difference {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

fn differences(base: &Headline, new: &Headline) -> Vec<RateDifference> {
    base.named()
        .into_iter()
        .zip(new.named())
        .map(|((rate, b), (_, n))| RateDifference {
            rate: rate.to_owned(),
            base: b,
            new: n,
            difference: b
                .zip(n)
                .and_then(|(b, n)| difference_interval(&b, &n))
                .map(|(value, low, high)| Difference { value, low, high }),
        })
        .collect()
}

/// Per group present in both, the differences of the rates measured in both.
fn group_differences(
    base: &BTreeMap<String, Headline>,
    new: &BTreeMap<String, Headline>,
) -> BTreeMap<String, Vec<RateDifference>> {
    base.iter()
        .filter_map(|(group, b)| {
            let n = new.get(group)?;
            let measured: Vec<RateDifference> = differences(b, n)
                .into_iter()
                .filter(|d| d.difference.is_some())
                .collect();
            (!measured.is_empty()).then(|| (group.clone(), measured))
        })
        .collect()
}

fn summary_of(name: &str, results: &RunResults) -> PipelineSummary {
    let m = &results.metrics;
    let headlines = |groups: &BTreeMap<String, Metrics>| {
        groups
            .iter()
            .map(|(k, v)| (k.clone(), Headline::of(v)))
            .collect()
    };
    PipelineSummary {
        name: name.to_owned(),
        pipeline: results.pipeline.clone(),
        dir: format!("{PIPELINES}/{name}"),
        run_id: results.run_id.clone(),
        exit_code: results.exit_code,
        thresholds: results.thresholds.clone(),
        fixtures: m.overall.fixtures,
        trials: m.overall.trials,
        outcomes: m.overall.outcomes.clone(),
        errors: m.overall.errors,
        rounds_off: m.overall.rounds_off,
        overall: Headline::of(&m.overall),
        per_category: headlines(&m.per_category),
        per_kind: headlines(&m.per_kind),
    }
}

/// What describes the matrix run itself (the rest is computed from the pipelines' results).
#[derive(Debug, Clone)]
pub struct MatrixRun {
    pub run_id: String,
    pub scenario: String,
    pub scenario_file: String,
    pub started_at: String,
    pub duration_ms: u64,
}

/// The matrix of `runs` (name, results), in the scenario's order.
pub fn build(run: MatrixRun, runs: &[(String, &RunResults)]) -> MatrixResults {
    let pipelines: Vec<PipelineSummary> = runs
        .iter()
        .map(|(name, results)| summary_of(name, results))
        .collect();
    let mut pairs = Vec::new();
    for (i, (base_name, base)) in runs.iter().enumerate() {
        for (new_name, new) in runs.iter().skip(i + 1) {
            let (b, n) = (&pipelines[i], summary_named(&pipelines, new_name));
            pairs.push(PairDifferences {
                base: base_name.clone(),
                new: new_name.clone(),
                overall: differences(&b.overall, &n.overall),
                per_category: group_differences(&b.per_category, &n.per_category),
                per_kind: group_differences(&b.per_kind, &n.per_kind),
                fixtures: fixture_changes(&base.trials, &new.trials),
            });
        }
    }
    let thresholds: Vec<ThresholdResult> = runs
        .iter()
        .flat_map(|(_, r)| r.thresholds.iter().cloned())
        .collect();
    MatrixResults {
        schema_version: SCHEMA_VERSION,
        gatebench_version: env!("CARGO_PKG_VERSION").to_owned(),
        run_id: run.run_id,
        scenario: run.scenario,
        scenario_file: run.scenario_file,
        started_at: run.started_at,
        duration_ms: run.duration_ms,
        exit_code: crate::score::metrics::exit_code_of(&thresholds),
        pipelines,
        pairs,
    }
}

fn summary_named<'a>(pipelines: &'a [PipelineSummary], name: &str) -> &'a PipelineSummary {
    pipelines
        .iter()
        .find(|p| p.name == name)
        .expect("every run has a summary")
}

/// Reads a `matrix.json`.
pub fn read(path: &Path) -> Result<MatrixResults> {
    let text = crate::corpus::yaml::read_text(path)?;
    serde_json::from_str(&text).map_err(|e| {
        Error::invalid_at(
            path,
            Some(crate::error::Position {
                line: e.line(),
                column: e.column(),
            }),
            format!("not a matrix.json: {e}"),
        )
    })
}

fn show_short(r: &Option<Rate>) -> String {
    match r {
        Some(Rate {
            value: Some(v),
            numerator,
            denominator,
            ..
        }) => format!("{v:.3} ({numerator}/{denominator})"),
        _ => "n/a".into(),
    }
}

fn show_difference(d: &Option<Difference>) -> String {
    match d {
        Some(d) => format!("{:+.3} [{:+.2}, {:+.2}]", d.value, d.low, d.high),
        None => "n/a".into(),
    }
}

fn verdict(p: &PipelineSummary) -> String {
    let broken = p.thresholds.iter().filter(|t| !t.met).count();
    if broken == 0 {
        "all thresholds met".into()
    } else {
        format!("{broken} threshold(s) broken, exit {}", p.exit_code)
    }
}

/// A table: header row, then rows; every row as long as the header.
type Table = (Vec<String>, Vec<Vec<String>>);

/// The headline rates side by side, with each pair's difference.
fn overall_table(m: &MatrixResults) -> Table {
    let mut head = vec![String::new()];
    head.extend(m.pipelines.iter().map(|p| p.name.clone()));
    head.extend(m.pairs.iter().map(|p| format!("{} - {}", p.new, p.base)));
    let rows = (0..8)
        .map(|i| {
            let mut row = vec![m.pipelines[0].overall.named()[i].0.to_owned()];
            row.extend(
                m.pipelines
                    .iter()
                    .map(|p| show_rate(&p.overall.named()[i].1)),
            );
            row.extend(
                m.pairs
                    .iter()
                    .map(|pair| show_difference(&pair.overall[i].difference)),
            );
            row
        })
        .collect();
    (head, rows)
}

/// The counts side by side.
fn counts_table(m: &MatrixResults) -> Table {
    let mut head = vec![String::new()];
    head.extend(m.pipelines.iter().map(|p| p.name.clone()));
    let count = |p: &PipelineSummary, o: Outcome| p.outcomes.get(&o).copied().unwrap_or(0);
    let rows = [
        (
            "trials",
            &(|p: &PipelineSummary| p.trials) as &dyn Fn(&PipelineSummary) -> u64,
        ),
        ("false passes", &|p| count(p, Outcome::FalsePass)),
        ("detected", &|p| count(p, Outcome::Detected)),
        ("wrong reason", &|p| count(p, Outcome::WrongReason)),
        ("false alarms", &|p| count(p, Outcome::FalseAlarm)),
        ("errors and timeouts", &|p| p.errors),
        ("rounds off expectation", &|p| p.rounds_off),
    ]
    .into_iter()
    .map(|(name, f)| {
        let mut row = vec![name.to_owned()];
        row.extend(m.pipelines.iter().map(|p| f(p).to_string()));
        row
    })
    .collect();
    (head, rows)
}

/// Per group (category or kind): recall, false-pass and false-alarm rates side by side, and
/// each pair's recall difference.
fn group_table(
    m: &MatrixResults,
    groups: impl Fn(&PipelineSummary) -> &BTreeMap<String, Headline>,
    pair_groups: impl Fn(&PairDifferences) -> &BTreeMap<String, Vec<RateDifference>>,
    title: &str,
) -> Table {
    let mut head = vec![title.to_owned()];
    for p in &m.pipelines {
        head.push(format!("{} recall", p.name));
    }
    for p in &m.pipelines {
        head.push(format!("{} false-alarm rate", p.name));
    }
    head.extend(
        m.pairs
            .iter()
            .map(|p| format!("recall {} - {}", p.new, p.base)),
    );
    let names: BTreeSet<&String> = m.pipelines.iter().flat_map(|p| groups(p).keys()).collect();
    let rows = names
        .into_iter()
        .map(|g| {
            let mut row = vec![g.clone()];
            let cell = |p: &PipelineSummary, pick: &dyn Fn(&Headline) -> Option<Rate>| {
                groups(p)
                    .get(g)
                    .map_or("-".to_owned(), |h| show_short(&pick(h)))
            };
            row.extend(m.pipelines.iter().map(|p| cell(p, &|h| h.recall)));
            row.extend(m.pipelines.iter().map(|p| cell(p, &|h| h.false_alarm_rate)));
            row.extend(m.pairs.iter().map(|pair| {
                pair_groups(pair)
                    .get(g)
                    .and_then(|ds| ds.iter().find(|d| d.rate == "recall"))
                    .map_or("n/a".to_owned(), |d| show_difference(&d.difference))
            }));
            row
        })
        .collect();
    (head, rows)
}

fn text_table(out: &mut String, (head, rows): &Table) {
    let all: Vec<&Vec<String>> = std::iter::once(head).chain(rows.iter()).collect();
    let widths: Vec<usize> = (0..head.len())
        .map(|i| all.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    for r in all {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        let _ = writeln!(out, "  {}", line.join("  ").trim_end());
    }
}

fn markdown_table(out: &mut String, (head, rows): &Table) {
    let cell = |c: &String| escape::markdown(c);
    let _ = writeln!(
        out,
        "| {} |",
        head.iter().map(cell).collect::<Vec<_>>().join(" | ")
    );
    let _ = writeln!(out, "|{}", "---|".repeat(head.len()));
    // A row's first cell names a category or a kind (from fixtures), the rest are figures.
    for r in rows {
        let _ = writeln!(
            out,
            "| {} |",
            r.iter()
                .enumerate()
                .map(|(i, c)| if i == 0 {
                    cell(c)
                } else {
                    c.replace('|', "\\|")
                })
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    out.push('\n');
}

/// The matrix for a terminal: each pipeline's verdict, the rates side by side with the pairs'
/// differences, the counts, the fixtures the pipelines disagree on, and broken bars.
pub fn terminal(m: &MatrixResults) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "gatebench {}: {} pipelines side by side, {:.2}s",
        m.scenario,
        m.pipelines.len(),
        m.duration_ms as f64 / 1000.0
    );
    for p in &m.pipelines {
        let _ = writeln!(
            out,
            "  {}: pipeline {}, {} fixtures, {} trials: {}",
            p.name,
            p.pipeline,
            p.fixtures,
            p.trials,
            verdict(p)
        );
    }
    let _ = writeln!(out, "\nRates (95% intervals; differences: Newcombe 95%)");
    text_table(&mut out, &overall_table(m));
    let _ = writeln!(out, "\nCounts");
    text_table(&mut out, &counts_table(m));
    for pair in &m.pairs {
        if pair.fixtures.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\nFixtures {} and {} disagree on ({})",
            pair.base,
            pair.new,
            pair.fixtures.len()
        );
        for c in &pair.fixtures {
            let _ = writeln!(
                out,
                "  {} [{}]: {} {}, {} {}",
                c.fixture, c.category, pair.base, c.base, pair.new, c.new
            );
        }
    }
    for p in &m.pipelines {
        let broken: Vec<&ThresholdResult> = p.thresholds.iter().filter(|t| !t.met).collect();
        if broken.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\nBROKEN THRESHOLDS of {} ({})", p.name, broken.len());
        for t in broken {
            let _ = writeln!(
                out,
                "  {}: {} (bar {}, exit {})",
                t.name, t.figure, t.bar, t.exit_code
            );
        }
    }
    let _ = writeln!(out, "\nexit code {}", m.exit_code);
    out
}

/// `summary.md`: the verdicts, the rates side by side with the differences, counts, per
/// category and per kind tables, and the fixtures each pair disagrees on.
pub fn markdown(m: &MatrixResults) -> String {
    let mut out = String::new();
    let all_met = m
        .pipelines
        .iter()
        .all(|p| p.thresholds.iter().all(|t| t.met));
    let _ = writeln!(
        out,
        "# gatebench matrix: {} ({})\n",
        escape::markdown(&m.scenario),
        if all_met {
            "all thresholds met"
        } else {
            "thresholds broken"
        }
    );
    let _ = writeln!(
        out,
        "{} pipelines on the same fixtures, exit code {}.\n",
        m.pipelines.len(),
        m.exit_code
    );
    for p in &m.pipelines {
        let _ = writeln!(
            out,
            "- **{}** ({}, [{}](<{}/summary.md>)): {}",
            escape::markdown(&p.name),
            escape::markdown_code(&p.pipeline),
            escape::markdown(&p.dir),
            p.dir
                .replace(|c: char| c == '<' || c == '>' || c.is_control(), ""),
            verdict(p)
        );
        for t in p.thresholds.iter().filter(|t| !t.met) {
            let _ = writeln!(
                out,
                "  - **{}**: {} (bar {})",
                escape::markdown(&t.name),
                escape::markdown(&t.figure),
                escape::markdown(&t.bar)
            );
        }
    }
    let _ = writeln!(
        out,
        "\n## Rates\n\n95% Wilson intervals; each difference is new minus base with Newcombe's 95% \
         interval.\n"
    );
    markdown_table(&mut out, &overall_table(m));
    let _ = writeln!(out, "## Counts\n");
    markdown_table(&mut out, &counts_table(m));
    let _ = writeln!(out, "## Per category\n");
    markdown_table(
        &mut out,
        &group_table(m, |p| &p.per_category, |p| &p.per_category, "category"),
    );
    if m.pipelines.iter().any(|p| !p.per_kind.is_empty()) {
        let _ = writeln!(out, "## Per kind\n");
        markdown_table(
            &mut out,
            &group_table(m, |p| &p.per_kind, |p| &p.per_kind, "kind"),
        );
    }
    for pair in &m.pairs {
        let _ = writeln!(
            out,
            "## {} against {}\n",
            escape::markdown(&pair.new),
            escape::markdown(&pair.base)
        );
        if pair.fixtures.is_empty() {
            let _ = writeln!(out, "They agree on every fixture.\n");
            continue;
        }
        let _ = writeln!(
            out,
            "| change | fixture | category | {} | {} |\n|---|---|---|---|---|",
            escape::markdown(&pair.base),
            escape::markdown(&pair.new)
        );
        for c in &pair.fixtures {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                c.kind.as_str(),
                escape::markdown_code(&c.fixture),
                escape::markdown(&c.category),
                escape::markdown(&c.base),
                escape::markdown(&c.new)
            );
        }
        out.push('\n');
    }
    out
}

/// `junit.xml`: one test suite per pipeline (a case per fixture trial, `classname`
/// `<pipeline>.<category>`, then one per threshold), so a CI viewer shows the pipelines apart.
pub fn junit(m: &MatrixResults, runs: &[(String, &RunResults)], linked: bool) -> Report {
    let mut report = Report::new(junit::xml(&format!("gatebench {}", m.scenario)));
    report.set_time(Duration::from_millis(m.duration_ms));
    for (name, results) in runs {
        let mut suite = TestSuite::new(junit::xml(name));
        suite.set_time(Duration::from_millis(results.duration_ms));
        for t in &results.trials {
            let log = linked.then(|| {
                format!(
                    "{PIPELINES}/{name}/{}/{}",
                    trial_logs::TRIALS,
                    trial_logs::case_of(results, &t)
                )
            });
            let mut case = junit::case(
                &t,
                results.fixtures.find(&t.fixture).as_deref(),
                log,
                results.objects.as_ref(),
            );
            case.set_classname(junit::xml(&format!("{name}.{}", t.category)));
            suite.add_test_case(case);
        }
        for t in &results.thresholds {
            let mut case = crate::output::junit::threshold_case(t);
            case.set_classname(junit::xml(&format!("{name}.thresholds")));
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    report
}

#[derive(Serialize)]
struct HtmlPipeline<'a> {
    name: &'a str,
    pipeline: &'a str,
    verdict: String,
    met: bool,
    broken: Vec<&'a ThresholdResult>,
}

#[derive(Serialize)]
struct HtmlPair<'a> {
    base: &'a str,
    new: &'a str,
    fixtures: &'a [FixtureChange],
}

#[derive(Serialize)]
struct HtmlContext<'a> {
    scenario: &'a str,
    run_id: &'a str,
    started_at: &'a str,
    duration: String,
    exit_code: i32,
    all_met: bool,
    gatebench_version: &'a str,
    pipelines: Vec<HtmlPipeline<'a>>,
    /// (title, header, rows)
    tables: Vec<(String, Vec<String>, Vec<Vec<String>>)>,
    pairs: Vec<HtmlPair<'a>>,
}

/// `report.html`: one self-contained page (no script, no external resource) with the pipelines
/// side by side, linking each pipeline's own report.
pub fn html(m: &MatrixResults) -> Result<String> {
    let pipelines = m
        .pipelines
        .iter()
        .map(|p| HtmlPipeline {
            name: &p.name,
            pipeline: &p.pipeline,
            verdict: verdict(p),
            met: p.thresholds.iter().all(|t| t.met),
            broken: p.thresholds.iter().filter(|t| !t.met).collect(),
        })
        .collect();
    let titled = |title: &str, (head, rows): Table| (title.to_owned(), head, rows);
    let mut tables = vec![
        titled(
            "Rates (95% intervals; differences new - base, Newcombe 95%)",
            overall_table(m),
        ),
        titled("Counts", counts_table(m)),
        titled(
            "Per category",
            group_table(m, |p| &p.per_category, |p| &p.per_category, "category"),
        ),
    ];
    if m.pipelines.iter().any(|p| !p.per_kind.is_empty()) {
        tables.push(titled(
            "Per kind",
            group_table(m, |p| &p.per_kind, |p| &p.per_kind, "kind"),
        ));
    }
    let context = HtmlContext {
        scenario: &m.scenario,
        run_id: &m.run_id,
        started_at: &m.started_at,
        duration: format!("{:.2}s", m.duration_ms as f64 / 1000.0),
        exit_code: m.exit_code,
        all_met: m.exit_code == crate::exit_code::SUCCESS,
        gatebench_version: &m.gatebench_version,
        pipelines,
        tables,
        pairs: m
            .pairs
            .iter()
            .map(|p| HtmlPair {
                base: &p.base,
                new: &p.new,
                fixtures: &p.fixtures,
            })
            .collect(),
    };
    let mut env = Environment::new();
    env.add_template("matrix.html", TEMPLATE)
        .map_err(|e| Error::Internal(format!("the matrix template: {e}")))?;
    env.get_template("matrix.html")
        .and_then(|t| t.render(minijinja::Value::from(minijinja::value::Serde(&context))))
        .map_err(|e| Error::Internal(format!("rendering the matrix report.html: {e}")))
}

/// Writes `matrix.json`, `summary.md`, `junit.xml` and `report.html` into `dir`, each atomically,
/// `matrix.json` first.
pub fn write_all(
    dir: &Path,
    m: &MatrixResults,
    runs: &[(String, &RunResults)],
    linked: bool,
) -> Result<()> {
    atomic::write_json_atomic(&dir.join("matrix.json"), m)?;
    atomic::write_atomic(&dir.join("summary.md"), markdown(m).as_bytes())?;
    let report = junit(m, runs, linked);
    atomic::write_atomic_with(&dir.join("junit.xml"), |w| {
        report.serialize(w).map_err(std::io::Error::other)
    })?;
    atomic::write_atomic(
        &dir.join("report.html"),
        escape::html_text(&html(m)?).as_bytes(),
    )
}

/// Appends the matrix's Markdown summary to the file GitHub Actions names in
/// `$GITHUB_STEP_SUMMARY`.
pub fn append_step_summary(path: &Path, m: &MatrixResults) -> Result<()> {
    use std::io::Write as _;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| Error::io("open the step summary", path, e))?;
    let mut text = markdown(m);
    text.push('\n');
    file.write_all(text.as_bytes())
        .map_err(|e| Error::io("append to the step summary", path, e))
}
