//! A scenario run end to end through the library and the binary: determinism of commit ids and
//! outcomes across runs, the summary a user sees (insta snapshot, timings and paths redacted),
//! and exit codes that CI can trust.

use crate::common;

use std::path::{Path, PathBuf};

use common::{bundled, gatebench, root, SMALL};
use gatebench::output::render::summary;
use gatebench::score::outcome::Outcome;

#[test]
fn two_runs_give_identical_commit_ids_and_outcomes() {
    let reports = tempfile::tempdir().unwrap();
    let first = bundled("default.yaml", reports.path(), &[]).results;
    let second = bundled("default.yaml", reports.path(), &[]).results;
    let key = |r: &gatebench::output::store::results::RunResults| {
        r.trials
            .iter()
            .map(|t| {
                (
                    t.fixture.clone(),
                    t.outcome,
                    t.commits.clone(),
                    t.rounds.iter().map(|r| r.verdict).collect::<Vec<_>>(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert!(first.trials.len() >= 3);
    assert!(first.trials.iter().all(|t| t.commits.contains_key("head")));
    assert_eq!(key(&first), key(&second));
}

fn redact(text: &str) -> String {
    let secs = regex::Regex::new(r"\d+\.\d+s\b").unwrap();
    let path = regex::Regex::new(r"results: .*").unwrap();
    let text = secs.replace_all(text, "[elapsed]");
    path.replace_all(&text, "results: [path]").into_owned()
}

#[test]
fn the_builtin_gate_summary_on_a_small_suite() {
    let reports = tempfile::tempdir().unwrap();
    let finished = bundled("default.yaml", reports.path(), &SMALL);
    let results = &finished.results;
    assert_eq!(results.exit_code, 0);
    assert!(finished.dir.join("results.json").is_file());
    assert!(finished.dir.join("summary.md").is_file());
    insta::assert_snapshot!(
        "builtin_small_suite_terminal",
        redact(&summary::terminal(results))
    );
}

#[test]
fn the_legacy_checker_passes_known_omissions_and_the_summary_says_so_first() {
    let reports = tempfile::tempdir().unwrap();
    let finished = bundled("legacy.yaml", reports.path(), &SMALL);
    let results = &finished.results;
    assert!(results
        .trials
        .iter()
        .any(|t| t.outcome == Outcome::FalsePass));
    assert_eq!(results.exit_code, gatebench::exit_code::THRESHOLDS);
    insta::assert_snapshot!(
        "legacy_small_suite_markdown",
        redact(&summary::markdown(results))
    );
}

#[test]
fn the_binary_exits_zero_when_thresholds_hold_and_two_on_a_false_pass() {
    let reports = tempfile::tempdir().unwrap();
    let reports_arg = reports.path().to_str().unwrap();
    let mut args = vec![
        "run",
        "scenarios/default.yaml",
        "--quiet",
        "--reports-dir",
        reports_arg,
    ];
    for f in SMALL {
        args.extend(["--filter", f]);
    }
    let out = gatebench(&args, root());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    args[1] = "scenarios/legacy.yaml";
    let out = gatebench(&args, root());
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stdout.contains("FALSE PASSES"), "{}", out.stdout);
}

#[test]
fn the_gate_command_passes_a_golden_and_names_the_omission_in_a_planted_one() {
    let work = tempfile::tempdir().unwrap();
    let golden: PathBuf = work.path().join("golden");
    let planted: PathBuf = work.path().join("planted");
    let m = |id: &str, out: &Path| {
        gatebench(&["materialize", id, "--out", out.to_str().unwrap()], root()).code
    };
    assert_eq!(m("subscription-cancel", &golden), 0);
    assert_eq!(m("subscription-cancel-task-state-missing", &planted), 0);
    let out = gatebench(&["gate", golden.to_str().unwrap()], root());
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout.starts_with("gatebench gate: PASS"),
        "{}",
        out.stdout
    );
    let out = gatebench(&["gate", planted.to_str().unwrap()], root());
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stdout.contains("task-set-complete"), "{}", out.stdout);
    assert!(out.stdout.contains("tasks/T2.md"), "{}", out.stdout);
}
