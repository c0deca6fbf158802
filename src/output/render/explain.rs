//! `gatebench explain FIXTURE`: what a fixture plants (the diff between its golden's composed
//! trees and its own, layer by layer, and what each scripted fix changes), what a correct gate
//! must report, and what the last run's pipeline reported for it.

use std::fmt::Write;
use std::path::Path;

use crate::corpus::model::fixture::ExpectedRounds;
use crate::corpus::{Composed, Corpus, Files, Fixture};
use crate::error::{Error, Result};
use crate::output::render::reported;
use crate::output::store::results::RunResults;
use crate::score::outcome;
use crate::score::record::TrialRecord;

pub use crate::output::store::trial_logs::diff_trees;

fn layers(f: &Composed) -> Vec<(&'static str, Option<&Files>)> {
    vec![
        ("base (main)", Some(&f.states.base)),
        ("head (the feature branch, HEAD)", Some(&f.states.head)),
        ("staged (index)", f.states.staged.as_ref()),
        ("unstaged (work tree)", f.states.unstaged.as_ref()),
    ]
}

fn indent(text: &str, by: &str) -> String {
    text.lines().map(|l| format!("{by}{l}\n")).collect()
}

/// The fixture named `id`, or an error naming up to five ids that look like it.
fn find<'a>(corpus: &'a Corpus, id: &str) -> Result<&'a Fixture> {
    corpus.get(id).ok_or_else(|| {
        let close: Vec<&str> = corpus
            .fixtures
            .iter()
            .map(|f| f.id.as_str())
            .filter(|f| f.contains(id) || id.contains(*f))
            .take(5)
            .collect();
        let hint = if close.is_empty() {
            String::new()
        } else {
            format!(" (did you mean {}?)", close.join(", "))
        };
        Error::invalid(
            corpus_dir(corpus),
            format!("no fixture with id `{id}`{hint}"),
        )
    })
}

/// WHAT IT PLANTS: the diff from the golden's trees layer by layer (or, for a golden, its size),
/// then what each scripted fix changes.
fn plants(out: &mut String, corpus: &Corpus, fixture: &Fixture) -> Result<()> {
    let _ = writeln!(out, "\nWHAT IT PLANTS");
    let trees = fixture.compose()?;
    match fixture.golden.as_deref().and_then(|g| corpus.get(g)) {
        Some(golden) => {
            let golden_trees = golden.compose()?;
            let _ = writeln!(
                out,
                "  planted in the golden `{}`; the diff from its trees, layer by layer:",
                golden.id
            );
            for ((name, g), (_, f)) in layers(&golden_trees).into_iter().zip(layers(&trees)) {
                let empty = Files::new();
                let (g, f) = match (g, f) {
                    (None, None) => continue,
                    (g, f) => (g.unwrap_or(&empty), f.unwrap_or(&empty)),
                };
                let diff = diff_trees(g, f);
                if diff.is_empty() {
                    let _ = writeln!(out, "\n  {name}: unchanged");
                } else {
                    let _ = writeln!(out, "\n  {name}:");
                    out.push_str(&indent(&diff, "    "));
                }
            }
            if fixture.worktree != golden.worktree {
                let _ = writeln!(
                    out,
                    "\n  HEAD is checked out in a linked worktree: {}",
                    fixture.worktree
                );
            }
        }
        None => {
            let _ = writeln!(
                out,
                "  nothing: a golden (control) is a clean project; a correct gate passes it.\n  its trees: base {} files, head {} files",
                trees.states.base.len(),
                trees.states.head.len()
            );
        }
    }
    let mut before = trees.final_files();
    for (n, fix) in trees.fixes.iter().enumerate() {
        let _ = writeln!(
            out,
            "\n  scripted fix {} (committed after round {} when it did not pass):",
            n + 1,
            fix.after_round
        );
        out.push_str(&indent(&diff_trees(before, &fix.files), "    "));
        before = &fix.files;
    }
    Ok(())
}

/// WHAT A CORRECT GATE MUST REPORT: verdict, findings, convergence.
fn expectation(out: &mut String, fixture: &Fixture) {
    let _ = writeln!(out, "\nWHAT A CORRECT GATE MUST REPORT");
    let _ = writeln!(out, "  verdict: {}", fixture.expect.verdict.as_str());
    let expected: Vec<_> = fixture
        .expect
        .findings
        .iter()
        .map(|m| m.spec.clone())
        .collect();
    for line in reported::expected_lines(&expected) {
        let _ = writeln!(out, "  finding {line}");
    }
    match fixture.expect.rounds {
        Some(ExpectedRounds::After(n)) => {
            let _ = writeln!(out, "  converges: PASS at round {n}");
        }
        Some(ExpectedRounds::Never) => {
            let _ = writeln!(out, "  converges: never (within the scenario's rounds)");
        }
        None => {}
    }
}

/// WHAT THE LAST RUN REPORTED: the run, then each of the fixture's trials in it.
fn last_run(out: &mut String, id: &str, last: Option<(&str, &RunResults)>) {
    let _ = writeln!(out, "\nWHAT THE LAST RUN REPORTED");
    let Some((label, results)) = last else {
        let _ = writeln!(out, "  no run found (run `gatebench run` first)");
        return;
    };
    let _ = writeln!(
        out,
        "  run {} ({label}), pipeline {}",
        results.run_id, results.pipeline
    );
    // The run's folder: `label` names it or its results file.
    let run_dir = std::path::Path::new(label);
    let run_dir = if run_dir.is_dir() {
        Some(run_dir)
    } else {
        run_dir.parent()
    };
    let trials: Vec<_> = results.trials.iter().filter(|t| t.fixture == id).collect();
    if trials.is_empty() {
        let _ = writeln!(out, "  this fixture was not in that run");
    }
    for t in trials {
        trial(out, results, run_dir, &t);
    }
}

/// One trial of the last run: outcome, its log folder, round 1's verdict and findings, what was
/// expected but not reported, the later rounds and convergence.
fn trial(out: &mut String, results: &RunResults, run_dir: Option<&Path>, t: &TrialRecord) {
    let _ = writeln!(
        out,
        "\n  trial {}: {} ({})",
        t.trial,
        t.outcome.as_str(),
        t.reason
    );
    let case = crate::output::store::trial_logs::case_of(results, t);
    let log = run_dir
        .filter(|_| crate::ids::is_case_id(&case))
        .map(|d| d.join(crate::output::store::trial_logs::TRIALS).join(&case));
    if let Some(log) = log.filter(|l| l.is_dir()) {
        let _ = writeln!(out, "    trial log: {}/", log.display());
    }
    if t.retried {
        let _ = writeln!(out, "    attempts: {} (retried)", t.attempts.len());
    }
    if let Some(r) = reported::round_one(t, results.objects.as_ref()) {
        match r.verdict {
            Some(v) => {
                let _ = writeln!(
                    out,
                    "    round 1: {} with {} finding(s)",
                    v.as_str(),
                    r.total()
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "    round 1: no usable answer: {}",
                    r.error.as_deref().unwrap_or("-")
                );
            }
        }
        for f in &r.findings {
            let _ = writeln!(out, "      {}", f.line());
        }
        if r.left_out > 0 {
            let _ = writeln!(out, "      ({} more finding(s) not shown)", r.left_out);
        }
    }
    for m in t.matchers.iter().filter(|m| m.matched_finding.is_none()) {
        let _ = writeln!(
            out,
            "    expected but not reported: {}",
            outcome::describe(&m.matcher)
        );
    }
    for round in t.rounds.iter().skip(1) {
        let _ = writeln!(
            out,
            "    round {}: {}",
            round.round,
            round.verdict.map_or("no usable answer", |v| v.as_str())
        );
    }
    if let Some(c) = &t.convergence {
        let show = |r: Option<u32>| r.map_or("never".to_owned(), |r| format!("round {r}"));
        let _ = writeln!(
            out,
            "    converged: {} (expected {})",
            show(c.actual),
            show(c.expected)
        );
    }
}

/// The explanation of one fixture, with the last run's trials of it when `last` is given.
pub fn explain(corpus: &Corpus, id: &str, last: Option<(&str, &RunResults)>) -> Result<String> {
    let fixture = find(corpus, id)?;
    let mut out = String::new();
    let _ = writeln!(out, "{} ({})", fixture.id, fixture.category);
    let _ = writeln!(out, "  {}", fixture.description);
    let _ = writeln!(out, "  file: {}", fixture.file.display());
    if !fixture.tags.is_empty() {
        let _ = writeln!(out, "  tags: {}", fixture.tags.join(", "));
    }
    plants(&mut out, corpus, fixture)?;
    expectation(&mut out, fixture);
    evidence(&mut out, corpus, fixture)?;
    last_run(&mut out, id, last);
    Ok(out)
}

/// A semantic mutant's ground truth as its validation recorded it: the status and every run that
/// proved it (command, exit code, failing and not-run tests, the tree it ran on).
fn evidence(out: &mut String, corpus: &Corpus, fixture: &Fixture) -> Result<()> {
    if fixture.tier != crate::corpus::taxonomy::Tier::Semantic {
        return Ok(());
    }
    let Some(record) = crate::mutate::semantic::record::Record::load(&corpus.dir)? else {
        return Ok(());
    };
    let Some(entry) = record.get(&fixture.id) else {
        return Ok(());
    };
    let _ = writeln!(
        out,
        "  proved by running the golden's suite: {}",
        entry.status.as_str()
    );
    if let Some(with) = &entry.with {
        let _ = writeln!(out, "    with the code mutant {with}");
    }
    for run in &entry.runs {
        let exit = run.exit_code.map_or("none".to_owned(), |c| c.to_string());
        let _ = writeln!(
            out,
            "    {}: `{}` on tree {}",
            run.role,
            run.command.join(" "),
            run.tree
        );
        let _ = writeln!(
            out,
            "      exit {exit}{}; {} passed; failing: {}",
            if run.timed_out { " (timed out)" } else { "" },
            run.passed,
            if run.failing.is_empty() {
                "none".to_owned()
            } else {
                run.failing.join(", ")
            }
        );
        if !run.not_run.is_empty() {
            let _ = writeln!(
                out,
                "      not run (skipped, xfail, todo): {}",
                run.not_run.join(", ")
            );
        }
    }
    Ok(())
}

fn corpus_dir(corpus: &Corpus) -> std::path::PathBuf {
    corpus
        .fixtures
        .first()
        .and_then(|f| f.file.parent().and_then(|p| p.parent()))
        .map_or_else(|| "fixtures".into(), |p| p.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(entries: &[(&str, &str)]) -> Files {
        entries
            .iter()
            .map(|(p, c)| (p.to_string(), c.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn a_tree_diff_shows_added_deleted_and_changed_files() {
        let a = files(&[("keep", "same\n"), ("gone", "x\n"), ("edit", "one\ntwo\n")]);
        let b = files(&[("keep", "same\n"), ("new", "y\n"), ("edit", "one\n2\n")]);
        let diff = diff_trees(&a, &b);
        assert!(diff.contains("--- a/gone\n+++ /dev/null\n"), "{diff}");
        assert!(diff.contains("--- /dev/null\n+++ b/new\n"), "{diff}");
        assert!(diff.contains("-two\n+2\n"), "{diff}");
        assert!(!diff.contains("keep"), "{diff}");
    }
}
