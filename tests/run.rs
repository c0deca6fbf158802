//! A scenario run end to end through the library and the binary: determinism of commit ids and
//! outcomes across runs, the summary a user sees (insta snapshot, timings and paths redacted),
//! and exit codes that CI can trust.

use std::path::{Path, PathBuf};
use std::process::Command;

use gatebench::options::{Overrides, RunOptions};
use gatebench::outcome::Outcome;
use gatebench::scenario::Scenario;
use gatebench::{run, summary};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A small fixed suite: one golden and two omission fixtures planted in it.
const SUITE: [&str; 2] = [
    "subscription-cancel-task-state-missing",
    "subscription-cancel-evidence-stale-tree",
];

fn options(scenario: &str, reports: &Path, filters: &[&str]) -> RunOptions {
    let scenario = Scenario::load(&root().join("scenarios").join(scenario)).unwrap();
    RunOptions::resolve(
        scenario,
        Overrides {
            filters: filters.iter().map(|s| s.to_string()).collect(),
            jobs: Some(2),
            reports_dir: Some(reports.to_path_buf()),
            ..Overrides::default()
        },
    )
}

fn execute(options: &RunOptions) -> run::Finished {
    run::execute(options, &|_, _, _| {}).unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn two_runs_give_identical_commit_ids_and_outcomes() {
    let reports = tempfile::tempdir().unwrap();
    let opts = options("default.yaml", reports.path(), &[]);
    let first = execute(&opts).results;
    let second = execute(&opts).results;
    let key = |r: &gatebench::results::RunResults| {
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
    let finished = execute(&options("default.yaml", reports.path(), &SUITE));
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
    let finished = execute(&options("legacy.yaml", reports.path(), &SUITE));
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

fn gatebench_bin(args: &[&str], cwd: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gatebench"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
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
    for f in SUITE {
        args.extend(["--filter", f]);
    }
    let (code, stdout, stderr) = gatebench_bin(&args, root());
    assert_eq!(code, 0, "{stdout}{stderr}");
    args[1] = "scenarios/legacy.yaml";
    let (code, stdout, _) = gatebench_bin(&args, root());
    assert_eq!(code, 2, "{stdout}");
    assert!(stdout.contains("FALSE PASSES"), "{stdout}");
}

#[test]
fn the_gate_command_passes_a_golden_and_names_the_omission_in_a_planted_one() {
    let work = tempfile::tempdir().unwrap();
    let golden: PathBuf = work.path().join("golden");
    let planted: PathBuf = work.path().join("planted");
    let m = |id: &str, out: &Path| {
        gatebench_bin(&["materialize", id, "--out", out.to_str().unwrap()], root())
    };
    assert_eq!(m("subscription-cancel", &golden).0, 0);
    assert_eq!(m("subscription-cancel-task-state-missing", &planted).0, 0);
    let (code, stdout, _) = gatebench_bin(&["gate", golden.to_str().unwrap()], root());
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.starts_with("gatebench gate: PASS"), "{stdout}");
    let (code, stdout, _) = gatebench_bin(&["gate", planted.to_str().unwrap()], root());
    assert_eq!(code, 2, "{stdout}");
    assert!(stdout.contains("task-set-complete"), "{stdout}");
    assert!(stdout.contains("tasks/T2.md"), "{stdout}");
}
