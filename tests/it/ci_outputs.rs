//! The CI outputs of a run (issue 6): every file written, JUnit and summary.md snapshots, the
//! GitHub step summary, `compare`, the ratchet against a baseline, per-category recall bars,
//! `list --outcome` and `explain`. Snapshots have run ids, temp paths and timings redacted.

use crate::common;

use common::*;
use gatebench::exit_code;
use gatebench::output::outputs;
use gatebench::output::render::compare;
use gatebench::output::render::junit;
use gatebench::output::render::summary;
use gatebench::score::changes::ChangeKind;
use gatebench::score::ratchet;

#[test]
fn a_run_writes_results_summary_junit_and_html_into_its_folder() {
    let reports = tempfile::tempdir().unwrap();
    let finished = bundled("default.yaml", reports.path(), &SMALL);
    for file in outputs::FILES {
        let path = finished.dir.join(file);
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        assert!(len > 0, "{} missing or empty", path.display());
    }
    let junit = std::fs::read_to_string(finished.dir.join("junit.xml")).unwrap();
    assert_eq!(
        junit,
        junit::render_linked(&finished.results, true).unwrap()
    );
}

#[test]
fn junit_has_one_case_per_trial_and_false_passes_fail_with_their_reason() {
    let reports = tempfile::tempdir().unwrap();
    let finished = bundled("legacy.yaml", reports.path(), &SMALL);
    let xml = junit::render(&finished.results).unwrap();
    assert_eq!(
        xml.matches("<testcase ").count(),
        finished.results.trials.len() + finished.results.thresholds.len()
    );
    assert!(
        xml.contains(r#"name="subscription-cancel-task-state-missing [0]" classname="task-state""#),
        "{xml}"
    );
    assert!(xml.contains(r#"type="false-pass""#), "{xml}");
    redactions(reports.path()).bind(|| insta::assert_snapshot!("legacy_small_suite_junit", xml));
}

#[test]
fn summary_md_puts_broken_thresholds_first_and_names_false_passes_by_id() {
    let reports = tempfile::tempdir().unwrap();
    let finished = bundled("legacy.yaml", reports.path(), &SMALL);
    let md = summary::markdown(&finished.results);
    let broken = md
        .find("## Broken thresholds")
        .expect("a broken-thresholds section");
    let headline = md.find("**false-pass rate").expect("the headline");
    let table = md.find("## Per category").expect("the per-category table");
    assert!(broken < headline && headline < table, "{md}");
    assert!(
        md.contains("- `subscription-cancel-task-state-missing`: the gate said PASS"),
        "{md}"
    );
    assert!(md.contains("## Convergence rounds"), "{md}");
    // The whole text is snapshotted in tests/it/run.rs (`legacy_small_suite_markdown`).
}

#[test]
fn the_binary_appends_the_summary_to_the_github_step_summary() {
    let reports = tempfile::tempdir().unwrap();
    let step = reports.path().join("step-summary.md");
    std::fs::write(&step, "earlier step\n").unwrap();
    let mut args = vec!["run", "scenarios/legacy.yaml", "--quiet", "--reports-dir"];
    let dir = reports.path().to_str().unwrap();
    args.push(dir);
    for f in SMALL {
        args.extend(["--filter", f]);
    }
    let out = gatebench_env(&args, root(), &[("GITHUB_STEP_SUMMARY", &step)]);
    assert_eq!(
        out.code,
        exit_code::THRESHOLDS,
        "{}{}",
        out.stdout,
        out.stderr
    );
    let text = std::fs::read_to_string(&step).unwrap();
    assert!(
        text.starts_with("earlier step\n# gatebench: legacy (thresholds broken)"),
        "{text}"
    );
    assert!(text.contains("## Broken thresholds"), "{text}");
}

#[test]
fn compare_names_fixtures_that_newly_pass_falsely_with_metric_deltas() {
    let reports = tempfile::tempdir().unwrap();
    let base = bundled("default.yaml", reports.path(), &SMALL).results;
    let new = bundled("legacy.yaml", reports.path(), &SMALL).results;
    let c = compare::compare(&base, &new, "base", "new");
    let regressed: Vec<(&str, ChangeKind)> = c
        .regressions()
        .map(|r| (r.fixture.as_str(), r.kind))
        .collect();
    assert_eq!(
        regressed,
        [
            (
                "subscription-cancel-evidence-stale-tree",
                ChangeKind::NewFalsePass
            ),
            (
                "subscription-cancel-task-state-missing",
                ChangeKind::NewFalsePass
            ),
        ]
    );
    let back = compare::compare(&new, &base, "new", "base");
    assert_eq!(back.regressions().count(), 0);
    assert_eq!(
        back.changes
            .iter()
            .filter(|c| c.kind == ChangeKind::Fixed)
            .count(),
        2
    );
    let settings = redactions(reports.path());
    settings.bind(|| {
        insta::assert_snapshot!("compare_builtin_to_legacy_text", compare::text(&c));
        insta::assert_snapshot!("compare_builtin_to_legacy_markdown", compare::markdown(&c));
    });
}

#[test]
fn the_compare_command_reads_run_folders_and_exits_two_on_a_regression() {
    let reports = tempfile::tempdir().unwrap();
    let base = bundled("default.yaml", reports.path(), &SMALL).dir;
    let new = bundled("legacy.yaml", reports.path(), &SMALL).dir;
    let (b, n) = (base.to_str().unwrap(), new.to_str().unwrap());
    let out = gatebench(&["compare", b, n], root());
    assert_eq!(
        out.code,
        exit_code::THRESHOLDS,
        "{}{}",
        out.stdout,
        out.stderr
    );
    assert!(
        out.stdout.contains("NEWLY PASSES FALSELY (2)"),
        "{}",
        out.stdout
    );
    let out = gatebench(&["compare", n, b, "--format", "markdown"], root());
    assert_eq!(out.code, exit_code::SUCCESS, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .starts_with("# gatebench compare: no fixture regressed"),
        "{}",
        out.stdout
    );
    let missing = reports.path().join("nothing-here");
    let out = gatebench(&["compare", b, missing.to_str().unwrap()], root());
    assert_eq!(out.code, exit_code::USAGE);
    assert!(out.stderr.contains("nothing-here"), "{}", out.stderr);
}

/// Lenient absolute bars, so that only the ratchet can break the run.
const LENIENT: &str = "  max_false_pass_rate: 1.0\n  min_recall: 0.0\n";

#[test]
fn the_ratchet_fails_a_run_that_regresses_against_its_baseline_while_absolute_bars_hold() {
    let dir = tempfile::tempdir().unwrap();
    let reports = dir.path().join("reports");
    let good = bundled("default.yaml", &reports, &SMALL).results;
    gatebench::atomic::write_json_atomic(
        &dir.path().join("base.json"),
        &gatebench::run::baseline::baseline_of(&good).unwrap(),
    )
    .unwrap();

    let legacy = scenario(
        dir.path(),
        "legacy-ratchet",
        &format!("pipeline:\n  kind: legacy\nthresholds:\n{LENIENT}  baseline: base.json\n"),
    );
    let run = execute(&options(&legacy, &reports, &SMALL)).results;
    let broken: Vec<&str> = run
        .thresholds
        .iter()
        .filter(|t| !t.met)
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(broken, [ratchet::THRESHOLD_NAME]);
    assert_eq!(run.exit_code, exit_code::THRESHOLDS);
    let regressions: Vec<&str> = run
        .ratchet
        .as_ref()
        .unwrap()
        .regressions
        .iter()
        .map(|r| r.fixture.as_str())
        .collect();
    assert_eq!(
        regressions,
        [
            "subscription-cancel-evidence-stale-tree",
            "subscription-cancel-task-state-missing"
        ]
    );
    let md = summary::markdown(&run);
    assert!(
        md.contains("## Regressions against the baseline (2)"),
        "{md}"
    );

    let builtin = scenario(
        dir.path(),
        "builtin-ratchet",
        &format!("thresholds:\n{LENIENT}  baseline: base.json\n"),
    );
    let run = execute(&options(&builtin, &reports, &SMALL)).results;
    assert_eq!(run.exit_code, exit_code::SUCCESS, "{:?}", run.thresholds);
    assert_eq!(run.ratchet.unwrap().regressions, []);
}

#[test]
fn a_baseline_keeps_outcomes_and_drops_what_changes_between_identical_runs() {
    let reports = tempfile::tempdir().unwrap();
    let first = bundled("default.yaml", reports.path(), &SMALL).results;
    let second = bundled("default.yaml", reports.path(), &SMALL).results;
    assert_ne!(first.run_id, second.run_id);
    let text = |r| {
        serde_json::to_string_pretty(&gatebench::run::baseline::baseline_of(r).unwrap()).unwrap()
    };
    let (a, b) = (text(&first), text(&second));
    let differing: Vec<(&str, &str)> = a.lines().zip(b.lines()).filter(|(x, y)| x != y).collect();
    assert_eq!(differing, [], "lines that differ between two baselines");
    assert_eq!(a, b);
    assert!(!a.contains(&reports.path().display().to_string()));
    assert_eq!(
        outcomes(&gatebench::run::baseline::baseline_of(&first).unwrap()),
        outcomes(&first)
    );
}

#[test]
fn a_missing_baseline_is_an_error_naming_the_scenario_not_a_silent_pass() {
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), "s", "thresholds:\n  baseline: nowhere.json\n");
    let out = gatebench(
        &[
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--filter",
            SMALL[0],
        ],
        dir.path(),
    );
    assert_eq!(out.code, exit_code::USAGE, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("s.yaml"), "{}", out.stderr);
    assert!(out.stderr.contains("nowhere.json"), "{}", out.stderr);
}

#[test]
fn a_category_below_its_recall_bar_breaks_the_run_and_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(
        dir.path(),
        "per-category",
        "pipeline:\n  kind: legacy\nthresholds:\n  max_false_pass_rate: 1.0\n  min_recall: 0.0\n  min_category_recall:\n    task-state: 0.5\n",
    );
    let run = execute(&options(&file, &dir.path().join("reports"), &SMALL)).results;
    let broken: Vec<(&str, &str)> = run
        .thresholds
        .iter()
        .filter(|t| !t.met)
        .map(|t| (t.name.as_str(), t.figure.as_str()))
        .collect();
    assert_eq!(broken, [("recall of task-state", "0.000 (0/1)")]);
    assert_eq!(run.exit_code, exit_code::THRESHOLDS);

    let typo = scenario(
        dir.path(),
        "typo",
        "thresholds:\n  min_category_recall:\n    task-sate: 0.5\n",
    );
    let out = gatebench(&["run", typo.to_str().unwrap(), "--quiet"], dir.path());
    assert_eq!(out.code, exit_code::USAGE, "{}", out.stderr);
    assert!(out.stderr.contains("task-sate"), "{}", out.stderr);
}

#[test]
fn list_filters_by_the_outcome_of_a_run() {
    let reports = tempfile::tempdir().unwrap();
    let legacy = bundled("legacy.yaml", reports.path(), &SMALL).dir;
    let out = gatebench(
        &[
            "list",
            "--outcome",
            "false-pass",
            "--results",
            legacy.to_str().unwrap(),
        ],
        root(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let ids: Vec<&str> = out
        .stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .filter(|id| id.starts_with("subscription"))
        .collect();
    assert_eq!(ids, SMALL.iter().rev().copied().collect::<Vec<_>>());
    assert!(out.stdout.contains("2 fixtures"), "{}", out.stdout);
    // Without --results: the newest run under --reports-dir.
    let out = gatebench(
        &[
            "list",
            "--outcome",
            "passed",
            "--reports-dir",
            reports.path().to_str().unwrap(),
        ],
        root(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("subscription-cancel "),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("1 fixtures"), "{}", out.stdout);
}

#[test]
fn explain_shows_the_planted_diff_the_expectation_and_what_the_last_run_reported() {
    let reports = tempfile::tempdir().unwrap();
    bundled("default.yaml", reports.path(), &SMALL);
    let out = gatebench(
        &[
            "explain",
            "subscription-cancel-task-state-missing",
            "--reports-dir",
            reports.path().to_str().unwrap(),
        ],
        root(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = &out.stdout;
    // The plant deletes T2's task state: the diff shows the file going away.
    assert!(
        text.contains(
            "--- a/specs/subscription-cancel/task-states/T2.state.json\n    +++ /dev/null"
        ),
        "{text}"
    );
    assert!(
        text.contains("finding #1 validator=task-set-complete"),
        "{text}"
    );
    assert!(text.contains("trial 0: detected"), "{text}");
    assert!(text.contains("[meets expected #1]"), "{text}");
    let out = gatebench(&["explain", "no-such-fixture"], root());
    assert_eq!(out.code, exit_code::USAGE);
    assert!(out.stderr.contains("no-such-fixture"), "{}", out.stderr);
}

/// Every trial leaves `trials/<case>/` in its run folder: each round's report, the planted diff
/// (computed from the fixture's trees), each scripted fix's diff, `trial.json`; linked from
/// `junit.xml`, `report.html` and `explain`. A loop fixture that converges in three rounds after
/// two scripted fixes (fix 1 restores `top.py` and breaks `cli.py`, fix 2 restores `cli.py`).
#[test]
fn every_trial_leaves_a_log_folder_linked_from_junit_html_and_explain() {
    let reports = tempfile::tempdir().unwrap();
    let fixture = "loop-wordcount-converges-in-three";
    let finished = bundled("default.yaml", reports.path(), &[fixture]);
    // Read back from disk: the reports themselves are in the run's object store.
    let mut stored =
        gatebench::output::store::results::read(&finished.dir.join("results.json")).unwrap();
    stored.resolve().unwrap();
    let results = &stored;
    let junit = std::fs::read_to_string(finished.dir.join("junit.xml")).unwrap();
    let html = std::fs::read_to_string(finished.dir.join("report.html")).unwrap();
    let case_of = |id: &str| {
        results
            .cases
            .iter()
            .find(|(_, c)| c.fixture == id)
            .map(|(case, _)| case.clone())
            .unwrap()
    };
    assert_eq!(results.trials.len(), 2, "the fixture and its golden");
    for t in &results.trials {
        let case = case_of(&t.fixture);
        let folder = finished.dir.join("trials").join(&case);
        let facts: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(folder.join("trial.json")).unwrap())
                .unwrap();
        assert_eq!(facts["fixture"], t.fixture.as_str());
        assert_eq!(facts["case"], case.as_str());
        assert_eq!(facts["outcome"], t.outcome.as_str());
        for name in facts["files"].as_array().unwrap() {
            assert!(folder.join(name.as_str().unwrap()).is_file(), "{name}");
        }
        assert_eq!(facts["rounds"].as_array().unwrap().len(), t.rounds.len());
        for r in &t.rounds {
            let file = folder.join(format!("round-{}.report.json", r.round));
            let report: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            assert_eq!(Some(&report), r.report.as_ref());
        }
        assert!(
            junit.contains(&format!("trial log: trials/{case}/")),
            "{junit}"
        );
        // Its row in the table's data (the page's script builds the link from it).
        assert!(html.contains(&format!(r#""case":"{case}","log":"trials/{case}/""#)));
    }
    let golden = finished.dir.join("trials").join(case_of("loop-wordcount"));
    assert!(
        !golden.join("planted.diff").exists(),
        "a golden plants nothing"
    );
    let log = finished.dir.join("trials").join(case_of(fixture));
    let read = |name: &str| std::fs::read_to_string(log.join(name)).unwrap_or_default();
    let planted = read("planted.diff");
    assert!(
        planted.contains("--- a/wordcount/top.py\n+++ b/wordcount/top.py\n"),
        "{planted}"
    );
    assert!(!planted.contains("cli.py"), "{planted}");
    let fix1 = read("round-1.fix.diff");
    assert!(fix1.contains("+++ b/wordcount/top.py") && fix1.contains("+++ b/wordcount/cli.py"));
    let fix2 = read("round-2.fix.diff");
    assert!(
        fix2.contains("+++ b/wordcount/cli.py") && !fix2.contains("top.py"),
        "{fix2}"
    );
    assert!(
        !log.join("round-3.fix.diff").exists(),
        "round 3 passed: no fix after it"
    );

    let out = gatebench(
        &[
            "explain",
            fixture,
            "--reports-dir",
            reports.path().to_str().unwrap(),
        ],
        root(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains(&format!("trial log: {}/", log.display())),
        "{}",
        out.stdout
    );
}
