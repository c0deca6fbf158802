//! The mutation score in a run's outputs: unviable mutants, convergence rounds and cost per
//! operator in `results.json` (and kept by `replay` and `merge`), the summaries, and `compare`
//! (both scores, the Newcombe interval of the difference, new and fixed survivors). The survivors
//! come from a verifier that says PASS whatever the repository holds: every mutant must survive it.

use crate::common;

use std::path::Path;

use common::*;
use gatebench::output::render::compare;
use gatebench::output::store::results::RunResults;
use gatebench::score::mutation::MutationScore;

const GOLDEN: &str = "subscription-cancel";
const OPERATORS: &str = "[delete-task-state, edit-approved-artifact]";

/// A scenario over the mutants of `OPERATORS` in `GOLDEN` with `pipeline` (YAML lines).
fn mutant_scenario(dir: &Path, name: &str, pipeline: &str) -> std::path::PathBuf {
    scenario(
        dir,
        name,
        &format!(
            "fixtures:\n  tags: [mutant]\nmutants:\n  goldens: [{GOLDEN}]\n  operators: {OPERATORS}\n\
             pipeline:\n{pipeline}\nmax_rounds: 3\n"
        ),
    )
}

fn always_pass() -> String {
    // The script reads its helper beside it: the sandbox lets it read that folder.
    let pipelines = root().join("tests/pipelines");
    format!(
        "  kind: command\n  command: [sh, {}]\n  timeout_secs: 60\n  sandbox: {{read: ['{}']}}",
        pipelines.join("always-pass.sh").display(),
        pipelines.display()
    )
}

fn mutation(r: &RunResults) -> &MutationScore {
    r.metrics.mutation.as_ref().expect("a mutation score")
}

fn mutant_ids(r: &RunResults) -> Vec<String> {
    r.trials
        .iter()
        .filter(|t| !t.golden)
        .map(|t| t.fixture.clone())
        .collect()
}

#[test]
fn unviable_mutants_convergence_and_cost_are_recorded_in_results_and_summaries() {
    let dir = tempfile::tempdir().unwrap();
    let reports = dir.path().join("reports");
    let s = mutant_scenario(dir.path(), "mutants-builtin", "  kind: builtin");
    let finished = execute(&options(&s, &reports, &[]));
    let r = &finished.results;
    let m = mutation(r);
    let mutants = mutant_ids(r);
    assert!(mutants.len() >= 3, "{mutants:?}");
    // The reference gate catches every one of these (docs/MUTATION.md: 2281/2281).
    assert_eq!(m.score.numerator, mutants.len() as u64);
    assert!(m.survivors.is_empty());

    // An approved JSON artifact takes no appended line: that mutant is unviable (the operator's
    // whitespace variant stays viable), and nothing of delete-task-state is.
    let unviable = m.unviable.as_ref().expect("unviable mutants recorded");
    let edit = &unviable.per_operator["edit-approved-artifact"];
    assert!(edit.count >= 1);
    assert_eq!(unviable.count, edit.count);
    assert!(!unviable.per_operator.contains_key("delete-task-state"));
    for reason in &edit.reasons {
        assert!(reason
            .mutant
            .starts_with("subscription-cancel--edit-approved-artifact--"));
        assert!(!mutants.contains(&reason.mutant), "an unviable mutant ran");
    }
    // The count is the one `gatebench mutate --list` prints for the same selection.
    let out = gatebench(
        &[
            "mutate",
            "--goldens",
            GOLDEN,
            "--operators",
            "delete-task-state,edit-approved-artifact",
            "--list",
        ],
        root(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let listed = format!("{} unviable", unviable.count);
    assert!(
        out.stdout.contains(&listed) || out.stderr.contains(&listed),
        "{}{}",
        out.stdout,
        out.stderr
    );

    // Every mutant: FAIL in round 1, the scripted fix, PASS in round 2.
    for (op, l) in &m.per_operator_convergence {
        let n = r
            .trials
            .iter()
            .filter(|t| t.fixture.contains(&format!("--{op}--")))
            .count() as u64;
        assert_eq!((l.trials, l.as_expected, l.converged), (n, n, n), "{op}");
        assert_eq!(l.mean_rounds, Some(2.0), "{op}");
        assert_eq!(l.rounds_run, 2 * n, "{op}");
        let ms: u64 = r
            .trials
            .iter()
            .filter(|t| t.fixture.contains(&format!("--{op}--")))
            .map(|t| t.duration_ms)
            .sum();
        assert_eq!(l.total_ms, ms, "{op}");
    }
    assert_eq!(m.convergence.trials, mutants.len() as u64);

    // results.json carries it, and a filter narrows the unviable count with the selection.
    let text = std::fs::read_to_string(finished.dir.join("results.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let recorded = &json["metrics"]["mutation"];
    assert_eq!(recorded["unviable"]["count"], unviable.count);
    assert_eq!(
        recorded["per_operator_convergence"]["delete-task-state"]["as_expected"],
        m.per_operator_convergence["delete-task-state"].as_expected
    );
    let filtered = execute(&options(&s, &reports, &["*--delete-task-state--*"]));
    assert_eq!(
        mutation(&filtered.results)
            .unviable
            .as_ref()
            .map(|u| u.count),
        Some(0)
    );

    // The summaries show it.
    let summary = std::fs::read_to_string(finished.dir.join("summary.md")).unwrap();
    assert!(summary.contains(&format!(
        "Unviable mutants (not run): {} (edit-approved-artifact {})",
        unviable.count, edit.count
    )));
    assert!(summary.contains("| `delete-task-state` |"));
    let terminal = gatebench::output::render::summary::terminal(r);
    assert!(terminal.contains("Loop: "), "{terminal}");
    assert!(
        terminal.contains("Unviable mutants (not run)"),
        "{terminal}"
    );

    // Replay re-scores the recorded trials against the mutants generated again; the unviable
    // mutants, never run, keep their recorded count.
    let replayed = gatebench::run::replay::replay(&gatebench::run::replay::ReplayOptions {
        recorded: finished.dir.clone(),
        fixtures_dir: None,
        reports_dir: reports.clone(),
    })
    .unwrap_or_else(|e| panic!("{e:?}"));
    let rm = mutation(&replayed.results);
    assert_eq!(rm.score, m.score);
    assert_eq!(rm.unviable, m.unviable);

    // Shards run the mutants between them, but each records the whole selection's unviable
    // mutants (never sharded): merged, the count is the unsharded run's, not twice it.
    let parts: Vec<_> = (1..=2)
        .map(|index| {
            let mut opts = options(&s, &reports, &[]);
            opts.shard = Some(gatebench::shard::Shard { index, count: 2 });
            let finished = execute(&opts);
            (finished.dir.join("results.json"), finished.results)
        })
        .collect();
    let merged = gatebench::run::merge::merge(parts, std::time::SystemTime::now())
        .unwrap_or_else(|e| panic!("{e:?}"));
    let mm = mutation(&merged);
    assert_eq!(mm.score, m.score);
    assert_eq!(mm.unviable, m.unviable);
}

#[test]
fn compare_shows_both_mutation_scores_their_difference_and_new_and_fixed_survivors() {
    let dir = tempfile::tempdir().unwrap();
    let reports = dir.path().join("reports");
    let builtin = mutant_scenario(dir.path(), "mutants-builtin", "  kind: builtin");
    let pass = mutant_scenario(dir.path(), "mutants-always-pass", &always_pass());
    let base = execute(&options(&builtin, &reports, &[])).results;
    let new = execute(&options(&pass, &reports, &[])).results;
    let mutants = mutant_ids(&new);
    // A verifier that says PASS to everything passes every mutant.
    assert_eq!(mutation(&new).survivors, mutants);
    assert_eq!(mutation(&new).score.numerator, 0);
    // It passes in round 1: no mutant converges in its expected round 2.
    assert_eq!(mutation(&new).convergence.as_expected, 0);

    let c = compare::compare(&base, &new, "builtin", "always-pass");
    let m = c.mutation.as_ref().expect("a mutation comparison");
    assert_eq!(m.new_survivors, mutants);
    assert!(m.fixed.is_empty());
    assert_eq!(m.score.base.map(|r| r.value), Some(Some(1.0)));
    assert_eq!(m.score.new.map(|r| r.value), Some(Some(0.0)));
    assert_eq!(m.unviable.0, m.unviable.1);
    assert!(m.unviable.0.is_some());
    let operators: Vec<&str> = m.per_operator.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(operators, ["delete-task-state", "edit-approved-artifact"]);
    let text = compare::text(&c);
    // The difference -1 with its Newcombe interval, which excludes 0 here.
    let score_line = text
        .lines()
        .find(|l| l.trim_start().starts_with("mutation score "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(score_line.contains("1.000 ["), "{score_line}");
    assert!(score_line.contains("-1.000 [-1.00, -"), "{score_line}");
    assert!(text.contains(&format!(
        "NEW SURVIVORS (passed in new, not in base): {}",
        mutants.len()
    )));
    for id in &mutants {
        assert!(text.contains(&format!("\n  {id}\n")), "{id}");
    }
    let markdown = compare::markdown(&c);
    assert!(markdown.contains("## New survivors"), "{markdown}");
    assert!(markdown.contains("## Mutation score per operator (both runs)"));

    // The other way round, every survivor of the base is fixed.
    let back = compare::compare(&new, &base, "always-pass", "builtin");
    let mb = back.mutation.as_ref().unwrap();
    assert_eq!(mb.fixed, mutants);
    assert!(mb.new_survivors.is_empty());
    assert!(compare::text(&back).contains("FIXED SURVIVORS (passed in base, caught in new)"));

    // A run without mutants compared with one with them: the section shows, no operator rows.
    let plain = bundled("default.yaml", &reports, &SMALL).results;
    let c = compare::compare(&plain, &new, "plain", "always-pass");
    let m = c.mutation.as_ref().unwrap();
    assert!(m.per_operator.is_empty());
    assert_eq!(m.score.base, None);
    assert!(compare::compare(&plain, &plain, "a", "b")
        .mutation
        .is_none());
}
