//! Human-readable summaries of a run, for the terminal and for `summary.md`, rendered from the
//! same `RunResults` that `results.json` holds. False passes come first: they are what a gate
//! must never do.

use std::fmt::Write;

use crate::corpus::scenario::PipelineKind;
use crate::output::render::table::{Align, Cell, Table};
use crate::output::render::tiers;
use crate::output::store::results::RunResults;
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

const COLUMNS: &[Outcome] = Outcome::ALL;

fn row(name: &str, m: &Metrics) -> Vec<Cell> {
    let mut cells = vec![Cell::others(name), m.fixtures.to_string().into()];
    cells.extend(COLUMNS.iter().map(|o| m.count(*o).to_string().into()));
    cells.push(rate(&m.recall).into());
    cells.push(rate(&m.false_pass_rate).into());
    cells
}

/// The outcome table: one row per category, overall as the total.
fn outcome_table(results: &RunResults) -> Table {
    let mut head = vec!["category", "fixtures"];
    head.extend(COLUMNS.iter().map(|o| o.as_str()));
    head.extend(["recall [95% CI]", "false-pass rate [95% CI]"]);
    let mut table = Table::new(head).figures();
    for (name, m) in &results.metrics.per_category {
        table.push(row(name, m));
    }
    table.total(row("overall", &results.metrics.overall));
    table
}

fn ground_truth_row(name: &str, m: &Metrics) -> Vec<Cell> {
    let g = &m.ground_truth;
    vec![
        Cell::others(name),
        g.localization
            .map_or_else(|| "0".to_owned(), |r| r.denominator.to_string())
            .into(),
        rate(&g.localization).into(),
        rate(&g.typing).into(),
        rate(&g.finding_precision).into(),
        rate(&g.requirement_recall).into(),
        rate(&g.obligation_recall).into(),
    ]
}

/// The ground-truth table, with the verifier-neutral columns (docs/SCORING.md), each rate with
/// its Wilson interval: one row per category (or kind) with omission trials, then overall (set
/// apart as a total when there is a row above it).
pub fn ground_truth_table(results: &RunResults, per_kind: bool) -> Table {
    let groups = if per_kind {
        &results.metrics.per_kind
    } else {
        &results.metrics.per_category
    };
    let mut table = Table::new([
        if per_kind { "kind" } else { "category" },
        "caught",
        "localization [95% CI]",
        "typing [95% CI]",
        "finding precision [95% CI]",
        "requirement recall [95% CI]",
        "obligation recall [95% CI]",
    ])
    .figures();
    let mut any = false;
    for (name, m) in groups.iter().filter(|(_, m)| m.recall.is_some()) {
        table.push(ground_truth_row(name, m));
        any = true;
    }
    let overall = ground_truth_row("overall", &results.metrics.overall);
    if any {
        table.total(overall);
    } else {
        table.push(overall);
    }
    table
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
/// it. `None` when no trial ran more than one round.
fn convergence_table(results: &RunResults) -> Option<Table> {
    if !results.trials.iter().any(|t| t.rounds.len() > 1) {
        return None;
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
    // The category and the cost (words) left, the counts right.
    let last = head.len() - 1;
    let align = (0..head.len()).map(|i| {
        if i == 0 || i == last {
            Align::Left
        } else {
            Align::Right
        }
    });
    let mut table = Table::new(head).aligned(align);
    for (category, m) in &results.metrics.per_category {
        if m.rounds.is_empty() {
            continue;
        }
        let mut row = vec![Cell::others(category.as_str())];
        row.extend(
            keys.iter()
                .map(|k| m.rounds.get(*k).copied().unwrap_or(0).to_string().into()),
        );
        row.push(m.rounds_run.to_string().into());
        row.push(format!("{:.2}s", m.round_ms as f64 / 1000.0).into());
        row.push(
            if m.cost.any_known() {
                m.cost.display()
            } else {
                "not reported".to_owned()
            }
            .into(),
        );
        table.push(row);
    }
    Some(table)
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

/// A titled list for the terminal: `\nTITLE (n)` and the lines indented; nothing when empty.
fn text_list(out: &mut String, title: &str, list: Vec<String>) {
    if !list.is_empty() {
        let _ = writeln!(out, "\n{title} ({})", list.len());
        for line in list {
            let _ = writeln!(out, "  {line}");
        }
    }
}

/// The terminal's lists of what went wrong: false passes first, then what else is off.
fn text_lists(out: &mut String, results: &RunResults) {
    for (title, outcome) in [
        ("FALSE PASSES", Outcome::FalsePass),
        ("FALSE ALARMS (goldens that failed)", Outcome::FalseAlarm),
        ("WRONG REASON", Outcome::WrongReason),
        ("ERRORS", Outcome::Error),
        ("TIMEOUTS", Outcome::Timeout),
    ] {
        text_list(out, title, bad_trials(results, outcome));
    }
    text_list(out, "ROUNDS OFF EXPECTATION", convergence_lines(results));
    text_list(
        out,
        "FLAKY (good in some trials, not all)",
        flaky_lines(results),
    );
    text_list(
        out,
        "CHANGED THE REPOSITORY IT VERIFIED",
        modified_lines(results),
    );
}

/// The terminal's ground-truth line, and its tables per category and per kind when anything was
/// caught.
fn text_ground_truth(out: &mut String, results: &RunResults) {
    let m = &results.metrics.overall;
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
            out.push_str(&ground_truth_table(results, per_kind).text("  "));
        }
    }
}

/// The terminal's convergence: the overall distribution, then per category.
fn text_convergence(out: &mut String, results: &RunResults) {
    let m = &results.metrics.overall;
    if !m.rounds.is_empty() {
        let dist: Vec<String> = m.rounds.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let _ = writeln!(out, "convergence rounds: {}", dist.join(", "));
    }
    if let Some(table) = convergence_table(results) {
        let _ = writeln!(out, "convergence per category:");
        out.push_str(&table.text("  "));
    }
}

/// The terminal's thresholds, one a line, the names in a column at least 24 wide.
fn text_thresholds(out: &mut String, results: &RunResults) {
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
    text_lists(&mut out, results);
    out.push('\n');
    out.push_str(&outcome_table(results).text(""));
    let _ = writeln!(out, "\n{}", headline(results));
    if let Some(line) = tiers::terminal_line(&results.metrics) {
        let _ = writeln!(out, "{line}");
    }
    text_ground_truth(&mut out, results);
    text_convergence(&mut out, results);
    for line in run_lines(results) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out);
    text_thresholds(&mut out, results);
    if let Some(mutation) = &results.metrics.mutation {
        for line in crate::output::render::mutation_summary::summary_lines(mutation) {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// `summary.md`'s title and, first, the broken thresholds: they are why a check is red.
fn md_head(out: &mut String, results: &RunResults) {
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
}

/// `summary.md`'s setup line (pipeline, size, exit code, shard or merge) and headline.
fn md_setup(out: &mut String, results: &RunResults) {
    let mut setup = format!(
        "Pipeline {}, {} fixtures x {} trial(s), exit code {}",
        code(&results.pipeline),
        results.metrics.overall.fixtures,
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
}

/// `summary.md`'s regressions against the ratchet's baseline, when there are any.
fn md_regressions(out: &mut String, results: &RunResults) {
    let Some(ratchet) = results
        .ratchet
        .as_ref()
        .filter(|r| !r.regressions.is_empty())
    else {
        return;
    };
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

/// `summary.md`'s trials that went wrong, one section per outcome.
fn md_bad_trials(out: &mut String, results: &RunResults) {
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
}

/// `summary.md`'s ground truth: what it measures, then the tables per category and per kind.
fn md_ground_truth(out: &mut String, results: &RunResults) {
    let m = &results.metrics.overall;
    if m.ground_truth.localization.is_none() {
        return;
    }
    let _ = writeln!(
        out,
        "\n## Ground truth\n\nFrom each report alone, as for any verifier (docs/SCORING.md): \
         `caught` omission trials (the expected FAIL or BLOCKED), the share of them with a finding \
         at the locus (localization) and of the planted kind (typing); finding precision over \
         FAIL-level findings on omission fixtures; Requirement and Obligation Recall as the Loom plan defines them. \
         {}.\n",
        noise_line(m)
    );
    for per_kind in [false, true] {
        out.push_str(&ground_truth_table(results, per_kind).markdown());
        out.push('\n');
    }
}

/// `summary.md`'s convergence: the distribution, per category, and the trials off expectation.
fn md_convergence(out: &mut String, results: &RunResults) {
    let m = &results.metrics.overall;
    if m.rounds.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n## Convergence rounds\n");
    let mut rounds = Table::new(["first PASS at", "trials"]);
    for (k, v) in &m.rounds {
        rounds.push([k.clone(), v.to_string()]);
    }
    out.push_str(&rounds.markdown());
    if let Some(table) = convergence_table(results) {
        let _ = writeln!(
            out,
            "\nPer category (trials by the round of their first PASS; the rounds run, their \
             wall time and cost):\n"
        );
        out.push_str(&table.markdown());
    }
    let conv = convergence_lines(results);
    if !conv.is_empty() {
        let _ = writeln!(out, "\nOff expectation:\n");
        for line in conv {
            let _ = writeln!(out, "- {}", md(&line));
        }
    }
}

/// `summary.md`'s flaky fixtures, repositories changed, and the run's lines (trials, cost, cache).
fn md_run_lists(out: &mut String, results: &RunResults) {
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
}

/// `summary.md`'s thresholds table.
fn md_thresholds(out: &mut String, results: &RunResults) {
    let _ = writeln!(out, "\n## Thresholds\n");
    let mut table = Table::new(["threshold", "figure", "bar", "met"]);
    for t in &results.thresholds {
        table.push([
            Cell::others(t.name.as_str()),
            Cell::others(t.figure.as_str()),
            Cell::others(t.bar.as_str()),
            (if t.met { "yes" } else { "**no**" }).into(),
        ]);
    }
    out.push_str(&table.markdown());
}

/// The Markdown summary (`summary.md`).
pub fn markdown(results: &RunResults) -> String {
    let mut out = String::new();
    md_head(&mut out, results);
    md_setup(&mut out, results);
    md_regressions(&mut out, results);
    md_bad_trials(&mut out, results);
    let _ = writeln!(out, "## Per category\n");
    out.push_str(&outcome_table(results).markdown());
    out.push_str(&tiers::markdown(&results.metrics).unwrap_or_default());
    md_ground_truth(&mut out, results);
    md_convergence(&mut out, results);
    md_run_lists(&mut out, results);
    md_thresholds(&mut out, results);
    if let Some(mutation) = &results.metrics.mutation {
        let _ = writeln!(out, "\n## Mutation score\n");
        out.push_str(&crate::output::render::mutation_summary::markdown(mutation));
    }
    out
}

/// Text others wrote, as Markdown text (`escape::markdown`).
fn md(text: &str) -> String {
    crate::output::render::escape::markdown(text)
}

/// Text others wrote, as a Markdown code span (`escape::markdown_code`).
fn code(text: &str) -> String {
    crate::output::render::escape::markdown_code(text)
}
