//! Tiers through the whole harness (issue 41): a tiny corpus built in a temporary folder (the
//! `subscription-cancel` golden, a ledger omission, a loud and a silent semantic fixture) run
//! with the built-in gate; each fixture's and trial's tier and signal in `results.json`, the exact
//! `per_tier` and `per_signal` figures, the "By tier" table of `summary.md` and `report.html`, the
//! terminal's line, `compare`'s rows and a matrix's table; a run without a semantic fixture shows
//! no tier.

use crate::common;
use common::copy_dir;

use std::path::{Path, PathBuf};

use gatebench::corpus::scenario::Scenario;
use gatebench::output::render::{compare, summary};
use gatebench::output::store::results::{self, RunResults};
use gatebench::run::execute;
use gatebench::run::options::{Overrides, RunOptions};
use gatebench::score::metrics::Metrics;

const GOLDEN: &str = "subscription-cancel";
const LEDGER: &str = "subscription-cancel-task-state-missing";
const LOUD: &str = "subscription-cancel-acceptance-unchecked";
/// Retries dropped from the refund: a change of behaviour no record shows.
const SILENT: &str = "subscription-cancel-refund-retry-dropped";

const SILENT_YAML: &str = "id: subscription-cancel-refund-retry-dropped
description: The refund is tried once instead of three times; every record still adds up.
extends: subscription-cancel
category: code
tier: semantic
signal: silent
plant:
  overlay: plant
expect:
  verdict: fail
  kind: obligation-not-implemented
  locus:
    - path: src/subscription/refund.py
      lines: [14, 14]
";

/// The tiny corpus in `dir/fixtures`: the golden and the ledger omission as bundled, the loud
/// one a bundled omission declared semantic and loud, the silent one written here.
fn corpus(dir: &Path) -> PathBuf {
    let bundled = common::root().join("fixtures");
    let fixtures = dir.join("fixtures");
    for id in [GOLDEN, LEDGER, LOUD] {
        copy_dir(&bundled.join(id), &fixtures.join(id));
    }
    let loud = fixtures.join(LOUD).join("fixture.yaml");
    let text = std::fs::read_to_string(&loud).unwrap();
    std::fs::write(&loud, format!("{text}tier: semantic\nsignal: loud\n")).unwrap();
    let silent = fixtures.join(SILENT);
    std::fs::create_dir_all(silent.join("plant/src/subscription")).unwrap();
    std::fs::write(silent.join("fixture.yaml"), SILENT_YAML).unwrap();
    let refund = "head/src/subscription/refund.py";
    let code = std::fs::read_to_string(bundled.join(GOLDEN).join(refund)).unwrap();
    assert!(code.contains("\nMAX_ATTEMPTS = 3\n"));
    std::fs::write(
        silent.join("plant/src/subscription/refund.py"),
        code.replace("\nMAX_ATTEMPTS = 3\n", "\nMAX_ATTEMPTS = 1\n"),
    )
    .unwrap();
    fixtures
}

fn options(dir: &Path, name: &str, body: &str) -> RunOptions {
    let file = dir.join(format!("{name}.yaml"));
    let text = format!(
        "name: {name}\nfixtures_dir: {}\n{body}",
        dir.join("fixtures").display()
    );
    std::fs::write(&file, text).unwrap();
    RunOptions::resolve(
        Scenario::load(&file).unwrap_or_else(|e| panic!("{e}")),
        Overrides {
            jobs: Some(2),
            reports_dir: Some(dir.join("reports")),
            ..Overrides::default()
        },
    )
}

/// A rate of `compare` in both runs: (its name, base numerator, new numerator).
type Shown = (String, Option<u64>, Option<u64>);

/// (fixtures, trials, detected / omission trials, false passes / omission trials, false alarms).
type Figures = (
    u64,
    u64,
    Option<(u64, u64)>,
    Option<(u64, u64)>,
    Option<(u64, u64)>,
);

fn figures(m: &Metrics) -> Figures {
    let r = |r: Option<gatebench::score::rate::Rate>| r.map(|r| (r.numerator, r.denominator));
    (
        m.fixtures,
        m.trials,
        r(m.recall),
        r(m.false_pass_rate),
        r(m.false_alarm_rate),
    )
}

/// The figures, the records and every output of one run of the tiny corpus.
#[test]
fn a_run_reports_recall_and_false_passes_per_tier_and_signal() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let finished = execute::execute(
        &options(dir.path(), "tiers", "pipeline: {kind: builtin}\n"),
        &|_, _, _| {},
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    // Read back from the file: what a reader of results.json gets.
    let results = results::read(&finished.dir.join("results.json")).unwrap();
    let outcomes: Vec<(String, &str, &str, Option<&str>)> = results
        .trials
        .iter()
        .map(|t| {
            let t = t.into_owned();
            (
                t.fixture.clone(),
                t.outcome.as_str(),
                t.tier.as_str(),
                t.signal.map(|s| s.as_str()),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            (GOLDEN.to_owned(), "passed", "ledger", None),
            (LOUD.to_owned(), "detected", "semantic", Some("loud")),
            (SILENT.to_owned(), "false-pass", "semantic", Some("silent")),
            (LEDGER.to_owned(), "detected", "ledger", None),
        ]
    );
    let tiers: Vec<(String, &str, Option<&str>)> = results
        .fixtures
        .iter()
        .map(|f| (f.id.clone(), f.tier.as_str(), f.signal.map(|s| s.as_str())))
        .collect();
    assert_eq!(
        tiers,
        [
            (GOLDEN.to_owned(), "ledger", None),
            (LOUD.to_owned(), "semantic", Some("loud")),
            (SILENT.to_owned(), "semantic", Some("silent")),
            (LEDGER.to_owned(), "ledger", None),
        ]
    );

    let m = &results.metrics;
    let keys =
        |g: &std::collections::BTreeMap<String, Metrics>| g.keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&m.per_tier), ["ledger", "semantic"]);
    assert_eq!(keys(&m.per_signal), ["loud", "silent"]);
    // The golden is in no tier: its trial is counted once, overall.
    assert_eq!(
        figures(&m.per_tier["ledger"]),
        (1, 1, Some((1, 1)), Some((0, 1)), None)
    );
    assert_eq!(
        figures(&m.per_tier["semantic"]),
        (2, 2, Some((1, 2)), Some((1, 2)), None)
    );
    assert_eq!(
        figures(&m.per_signal["loud"]),
        (1, 1, Some((1, 1)), Some((0, 1)), None)
    );
    assert_eq!(
        figures(&m.per_signal["silent"]),
        (1, 1, Some((0, 1)), Some((1, 1)), None)
    );
    assert_eq!(
        figures(&m.overall),
        (4, 4, Some((2, 3)), Some((1, 3)), Some((0, 1)))
    );

    let terminal = summary::terminal(&results);
    assert!(
        terminal.contains(
            "\nsemantic tier: recall 0.500 (1/2) (loud 1.000 (1/1), silent 0.000 (0/1))\n"
        ),
        "{terminal}"
    );
    let md = std::fs::read_to_string(finished.dir.join("summary.md")).unwrap();
    let table = "| tier | fixtures | recall [95% CI] | false-pass rate [95% CI] |\n\
                 |---|---|---|---|\n\
                 | ledger | 1 | 1.000 [0.21, 1.00] | 0.000 [0.00, 0.79] |\n\
                 | semantic | 2 | 0.500 [0.09, 0.91] | 0.500 [0.09, 0.91] |\n\
                 | semantic, loud | 1 | 1.000 [0.21, 1.00] | 0.000 [0.00, 0.79] |\n\
                 | semantic, silent | 1 | 0.000 [0.00, 0.79] | 1.000 [0.21, 1.00] |\n";
    assert!(md.contains("\n## By tier\n"), "{md}");
    assert!(md.contains(table), "{md}");
    let html = std::fs::read_to_string(finished.dir.join("report.html")).unwrap();
    assert!(html.contains("<h2 id=\"tiers\">By tier</h2>"));
    assert!(
        html.contains("<tr><td>semantic, silent</td><td>1</td><td>0.000 [0.00, 0.79]</td><td>1.000 [0.21, 1.00]</td></tr>"),
        "the tier table's silent row"
    );

    // Compared with a run of the ledger fixtures alone: every tier row either run has.
    let ledger_only = execute::execute(
        &options(
            dir.path(),
            "ledger",
            &format!(
                "pipeline: {{kind: builtin}}\nfixtures:\n  include: [\"{GOLDEN}\", \"{LEDGER}\"]\n"
            ),
        ),
        &|_, _, _| {},
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    let base = results::read(&ledger_only.dir.join("results.json")).unwrap();
    assert_no_tiers(&base, &ledger_only.dir);
    let c = compare::compare(&base, &results, "ledger", "tiers");
    let rows: Vec<(&str, Vec<Shown>)> = c
        .per_tier
        .iter()
        .map(|(tier, deltas)| {
            let shown = deltas
                .iter()
                .map(|d| {
                    (
                        d.name.clone(),
                        d.base.map(|r| r.numerator),
                        d.new.map(|r| r.numerator),
                    )
                })
                .collect();
            (tier.as_str(), shown)
        })
        .collect();
    let row = |name: &str, base, new| (name.to_owned(), base, new);
    assert_eq!(
        rows,
        [
            (
                "ledger",
                vec![
                    row("ledger: recall", Some(1), Some(1)),
                    row("ledger: false-pass rate", Some(0), Some(0))
                ]
            ),
            (
                "semantic",
                vec![
                    row("semantic: recall", None, Some(1)),
                    row("semantic: false-pass rate", None, Some(1))
                ]
            ),
            (
                "semantic, loud",
                vec![
                    row("semantic, loud: recall", None, Some(1)),
                    row("semantic, loud: false-pass rate", None, Some(0))
                ]
            ),
            (
                "semantic, silent",
                vec![
                    row("semantic, silent: recall", None, Some(0)),
                    row("semantic, silent: false-pass rate", None, Some(1))
                ]
            ),
        ]
    );
    let text = compare::text(&c);
    assert!(text.contains("\nBy tier (95% intervals)\n"), "{text}");
    assert!(
        text.contains("semantic, silent: false-pass rate  n/a"),
        "{text}"
    );
    // Two runs without a semantic fixture: no tier rows.
    assert!(compare::compare(&base, &base, "a", "b").per_tier.is_empty());
}

/// A run without a semantic fixture: its ledger tier recorded, nothing shown by tier.
fn assert_no_tiers(results: &RunResults, dir: &Path) {
    assert_eq!(
        figures(&results.metrics.per_tier["ledger"]),
        (1, 1, Some((1, 1)), Some((0, 1)), None)
    );
    assert!(results.metrics.per_signal.is_empty());
    assert!(!summary::terminal(results).contains("semantic tier"));
    let md = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(!md.contains("By tier"), "{md}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(!html.contains("tier-table"));
}

/// A matrix of the gate and the legacy checker on the tiny corpus: per tier side by side in
/// `matrix.json`, `summary.md` and `report.html`.
#[test]
fn a_matrix_shows_each_pipeline_per_tier_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let options = options(
        dir.path(),
        "pair",
        "pipelines:\n  - name: gate\n    pipeline: {kind: builtin}\n  - name: legacy\n    pipeline: {kind: legacy}\n",
    );
    let finished = gatebench::run::matrix::execute(&options, &|_, _, _| {})
        .unwrap_or_else(|e| panic!("{e:?}"));
    let m = &finished.matrix;
    for (p, (_, run)) in m.pipelines.iter().zip(&finished.runs) {
        let expected = &run.results.metrics;
        for (tier, headline) in &p.per_tier {
            assert_eq!(
                headline.recall, expected.per_tier[tier].recall,
                "{} {tier}",
                p.name
            );
        }
        assert_eq!(p.per_tier.len(), 2);
        assert_eq!(p.per_signal.len(), 2);
    }
    let gate = &m.pipelines[0];
    let recall = |h: &gatebench::output::store::matrix::Headline| {
        h.recall.map(|r| (r.numerator, r.denominator))
    };
    assert_eq!(recall(&gate.per_tier["semantic"]), Some((1, 2)));
    assert_eq!(recall(&gate.per_signal["silent"]), Some((0, 1)));
    let md = std::fs::read_to_string(finished.dir.join("summary.md")).unwrap();
    let by_tier = md
        .split("## By tier\n\n")
        .nth(1)
        .expect("a By tier section");
    let header = "| tier | gate recall | legacy recall | gate false-pass rate | legacy false-pass rate | recall legacy - gate |\n";
    assert!(by_tier.starts_with(header), "{by_tier}");
    let gate_silent = "| semantic, silent | 0.000 (0/1) |";
    assert!(by_tier.contains(gate_silent), "{by_tier}");
    let html = std::fs::read_to_string(finished.dir.join("report.html")).unwrap();
    assert!(
        html.contains("<h2>By tier</h2>"),
        "the matrix page's tier table"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(finished.dir.join("matrix.json")).unwrap())
            .unwrap();
    assert!(
        json["pairs"][0]["per_tier"]["semantic"].is_array(),
        "{}",
        json["pairs"][0]
    );
}
