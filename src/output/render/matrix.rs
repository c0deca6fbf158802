//! A matrix run's outputs beside `matrix.json` (`store/matrix.rs`), showing the pipelines side by
//! side: the terminal table, `summary.md`, `junit.xml` (a suite per pipeline, its cases those of
//! the single-run JUnit) and a self-contained `report.html`, with the tables of the single-run
//! outputs (`table.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

use minijinja::Environment;
use quick_junit::{Report, TestSuite};
use serde::Serialize;

use crate::atomic;
use crate::error::{Error, Result};
use crate::output::render::compare::{show_interval, show_rate};
use crate::output::render::escape;
use crate::output::render::junit;
use crate::output::render::table::{Cell, Table};
use crate::output::render::tiers;
use crate::output::store::matrix::{
    Difference, Headline, MatrixResults, PairDifferences, PipelineSummary, RateDifference,
    PIPELINES,
};
use crate::output::store::results::RunResults;
use crate::output::store::trial_logs;
use crate::score::changes::FixtureChange;
use crate::score::metrics::ThresholdResult;
use crate::score::outcome::Outcome;
use crate::score::rate::Rate;

const TEMPLATE: &str = include_str!("../../../templates/matrix.html");

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
    show_interval(d.map(|d| (d.value, d.low, d.high)))
}

fn verdict(p: &PipelineSummary) -> String {
    let broken = p.thresholds.iter().filter(|t| !t.met).count();
    if broken == 0 {
        "all thresholds met".into()
    } else {
        format!("{broken} threshold(s) broken, exit {}", p.exit_code)
    }
}

/// A header of pipeline names (and pairs), after an empty corner cell.
fn named_head(names: impl Iterator<Item = String>) -> Table {
    Table::new(std::iter::once(Cell::from("")).chain(names.map(Cell::others)))
}

/// The headline rates side by side, with each pair's difference.
fn overall_table(m: &MatrixResults) -> Table {
    let mut table = named_head(
        m.pipelines
            .iter()
            .map(|p| p.name.clone())
            .chain(m.pairs.iter().map(|p| format!("{} - {}", p.new, p.base))),
    );
    for i in 0..8 {
        let mut row = vec![Cell::others(m.pipelines[0].overall.named()[i].0)];
        row.extend(
            m.pipelines
                .iter()
                .map(|p| show_rate(&p.overall.named()[i].1).into()),
        );
        row.extend(
            m.pairs
                .iter()
                .map(|pair| show_difference(&pair.overall[i].difference).into()),
        );
        table.push(row);
    }
    table
}

/// The counts side by side.
fn counts_table(m: &MatrixResults) -> Table {
    let mut table = named_head(m.pipelines.iter().map(|p| p.name.clone()));
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
    ];
    for (name, f) in rows {
        let mut row = vec![Cell::others(name)];
        row.extend(m.pipelines.iter().map(|p| f(p).to_string().into()));
        table.push(row);
    }
    table
}

/// Per group (category or kind): recall and false-alarm rate side by side, and each pair's
/// recall difference.
fn group_table(
    m: &MatrixResults,
    groups: impl Fn(&PipelineSummary) -> &BTreeMap<String, Headline>,
    pair_groups: impl Fn(&PairDifferences) -> &BTreeMap<String, Vec<RateDifference>>,
    title: &str,
) -> Table {
    let names: BTreeSet<&String> = m.pipelines.iter().flat_map(|p| groups(p).keys()).collect();
    let rows: Vec<(&str, &str)> = names.iter().map(|g| (g.as_str(), g.as_str())).collect();
    side_by_side(
        m,
        &rows,
        |p, g| groups(p).get(g),
        |pair, g| pair_groups(pair).get(g),
        (title, ("false-alarm rate", |h| h.false_alarm_rate)),
    )
}

/// Per tier, then the semantic tier per signal (`tiers::ROWS`), when some pipeline has a
/// semantic fixture: recall and false-pass rate side by side, and each pair's recall difference.
fn tier_table(m: &MatrixResults) -> Option<Table> {
    if !m.pipelines.iter().any(|p| tiers::has_semantic(&p.per_tier)) {
        return None;
    }
    let rows: Vec<(&str, &str)> = tiers::ROWS
        .iter()
        .filter(|(_, source, key)| {
            m.pipelines
                .iter()
                .any(|p| source.pick(&p.per_tier, &p.per_signal).contains_key(*key))
        })
        .map(|(label, _, key)| (*label, *key))
        .collect();
    let source = |key: &str| {
        tiers::ROWS
            .iter()
            .find(|(_, _, k)| *k == key)
            .map_or(tiers::Source::Tier, |(_, s, _)| *s)
    };
    Some(side_by_side(
        m,
        &rows,
        |p, key| source(key).pick(&p.per_tier, &p.per_signal).get(key),
        |pair, key| source(key).pick(&pair.per_tier, &pair.per_signal).get(key),
        ("tier", ("false-pass rate", |h| h.false_pass_rate)),
    ))
}

/// A rate column of a group table: its name, and how to read it from a group's headline.
type RateColumn<'a> = (&'a str, fn(&Headline) -> Option<Rate>);

/// The rows (label, key) of a group side by side: each pipeline's recall, then each one's
/// `second` rate (its name and how to read it), then each pair's recall difference.
fn side_by_side<'m>(
    m: &'m MatrixResults,
    rows: &[(&str, &str)],
    headline: impl Fn(&'m PipelineSummary, &str) -> Option<&'m Headline>,
    differences: impl Fn(&'m PairDifferences, &str) -> Option<&'m Vec<RateDifference>>,
    (title, (second, pick)): (&str, RateColumn),
) -> Table {
    let mut head = vec![Cell::others(title)];
    head.extend(
        m.pipelines
            .iter()
            .map(|p| Cell::others(format!("{} recall", p.name))),
    );
    head.extend(
        m.pipelines
            .iter()
            .map(|p| Cell::others(format!("{} {second}", p.name))),
    );
    head.extend(
        m.pairs
            .iter()
            .map(|p| Cell::others(format!("recall {} - {}", p.new, p.base))),
    );
    let mut table = Table::new(head);
    for (label, key) in rows {
        let mut row = vec![Cell::others(*label)];
        let cell = |p: &'m PipelineSummary, pick: &dyn Fn(&Headline) -> Option<Rate>| -> Cell {
            headline(p, key)
                .map_or("-".to_owned(), |h| show_short(&pick(h)))
                .into()
        };
        row.extend(m.pipelines.iter().map(|p| cell(p, &|h| h.recall)));
        row.extend(m.pipelines.iter().map(|p| cell(p, &pick)));
        row.extend(m.pairs.iter().map(|pair| {
            differences(pair, key)
                .and_then(|ds| ds.iter().find(|d| d.rate == "recall"))
                .map_or("n/a".to_owned(), |d| show_difference(&d.difference))
                .into()
        }));
        table.push(row);
    }
    table
}

fn markdown_table(out: &mut String, table: &Table) {
    out.push_str(&table.markdown());
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
    out.push_str(&overall_table(m).text("  "));
    let _ = writeln!(out, "\nCounts");
    out.push_str(&counts_table(m).text("  "));
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
    if let Some(table) = tier_table(m) {
        let _ = writeln!(out, "## By tier\n");
        markdown_table(&mut out, &table);
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
        let mut table = Table::new([
            "change".into(),
            "fixture".into(),
            "category".into(),
            Cell::others(pair.base.as_str()),
            Cell::others(pair.new.as_str()),
        ]);
        for c in &pair.fixtures {
            table.push([
                c.kind.as_str().into(),
                escape::markdown_code(&c.fixture).into(),
                Cell::others(c.category.as_str()),
                Cell::others(c.base.as_str()),
                Cell::others(c.new.as_str()),
            ]);
        }
        markdown_table(&mut out, &table);
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
            let mut case = crate::output::render::junit::threshold_case(t);
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
    let titled = |title: &str, table: Table| {
        let (head, rows) = table.into_parts();
        (title.to_owned(), head, rows)
    };
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
    if let Some(table) = tier_table(m) {
        tables.push(titled("By tier", table));
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
