//! A matrix scenario (`pipelines:`) end to end: the reference gate and the legacy checker over
//! two planted omissions and their golden. Each pipeline gets a complete run folder; matrix.json's
//! differences are those of the per-pipeline results; a pipeline below its own bars fails the
//! run; `check` and the scenario loader reject a malformed matrix with line and column.

use crate::common;

use std::path::Path;

use common::{gatebench, root, scenario, SMALL};
use gatebench::corpus::scenario::Scenario;
use gatebench::output::store::matrix;
use gatebench::output::store::runs;
use gatebench::run::options::{Overrides, RunOptions};
use gatebench::score::outcome::Outcome;
use gatebench::score::rate::{difference_interval, Rate};

/// The two planted omissions of [`SMALL`] (their golden runs too), under the reference gate and
/// the legacy checker; `legacy_bars` is the legacy entry's `thresholds:` (empty: the scenario's).
fn matrix_scenario(dir: &Path, legacy_bars: &str) -> std::path::PathBuf {
    scenario(
        dir,
        "pair",
        &format!(
            "fixtures:\n  include: [\"{}\", \"{}\"]\npipelines:\n  - name: gate\n    pipeline:\n      kind: builtin\n  - name: legacy\n    pipeline: {{kind: legacy}}\n{legacy_bars}",
            SMALL[0], SMALL[1]
        ),
    )
}

fn run(file: &Path, reports: &Path) -> gatebench::run::matrix::MatrixFinished {
    let scenario = Scenario::load(file).unwrap_or_else(|e| panic!("{e}"));
    let options = RunOptions::resolve(
        scenario,
        Overrides {
            jobs: Some(2),
            reports_dir: Some(reports.to_path_buf()),
            ..Overrides::default()
        },
    );
    gatebench::run::matrix::execute(&options, &|_, _, _| {}).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Recall counted from a run's trials, as the ground truth defines it.
fn recall_of(results: &gatebench::output::store::results::RunResults) -> Rate {
    let omission: Vec<_> = results.trials.iter().filter(|t| !t.golden).collect();
    let detected = omission
        .iter()
        .filter(|t| t.outcome == Outcome::Detected)
        .count();
    let valid = omission
        .iter()
        .filter(|t| {
            matches!(
                t.outcome,
                Outcome::Detected | Outcome::WrongReason | Outcome::FalsePass
            )
        })
        .count();
    Rate::new(detected as u64, valid as u64)
}

#[test]
fn a_matrix_run_leaves_a_complete_run_per_pipeline_and_differences_computed_from_them() {
    let temp = tempfile::tempdir().unwrap();
    let reports = temp.path().join("reports");
    let finished = run(&matrix_scenario(temp.path(), ""), &reports);

    // The run folder is the only thing left in the reports folder: nothing staged, no objects.
    let left: Vec<String> = std::fs::read_dir(&reports)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, std::slice::from_ref(&finished.matrix.run_id));
    for file in matrix::FILES {
        assert!(finished.dir.join(file).is_file(), "{file} missing");
    }
    // Each pipeline's folder is a complete run that the other commands read as any run.
    let mut read = Vec::new();
    for (name, kind) in [("gate", "builtin"), ("legacy", "legacy")] {
        let dir = finished.dir.join("pipelines").join(name);
        for file in gatebench::output::outputs::FILES {
            assert!(dir.join(file).is_file(), "{name}/{file} missing");
        }
        assert!(dir.join("trials").is_dir() && dir.join("objects").is_dir());
        let results = runs::read(&dir).unwrap();
        assert_eq!(results.pipeline, kind);
        assert_eq!(results.scenario.matrix_pipeline.as_deref(), Some(name));
        // Every selected fixture ran under each pipeline: two omissions and their golden.
        let mut fixtures: Vec<String> = results.trials.iter().map(|t| t.fixture.clone()).collect();
        fixtures.sort();
        assert_eq!(
            fixtures,
            [
                "subscription-cancel",
                "subscription-cancel-evidence-stale-tree",
                "subscription-cancel-task-state-missing"
            ]
        );
        read.push(results);
    }
    let (gate, legacy) = (&read[0], &read[1]);
    // A correct gate detects both planted omissions; the document-style checker passes them
    // (tests/it/run.rs shows it on this golden).
    assert_eq!(recall_of(gate), Rate::new(2, 2));
    assert!(legacy
        .trials
        .iter()
        .any(|t| !t.golden && t.outcome == Outcome::FalsePass));

    // matrix.json on disk, read back, holds the pair (gate, legacy) with the difference of the
    // recalls counted above, and Newcombe's interval of it.
    let m = matrix::read(&finished.dir.join("matrix.json")).unwrap();
    assert_eq!(m.pipelines.len(), 2);
    assert_eq!(m.pairs.len(), 1);
    let pair = &m.pairs[0];
    assert_eq!((pair.base.as_str(), pair.new.as_str()), ("gate", "legacy"));
    let recall = pair.overall.iter().find(|d| d.rate == "recall").unwrap();
    let expected = difference_interval(&recall_of(gate), &recall_of(legacy)).unwrap();
    let got = recall.difference.unwrap();
    assert_eq!((got.value, got.low, got.high), expected);
    assert!(got.value < 0.0, "the legacy checker's recall is lower");
    let false_pass = pair
        .overall
        .iter()
        .find(|d| d.rate == "false-pass rate")
        .unwrap();
    assert_eq!(
        false_pass.difference.unwrap().value,
        legacy
            .metrics
            .overall
            .false_pass_rate
            .unwrap()
            .value
            .unwrap()
            - gate.metrics.overall.false_pass_rate.unwrap().value.unwrap()
    );
    // The fixtures they disagree on are exactly those whose outcomes differ.
    let mut differing: Vec<String> = gate
        .trials
        .iter()
        .filter(|g| {
            legacy
                .trials
                .iter()
                .any(|l| l.fixture == g.fixture && l.outcome != g.outcome)
        })
        .map(|g| g.fixture.clone())
        .collect();
    differing.sort();
    let listed: Vec<&str> = pair.fixtures.iter().map(|c| c.fixture.as_str()).collect();
    assert_eq!(listed, differing);
    assert!(!listed.is_empty());
    // Per category: the recall difference of a category is that of its trials.
    let category = &gate.trials.iter().find(|t| !t.golden).unwrap().category;
    let by = |r: &gatebench::output::store::results::RunResults| {
        r.metrics.per_category[category.as_str()].recall.unwrap()
    };
    let d = pair.per_category[category.as_str()]
        .iter()
        .find(|d| d.rate == "recall")
        .unwrap()
        .difference
        .unwrap();
    assert_eq!(
        (d.value, d.low, d.high),
        difference_interval(&by(gate), &by(legacy)).unwrap()
    );

    // Thresholds are each pipeline's: the gate meets the strict defaults, the legacy checker
    // does not, and the run fails with the legacy checker's code.
    assert_eq!(m.pipelines[0].exit_code, 0);
    assert_eq!(m.pipelines[1].exit_code, gatebench::exit_code::THRESHOLDS);
    assert_eq!(m.exit_code, gatebench::exit_code::THRESHOLDS);

    // JUnit: one suite per pipeline, a case per trial and per threshold.
    let junit = std::fs::read_to_string(finished.dir.join("junit.xml")).unwrap();
    for (name, results) in [("gate", gate), ("legacy", legacy)] {
        let tests = results.trials.len() + results.thresholds.len();
        assert!(
            junit.contains(&format!("<testsuite name=\"{name}\" tests=\"{tests}\"")),
            "{junit}"
        );
    }
    assert!(junit.contains("pipelines/legacy/trials/"));
    // The HTML report: both pipelines side by side, each linking its own report, nothing fetched.
    let html = std::fs::read_to_string(finished.dir.join("report.html")).unwrap();
    assert!(html.contains("href=\"pipelines/gate/report.html\""));
    assert!(html.contains("href=\"pipelines/legacy/report.html\""));
    assert!(html.contains("<th>legacy - gate</th>"));
    assert!(!html.contains("src=\"http") && !html.contains("<script"));
    let summary = std::fs::read_to_string(finished.dir.join("summary.md")).unwrap();
    assert!(summary.contains("| false-pass rate |"));
    assert!(summary.contains("## Per category"));
    assert!(summary.contains("## Per kind"));

    // A pipeline's folder replays like any run, and the replay writes its trial logs as `run`
    // does: one folder per trial, with the same outcomes.
    let replayed = gatebench::run::replay::replay(&gatebench::run::replay::ReplayOptions {
        recorded: finished.dir.join("pipelines/legacy"),
        fixtures_dir: Some(root().join("fixtures")),
        reports_dir: temp.path().join("replays"),
    })
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        common::outcomes(&replayed.results),
        common::outcomes(legacy)
    );
    let logs = replayed.dir.join("trials");
    let cases: Vec<String> = std::fs::read_dir(&logs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(cases.len(), legacy.trials.len());
    for case in &cases {
        assert!(logs.join(case).join("trial.json").is_file(), "{case}");
    }
}

#[test]
fn a_pipeline_judged_by_its_own_lax_bars_does_not_fail_the_run() {
    let temp = tempfile::tempdir().unwrap();
    let lax = "    thresholds: {max_false_pass_rate: 1.0, min_recall: 0.0, max_false_alarms: 9, max_errors: 9, max_rounds_off: 9}\n";
    let finished = run(
        &matrix_scenario(temp.path(), lax),
        &temp.path().join("reports"),
    );
    let legacy = &finished.runs[1].1.results;
    assert!(legacy.metrics.overall.count(Outcome::FalsePass) > 0);
    assert_eq!(legacy.scenario.thresholds.as_ref().unwrap().min_recall, 0.0);
    assert_eq!(finished.matrix.exit_code, 0);
}

#[test]
fn the_binary_prints_the_pipelines_side_by_side_and_exits_with_the_worst_code() {
    let temp = tempfile::tempdir().unwrap();
    let file = matrix_scenario(temp.path(), "");
    let reports = temp.path().join("reports");
    let out = gatebench(
        &[
            "run",
            file.to_str().unwrap(),
            "--reports-dir",
            reports.to_str().unwrap(),
            "--quiet",
        ],
        root(),
    );
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("legacy - gate"), "{}", out.stdout);
    assert!(out.stdout.contains("BROKEN THRESHOLDS of legacy"));
    assert!(!out.stdout.contains("BROKEN THRESHOLDS of gate"));
    // `explain` whose newest run is a matrix shows the fixture, and says which folders to name.
    let explain = gatebench(
        &[
            "explain",
            SMALL[0],
            "--reports-dir",
            reports.to_str().unwrap(),
        ],
        root(),
    );
    assert_eq!(explain.code, 0);
    assert!(
        explain.stderr.contains("a matrix run") && explain.stderr.contains("pipelines/legacy"),
        "{}",
        explain.stderr
    );
}

fn parse_error(dir: &Path, body: &str) -> String {
    let file = dir.join("bad.yaml");
    std::fs::write(&file, body).unwrap();
    Scenario::load(&file)
        .map(|_| ())
        .unwrap_err()
        .to_string()
        .replace(&file.display().to_string(), "bad.yaml")
}

#[test]
fn a_malformed_matrix_is_rejected_with_line_and_column() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    let both = parse_error(
        dir,
        "name: x\npipeline:\n  kind: builtin\npipelines:\n  - name: a\n    pipeline: {kind: builtin}\n",
    );
    assert!(
        both.starts_with("bad.yaml:4:1: `pipeline` and `pipelines` are both given"),
        "{both}"
    );
    let twice = parse_error(
        dir,
        "name: x\npipelines:\n  - name: a\n    pipeline: {kind: builtin}\n  - name: a\n    pipeline: {kind: legacy}\n",
    );
    assert!(
        twice.starts_with("bad.yaml:5:5: pipeline name `a` is given twice"),
        "{twice}"
    );
    let empty = parse_error(dir, "name: x\npipelines: []\n");
    assert!(
        empty.starts_with("bad.yaml:2:1: `pipelines` lists no pipeline"),
        "{empty}"
    );
    let folder = parse_error(
        dir,
        "name: x\npipelines:\n  - name: ../up\n    pipeline: {kind: builtin}\n",
    );
    assert!(
        folder.starts_with("bad.yaml:3:5: pipeline name `../up`"),
        "{folder}"
    );
    // An entry's pipeline is checked as `pipeline:` is: a key its kind does not have, at its line.
    let key = parse_error(
        dir,
        "name: x\npipelines:\n  - name: a\n    pipeline:\n      kind: builtin\n  - name: b\n    pipeline:\n      kind: legacy\n      command: [sh]\n",
    );
    assert!(
        key.starts_with("bad.yaml:9:7: unknown key `command` under `pipeline` of kind `legacy`"),
        "{key}"
    );
    let unknown = parse_error(
        dir,
        "name: x\npipelines:\n  - name: a\n    pipeline: {kind: builtin}\n    bars: {}\n",
    );
    assert!(
        unknown.starts_with("bad.yaml:5:5: ") && unknown.contains("unknown field `bars`"),
        "{unknown}"
    );
    let bar = parse_error(
        dir,
        "name: x\npipelines:\n  - name: a\n    pipeline: {kind: builtin}\n  - name: b\n    pipeline: {kind: builtin}\n    thresholds: {min_recall: 2}\n",
    );
    assert!(
        bar.starts_with("bad.yaml:5:5: pipeline `b`: `min_recall` must be between 0 and 1"),
        "{bar}"
    );
    let command = parse_error(
        dir,
        "name: x\npipelines:\n  - name: a\n    pipeline: {kind: command, command: []}\n",
    );
    assert!(
        command.starts_with("bad.yaml:3:5: pipeline `a`: `command`"),
        "{command}"
    );
}

#[test]
fn check_judges_each_pipeline_of_a_matrix_by_its_own_bars() {
    let temp = tempfile::tempdir().unwrap();
    let scenarios = temp.path().join("scenarios");
    std::fs::create_dir(&scenarios).unwrap();
    std::fs::write(
        scenarios.join("m.yaml"),
        "name: m\nfixtures_dir: ../fixtures\npipelines:\n  - name: a\n    pipeline: {kind: builtin}\n  - name: b\n    pipeline: {kind: legacy}\n    thresholds: {min_category_recall: {no-such-category: 0.5}}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(root().join("fixtures"), temp.path().join("fixtures")).unwrap();
    let out = gatebench(
        &[
            "check",
            "--fixtures",
            temp.path().join("fixtures").to_str().unwrap(),
            "--scenarios",
            scenarios.to_str().unwrap(),
        ],
        root(),
    );
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("no-such-category"), "{}", out.stderr);
}

/// The folders under `reports` other than the result cache.
fn left_in(reports: &Path) -> Vec<String> {
    std::fs::read_dir(reports)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n != ".cache")
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn an_interrupted_matrix_run_leaves_nothing_not_even_a_finished_pipeline() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let temp = tempfile::tempdir().unwrap();
    let file = scenario(
        temp.path(),
        "slow",
        &format!(
            "fixtures:\n  include: [\"{}\"]\npipelines:\n  - name: quick\n    pipeline: {{kind: legacy}}\n  - name: slow\n    pipeline: {{kind: command, command: \"sleep 60\", timeout_secs: 120}}\n",
            SMALL[0]
        ),
    );
    let reports = temp.path().join("reports");
    let mut child = Command::new(env!("CARGO_BIN_EXE_gatebench"))
        .args(["run", file.to_str().unwrap(), "--quiet", "--reports-dir"])
        .arg(&reports)
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first pipeline's complete run is published inside the matrix's staging folder
    // (`.<id>.partial/pipelines/<run-id>`) before the second starts.
    let started = Instant::now();
    let first_published = || {
        std::fs::read_dir(&reports)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".partial"))
            .any(|e| {
                std::fs::read_dir(e.path().join("pipelines"))
                    .into_iter()
                    .flatten()
                    .filter_map(|p| p.ok())
                    .any(|p| p.path().join("results.json").is_file())
            })
    };
    while !first_published() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the first pipeline never finished"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it could be interrupted"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(left_in(&reports), Vec::<String>::new());
}

/// `scenarios/matrix.yaml` runs the stripped gate with `scenarios/stripped-gate.yaml`'s mapping
/// (docs/GUIDE.md compares their figures): the two copies of the mapping must not drift apart.
#[test]
fn the_bundled_matrix_types_the_stripped_gate_as_its_own_scenario_does() {
    let read = |name: &str| -> yaml_serde::Value {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .join(name);
        yaml_serde::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let alone = read("stripped-gate.yaml");
    let matrix = read("matrix.yaml");
    let in_matrix = matrix["pipelines"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|p| p["name"].as_str() == Some("stripped"))
        .expect("a `stripped` pipeline in matrix.yaml");
    let mapping = &alone["pipeline"]["kinds"];
    assert!(mapping.as_sequence().is_some_and(|k| !k.is_empty()));
    assert_eq!(&in_matrix["pipeline"]["kinds"], mapping);
    assert_eq!(
        in_matrix["pipeline"]["command"],
        alone["pipeline"]["command"]
    );
}
