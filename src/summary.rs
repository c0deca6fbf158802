//! Human-readable summaries of a run, for the terminal and for `summary.md`, rendered from the
//! same `RunResults` that `results.json` holds. False passes come first: they are what a gate
//! must never do.

use std::fmt::Write;

use crate::metrics::{Metrics, Rate};
use crate::outcome::{ConvergenceStatus, Outcome};
use crate::results::RunResults;

fn rate(r: &Option<Rate>) -> String {
    match r {
        Some(Rate {
            value: Some(v),
            low,
            high,
            ..
        }) => format!("{v:.3} [{low:.2}, {high:.2}]"),
        _ => "n/a".into(),
    }
}

const COLUMNS: [Outcome; 7] = Outcome::ALL;

fn row(name: &str, m: &Metrics) -> Vec<String> {
    let mut cells = vec![name.to_owned(), m.fixtures.to_string()];
    cells.extend(COLUMNS.iter().map(|o| m.count(*o).to_string()));
    cells.push(rate(&m.recall));
    cells.push(rate(&m.false_pass_rate));
    cells
}

fn header() -> Vec<String> {
    let mut cells = vec!["category".to_owned(), "fixtures".to_owned()];
    cells.extend(COLUMNS.iter().map(|o| o.as_str().to_owned()));
    cells.push("recall [95% CI]".into());
    cells.push("false-pass rate [95% CI]".into());
    cells
}

fn table_rows(results: &RunResults) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = results
        .metrics
        .per_category
        .iter()
        .map(|(name, m)| row(name, m))
        .collect();
    rows.push(row("overall", &results.metrics.overall));
    rows
}

fn bad_trials(results: &RunResults, outcome: Outcome) -> Vec<String> {
    results
        .trials
        .iter()
        .filter(|t| t.outcome == outcome)
        .map(|t| {
            let trial = if results.trial_count > 1 {
                format!(" (trial {})", t.trial)
            } else {
                String::new()
            };
            format!("{}{trial}: {}", t.fixture, t.reason)
        })
        .collect()
}

fn headline(results: &RunResults) -> String {
    let m = &results.metrics.overall;
    format!(
        "false-pass rate {}, recall {}, false-alarm rate {}, errors {}",
        rate(&m.false_pass_rate),
        rate(&m.recall),
        rate(&m.false_alarm_rate),
        m.errors
    )
}

fn convergence_lines(results: &RunResults) -> Vec<String> {
    let mut lines = Vec::new();
    for t in &results.trials {
        if let Some(c) = &t.convergence {
            if c.status != ConvergenceStatus::AsExpected {
                let show = |r: Option<u32>| r.map_or("never".to_owned(), |r| format!("round {r}"));
                lines.push(format!(
                    "{}: expected {}, converged {}",
                    t.fixture,
                    show(c.expected),
                    show(c.actual)
                ));
            }
        }
    }
    lines
}

/// The terminal summary.
pub fn terminal(results: &RunResults) -> String {
    let mut out = String::new();
    let m = &results.metrics.overall;
    let _ = writeln!(
        out,
        "gatebench {}: {} fixtures x {} trial(s) = {} trials, pipeline {}, {} jobs, {:.2}s",
        results.scenario.name,
        m.fixtures,
        results.trial_count,
        m.trials,
        results.pipeline,
        results.jobs,
        results.duration_ms as f64 / 1000.0
    );
    for (title, outcome) in [
        ("FALSE PASSES", Outcome::FalsePass),
        ("FALSE ALARMS (goldens that failed)", Outcome::FalseAlarm),
        ("WRONG REASON", Outcome::WrongReason),
        ("ERRORS", Outcome::Error),
        ("TIMEOUTS", Outcome::Timeout),
    ] {
        let list = bad_trials(results, outcome);
        if !list.is_empty() {
            let _ = writeln!(out, "\n{title} ({})", list.len());
            for line in list {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
    let conv = convergence_lines(results);
    if !conv.is_empty() {
        let _ = writeln!(out, "\nROUNDS OFF EXPECTATION ({})", conv.len());
        for line in conv {
            let _ = writeln!(out, "  {line}");
        }
    }
    out.push('\n');
    let mut rows = vec![header()];
    rows.extend(table_rows(results));
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    for (n, r) in rows.iter().enumerate() {
        if n == rows.len() - 1 {
            let _ = writeln!(
                out,
                "{}",
                widths
                    .iter()
                    .map(|w| "-".repeat(*w))
                    .collect::<Vec<_>>()
                    .join("  ")
            );
        }
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i == 0 {
                    format!("{c:<w$}", w = widths[i])
                } else {
                    format!("{c:>w$}", w = widths[i])
                }
            })
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    let _ = writeln!(out, "\n{}", headline(results));
    if !m.rounds.is_empty() {
        let dist: Vec<String> = m.rounds.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let _ = writeln!(out, "convergence rounds: {}", dist.join(", "));
    }
    let _ = writeln!(out);
    for t in &results.thresholds {
        let mark = if t.met { "ok  " } else { "FAIL" };
        let _ = writeln!(out, "{mark} {:<24} {} (bar {})", t.name, t.figure, t.bar);
    }
    out
}

/// The Markdown summary (`summary.md`).
pub fn markdown(results: &RunResults) -> String {
    let mut out = String::new();
    let m = &results.metrics.overall;
    let broken: Vec<_> = results.thresholds.iter().filter(|t| !t.met).collect();
    let verdict = if broken.is_empty() {
        "all thresholds met"
    } else {
        "thresholds broken"
    };
    let _ = writeln!(out, "# gatebench: {} ({verdict})\n", results.scenario.name);
    let _ = writeln!(
        out,
        "Pipeline `{}`, {} fixtures x {} trial(s), exit code {}.\n",
        results.pipeline, m.fixtures, results.trial_count, results.exit_code
    );
    let _ = writeln!(out, "**{}**\n", headline(results));
    if !broken.is_empty() {
        let _ = writeln!(out, "## Broken thresholds\n");
        for t in &broken {
            let _ = writeln!(out, "- {}: {} (bar {})", t.name, t.figure, t.bar);
        }
        out.push('\n');
    }
    for (title, outcome) in [
        ("False passes", Outcome::FalsePass),
        ("False alarms", Outcome::FalseAlarm),
        ("Wrong reason", Outcome::WrongReason),
        ("Errors", Outcome::Error),
        ("Timeouts", Outcome::Timeout),
    ] {
        let list = bad_trials(results, outcome);
        if !list.is_empty() {
            let _ = writeln!(out, "## {title} ({})\n", list.len());
            for line in list {
                let _ = writeln!(out, "- `{}`", line.replace('`', "'"));
            }
            out.push('\n');
        }
    }
    let _ = writeln!(out, "## Per category\n");
    let head = header();
    let _ = writeln!(out, "| {} |", head.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(head.len()));
    for r in table_rows(results) {
        let _ = writeln!(out, "| {} |", r.join(" | "));
    }
    if !m.rounds.is_empty() {
        let _ = writeln!(out, "\n## Convergence rounds\n");
        let _ = writeln!(out, "| first PASS at | trials |\n|---|---|");
        for (k, v) in &m.rounds {
            let _ = writeln!(out, "| {k} | {v} |");
        }
        let conv = convergence_lines(results);
        if !conv.is_empty() {
            let _ = writeln!(out, "\nOff expectation:\n");
            for line in conv {
                let _ = writeln!(out, "- {line}");
            }
        }
    }
    let _ = writeln!(
        out,
        "\n## Thresholds\n\n| threshold | figure | bar | met |\n|---|---|---|---|"
    );
    for t in &results.thresholds {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            t.name,
            t.figure,
            t.bar,
            if t.met { "yes" } else { "**no**" }
        );
    }
    out
}
