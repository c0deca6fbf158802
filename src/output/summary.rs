//! Human-readable summaries of a run, for the terminal and for `summary.md`, rendered from the
//! same `RunResults` that `results.json` holds. False passes come first: they are what a gate
//! must never do.

use std::fmt::Write;

use crate::corpus::scenario::PipelineKind;
use crate::output::results::RunResults;
use crate::score::metrics::Metrics;
use crate::score::outcome::{ConvergenceStatus, Outcome};
use crate::score::rate::Rate;
use crate::score::trials::Consistency;

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

/// The verifier-neutral columns (docs/SCORING.md): each rate with its Wilson interval.
fn ground_truth_header(first: &str) -> Vec<String> {
    [
        first,
        "caught",
        "localization [95% CI]",
        "typing [95% CI]",
        "finding precision [95% CI]",
        "requirement recall [95% CI]",
        "obligation recall [95% CI]",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn ground_truth_row(name: &str, m: &Metrics) -> Vec<String> {
    let g = &m.ground_truth;
    vec![
        name.to_owned(),
        g.localization
            .map_or_else(|| "0".to_owned(), |r| r.denominator.to_string()),
        rate(&g.localization),
        rate(&g.typing),
        rate(&g.finding_precision),
        rate(&g.requirement_recall),
        rate(&g.obligation_recall),
    ]
}

/// The ground-truth table: one row per category (or kind) with omission trials, then overall.
pub fn ground_truth_rows(results: &RunResults, per_kind: bool) -> Vec<Vec<String>> {
    let groups = if per_kind {
        &results.metrics.per_kind
    } else {
        &results.metrics.per_category
    };
    let mut rows = vec![ground_truth_header(if per_kind {
        "kind"
    } else {
        "category"
    })];
    rows.extend(
        groups
            .iter()
            .filter(|(_, m)| m.recall.is_some())
            .map(|(name, m)| ground_truth_row(name, m)),
    );
    rows.push(ground_truth_row("overall", &results.metrics.overall));
    rows
}

/// One line on what the goldens drew: FAIL-level findings per golden trial.
pub fn noise_line(m: &Metrics) -> String {
    let g = &m.ground_truth;
    match g.noise {
        Some(noise) => format!(
            "noise {noise:.2} FAIL-level findings per golden ({} over {} golden trials)",
            g.golden_fail_findings, g.golden_trials
        ),
        None => "noise n/a (no golden trial with a report)".into(),
    }
}

/// `rows` as aligned text: the first column left, the others right, a rule above the last row.
fn aligned(rows: &[Vec<String>], indent: &str) -> String {
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (n, r) in rows.iter().enumerate() {
        if n == rows.len() - 1 && rows.len() > 2 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            let _ = writeln!(out, "{indent}{}", rule.join("  "));
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
        let _ = writeln!(out, "{indent}{}", cells.join("  ").trim_end());
    }
    out
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

/// The convergence of each family (category) that looped: how many trials first passed at each
/// round (or never), the rounds run, their wall time, and their cost where the pipeline reported
/// it. Empty when no trial ran more than one round.
fn convergence_rows(results: &RunResults) -> Vec<Vec<String>> {
    if !results.trials.iter().any(|t| t.rounds.len() > 1) {
        return Vec::new();
    }
    let mut keys: Vec<&String> = results
        .metrics
        .per_category
        .values()
        .flat_map(|m| m.rounds.keys())
        .collect();
    keys.sort_by_key(|k| (k.parse::<u32>().unwrap_or(u32::MAX), k.to_owned()));
    keys.dedup();
    let mut head = vec!["category".to_owned()];
    head.extend(keys.iter().map(|k| {
        if k.as_str() == "never" {
            "never".to_owned()
        } else {
            format!("round {k}")
        }
    }));
    head.extend(["rounds run".into(), "round time".into(), "cost".into()]);
    let mut rows = vec![head];
    for (category, m) in &results.metrics.per_category {
        if m.rounds.is_empty() {
            continue;
        }
        let mut row = vec![category.clone()];
        row.extend(
            keys.iter()
                .map(|k| m.rounds.get(*k).copied().unwrap_or(0).to_string()),
        );
        row.push(m.rounds_run.to_string());
        row.push(format!("{:.2}s", m.round_ms as f64 / 1000.0));
        row.push(if m.cost.any_known() {
            m.cost.display()
        } else {
            "not reported".to_owned()
        });
        rows.push(row);
    }
    rows
}

/// Fixtures whose trials were good in some, not all: `id: 2 of 3 good (verdicts fail 2, pass 1)`.
fn flaky_lines(results: &RunResults) -> Vec<String> {
    results
        .fixture_trials
        .iter()
        .filter(|f| f.consistency == Consistency::Flaky)
        .map(|f| {
            let verdicts: Vec<String> =
                f.verdicts.iter().map(|(k, v)| format!("{k} {v}")).collect();
            format!(
                "{}: {} of {} good (round-1 verdicts: {})",
                f.fixture,
                f.good,
                f.trials,
                verdicts.join(", ")
            )
        })
        .collect()
}

/// Trials whose pipeline changed the repository: `id (trial n): path, path, ...`.
fn modified_lines(results: &RunResults) -> Vec<String> {
    results
        .trials
        .iter()
        .filter(|t| t.modified_repo)
        .map(|t| {
            let trial = if results.trial_count > 1 {
                format!(" (trial {})", t.trial)
            } else {
                String::new()
            };
            let mut paths: Vec<&str> = t
                .modified_paths
                .iter()
                .take(5)
                .map(String::as_str)
                .collect();
            if t.modified_paths.len() > 5 {
                paths.push("...");
            }
            format!("{}{trial}: {}", t.fixture, paths.join(", "))
        })
        .collect()
}

/// With `retries` on: how many trials needed a retry, the attempts re-run, and how many still
/// ended in `error` or `timeout`.
pub fn retry_line(results: &RunResults) -> Option<String> {
    if results.trials.iter().all(|t| t.attempts.is_empty()) {
        return None;
    }
    let retried: Vec<_> = results.trials.iter().filter(|t| t.retried).collect();
    let reruns: usize = retried.iter().map(|t| t.attempts.len() - 1).sum();
    let still = retried
        .iter()
        .filter(|t| matches!(t.outcome, Outcome::Error | Outcome::Timeout))
        .count();
    Some(format!(
        "retries: {} trial(s) needed a retry ({reruns} re-run(s) after an error or timeout); {still} \
         still ended in error or timeout",
        retried.len()
    ))
}

/// Repetition metrics, cost beside wall time, and the cache, each when it applies.
fn run_lines(results: &RunResults) -> Vec<String> {
    let m = &results.metrics.overall;
    let mut lines = Vec::new();
    if let Some(r) = &m.repeat {
        lines.push(format!(
            "trials: pass^{} {}, pass@1 {}, verdict disagreement {}, flaky fixtures {}",
            r.k,
            rate(&Some(r.pass_hat_k)),
            rate(&Some(r.pass_at_1)),
            rate(&Some(r.disagreement)),
            r.flaky
        ));
    }
    if results.pipeline_kind().ok() == Some(PipelineKind::Command) || m.cost.any_known() {
        lines.push(format!(
            "cost: {}; wall time {:.2}s over all trials",
            m.cost.display(),
            m.total_ms as f64 / 1000.0
        ));
    }
    if m.modified_repo > 0 {
        lines.push(format!(
            "read-only check: {} trial(s) changed the repository they verified",
            m.modified_repo
        ));
    }
    if let Some(i) = &results.isolation {
        lines.push(format!(
            "isolation: sandbox {}, containment {}, network {}",
            i.sandbox, i.containment, i.network
        ));
        lines.extend(i.warnings());
    }
    lines.extend(retry_line(results));
    if let Some(c) = &results.cache {
        lines.push(if c.disabled {
            format!("cache: not read (--no-cache); {} trial(s) run", c.misses)
        } else {
            format!(
                "cache: {} trial(s) reused, {} run (--no-cache runs all)",
                c.hits, c.misses
            )
        });
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
    for (title, list) in [
        ("FLAKY (good in some trials, not all)", flaky_lines(results)),
        (
            "CHANGED THE REPOSITORY IT VERIFIED",
            modified_lines(results),
        ),
    ] {
        if !list.is_empty() {
            let _ = writeln!(out, "\n{title} ({})", list.len());
            for line in list {
                let _ = writeln!(out, "  {line}");
            }
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
    let _ = writeln!(
        out,
        "ground truth: localization {}, typing {}, finding precision {}, requirement recall {}, obligation recall {}; {}",
        rate(&m.ground_truth.localization),
        rate(&m.ground_truth.typing),
        rate(&m.ground_truth.finding_precision),
        rate(&m.ground_truth.requirement_recall),
        rate(&m.ground_truth.obligation_recall),
        noise_line(m)
    );
    if m.ground_truth.localization.is_some() {
        for per_kind in [false, true] {
            let _ = writeln!(
                out,
                "ground truth per {}:",
                if per_kind { "kind" } else { "category" }
            );
            out.push_str(&aligned(&ground_truth_rows(results, per_kind), "  "));
        }
    }
    if !m.rounds.is_empty() {
        let dist: Vec<String> = m.rounds.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let _ = writeln!(out, "convergence rounds: {}", dist.join(", "));
    }
    let conv = convergence_rows(results);
    if !conv.is_empty() {
        let _ = writeln!(out, "convergence per category:");
        let widths: Vec<usize> = (0..conv[0].len())
            .map(|i| conv.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
            .collect();
        for r in &conv {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if i == 0 || i == r.len() - 1 {
                        format!("{c:<w$}", w = widths[i])
                    } else {
                        format!("{c:>w$}", w = widths[i])
                    }
                })
                .collect();
            let _ = writeln!(out, "  {}", cells.join("  ").trim_end());
        }
    }
    for line in run_lines(results) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out);
    let width = results
        .thresholds
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(24);
    for t in &results.thresholds {
        let mark = if t.met { "ok  " } else { "FAIL" };
        let _ = writeln!(
            out,
            "{mark} {:<width$} {} (bar {})",
            t.name, t.figure, t.bar
        );
    }
    if let Some(mutation) = &results.metrics.mutation {
        for line in crate::score::mutation::summary_lines(mutation) {
            let _ = writeln!(out, "{line}");
        }
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
    let _ = writeln!(
        out,
        "# gatebench: {} ({verdict})\n",
        md(&results.scenario.name)
    );
    // Broken thresholds first: they are why a check is red.
    if !broken.is_empty() {
        let _ = writeln!(out, "## Broken thresholds\n");
        for t in &broken {
            let _ = writeln!(
                out,
                "- **{}**: {} (bar {}, exit {})",
                md(&t.name),
                md(&t.figure),
                md(&t.bar),
                t.exit_code
            );
        }
        out.push('\n');
    }
    let mut setup = format!(
        "Pipeline {}, {} fixtures x {} trial(s), exit code {}",
        code(&results.pipeline),
        m.fixtures,
        results.trial_count,
        results.exit_code
    );
    if let Some(shard) = &results.shard {
        setup.push_str(&format!(", shard {}/{}", shard.index, shard.count));
    }
    if !results.merged_from.is_empty() {
        setup.push_str(&format!(
            ", merged from {} shards",
            results.merged_from.len()
        ));
    }
    let _ = writeln!(out, "{setup}.\n");
    let _ = writeln!(out, "**{}**\n", headline(results));
    if let Some(ratchet) = results
        .ratchet
        .as_ref()
        .filter(|r| !r.regressions.is_empty())
    {
        let _ = writeln!(
            out,
            "## Regressions against the baseline ({})\n\nBaseline {}.\n",
            ratchet.regressions.len(),
            code(&ratchet.baseline)
        );
        for r in &ratchet.regressions {
            let _ = writeln!(
                out,
                "- {} ({}): {}, {} -> {}",
                code(&r.fixture),
                md(&r.category),
                r.kind.as_str(),
                md(&r.base),
                md(&r.new)
            );
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
        let list: Vec<_> = results
            .trials
            .iter()
            .filter(|t| t.outcome == outcome)
            .collect();
        if !list.is_empty() {
            let _ = writeln!(out, "## {title} ({})\n", list.len());
            for t in list {
                let trial = if results.trial_count > 1 {
                    format!(" (trial {})", t.trial)
                } else {
                    String::new()
                };
                let _ = writeln!(out, "- {}{trial}: {}", code(&t.fixture), md(&t.reason));
            }
            out.push('\n');
        }
    }
    let _ = writeln!(out, "## Per category\n");
    let head = header();
    let _ = writeln!(out, "| {} |", head.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(head.len()));
    for r in table_rows(results) {
        let _ = writeln!(out, "| {} |", cells(&r));
    }
    if m.ground_truth.localization.is_some() {
        let _ = writeln!(
            out,
            "\n## Ground truth\n\nFrom each report alone, as for any verifier (docs/SCORING.md): \
             `caught` omission trials (the expected FAIL or BLOCKED), the share of them with a finding \
             at the locus (localization) and of the planted kind (typing); finding precision over \
             FAIL-level findings on omission fixtures; seed 004's Requirement and Obligation Recall. \
             {}.\n",
            noise_line(m)
        );
        for per_kind in [false, true] {
            let rows = ground_truth_rows(results, per_kind);
            let _ = writeln!(out, "| {} |", rows[0].join(" | "));
            let _ = writeln!(out, "|{}", "---|".repeat(rows[0].len()));
            for r in &rows[1..] {
                let _ = writeln!(out, "| {} |", cells(r));
            }
            out.push('\n');
        }
    }
    if !m.rounds.is_empty() {
        let _ = writeln!(out, "\n## Convergence rounds\n");
        let _ = writeln!(out, "| first PASS at | trials |\n|---|---|");
        for (k, v) in &m.rounds {
            let _ = writeln!(out, "| {k} | {v} |");
        }
        let per_category = convergence_rows(results);
        if !per_category.is_empty() {
            let _ = writeln!(
                out,
                "\nPer category (trials by the round of their first PASS; the rounds run, their \
                 wall time and cost):\n"
            );
            let _ = writeln!(out, "| {} |", per_category[0].join(" | "));
            let _ = writeln!(out, "|{}", "---|".repeat(per_category[0].len()));
            for r in &per_category[1..] {
                let _ = writeln!(out, "| {} |", cells(r));
            }
        }
        let conv = convergence_lines(results);
        if !conv.is_empty() {
            let _ = writeln!(out, "\nOff expectation:\n");
            for line in conv {
                let _ = writeln!(out, "- {}", md(&line));
            }
        }
    }
    for (title, list) in [
        (
            "Flaky fixtures (good in some trials, not all)",
            flaky_lines(results),
        ),
        (
            "Pipelines that changed the repository they verified",
            modified_lines(results),
        ),
    ] {
        if !list.is_empty() {
            let _ = writeln!(out, "\n## {title} ({})\n", list.len());
            for line in list {
                let _ = writeln!(out, "- {}", code(&line));
            }
        }
    }
    let lines = run_lines(results);
    if !lines.is_empty() {
        let _ = writeln!(out, "\n## Trials, cost and cache\n");
        for line in lines {
            let _ = writeln!(out, "- {}", md(&line));
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
            md(&t.name),
            md(&t.figure),
            md(&t.bar),
            if t.met { "yes" } else { "**no**" }
        );
    }
    if let Some(mutation) = &results.metrics.mutation {
        let _ = writeln!(out, "\n## Mutation score\n");
        out.push_str(&crate::score::mutation::markdown(mutation));
    }
    out
}

/// Text others wrote, as Markdown text (`escape::markdown`).
fn md(text: &str) -> String {
    crate::output::escape::markdown(text)
}

/// Text others wrote, as a Markdown code span (`escape::markdown_code`).
fn code(text: &str) -> String {
    crate::output::escape::markdown_code(text)
}

/// A table row's cells: the first (a category or a kind, from a fixture) escaped, so it cannot
/// add a cell or a line; the rest are figures gatebench computed.
fn cells(row: &[String]) -> String {
    row.iter()
        .enumerate()
        .map(|(i, c)| if i == 0 { md(c) } else { c.clone() })
        .collect::<Vec<_>>()
        .join(" | ")
}
