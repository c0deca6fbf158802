//! Verifier-neutral scoring (issue 10): fixtures state their ground truth as a taxonomy kind and a
//! locus; any verifier is scored from its report alone. The reference gate with every gatebench-only
//! key stripped from its report scores as the built-in gate does.

use crate::common;

use std::path::Path;
use std::process::Command;

use gatebench::output::store::results::RunResults;

fn run(scenario: &str, reports: &Path) -> RunResults {
    let out = Command::new(env!("CARGO_BIN_EXE_gatebench"))
        .args(["run", scenario, "--quiet", "--no-cache", "--reports-dir"])
        .arg(reports)
        .current_dir(common::root())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("results: "))
        .unwrap_or_else(|| {
            panic!(
                "no results line:\n{stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let path = common::root().join(line.trim());
    let path = if path.is_file() {
        path
    } else {
        Path::new(line.trim()).to_path_buf()
    };
    let mut results = gatebench::output::store::results::read(&path).unwrap();
    results.resolve().unwrap();
    results
}

fn value(rate: Option<gatebench::score::rate::Rate>) -> f64 {
    rate.and_then(|r| r.value).expect("measured")
}

#[test]
fn the_gate_with_its_private_keys_stripped_detects_within_five_points_of_the_builtin_gate() {
    let dir = tempfile::tempdir().unwrap();
    let builtin = run("scenarios/default.yaml", dir.path());
    let stripped = run("scenarios/stripped-gate.yaml", dir.path());
    let recall = |r: &RunResults| value(r.metrics.overall.recall);
    assert_eq!(recall(&builtin), 1.0);
    assert!(
        recall(&stripped) >= 0.95,
        "stripped recall {}",
        recall(&stripped)
    );
    assert!((recall(&builtin) - recall(&stripped)).abs() <= 0.05);
    assert_eq!(value(stripped.metrics.overall.false_pass_rate), 0.0);
    // What was scored really carried none of the gate's private keys.
    let mut reports = 0;
    for trial in &stripped.trials {
        for round in &trial.rounds {
            let Some(report) = &round.report else {
                continue;
            };
            reports += 1;
            for finding in report["findings"].as_array().unwrap() {
                for key in ["validator", "rule", "requirementId", "obligationId"] {
                    assert!(finding.get(key).is_none(), "{}: {key} kept", trial.fixture);
                }
            }
            assert!(report.get("verificationLoop").is_none());
        }
    }
    assert!(reports >= 104, "{reports} reports read");
    // Typing works from the titles alone, and the figures are reported for both.
    assert!(value(stripped.metrics.overall.ground_truth.typing) > 0.9);
    for r in [&builtin, &stripped] {
        let g = &r.metrics.overall.ground_truth;
        assert!(g.finding_precision.is_some() && g.noise.is_some());
        let goldens = r.trials.iter().filter(|t| t.golden).count() as u64;
        assert!(goldens >= 4);
        assert_eq!(g.golden_trials, goldens);
    }
    assert_eq!(
        value(builtin.metrics.overall.ground_truth.localization),
        1.0
    );
}

/// A copy of one golden and one omission fixture whose `fixture.yaml` is `yaml`.
fn corpus_with(yaml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for id in [
        "subscription-cancel",
        "subscription-cancel-task-state-missing",
    ] {
        let status = Command::new("cp")
            .arg("-r")
            .arg(common::root().join("fixtures").join(id))
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(status.success());
    }
    std::fs::write(
        dir.path()
            .join("subscription-cancel-task-state-missing/fixture.yaml"),
        yaml,
    )
    .unwrap();
    dir
}

fn check(yaml: &str) -> (i32, String) {
    let dir = corpus_with(yaml);
    let scenarios = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gatebench"))
        .args(["check", "--fixtures"])
        .arg(dir.path())
        .arg("--scenarios")
        .arg(scenarios.path())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const HEAD: &str = "id: subscription-cancel-task-state-missing\ndescription: d\nextends: subscription-cancel\ncategory: task-state\nplant:\n  delete: [specs/subscription-cancel/task-states/T2.state.json]\nexpect:\n  verdict: fail\n";

#[test]
fn an_omission_fixture_with_its_ground_truth_passes_check() {
    let yaml = format!("{HEAD}  kind: task-state-missing\n  locus:\n    - task: T2\n    - path: specs/subscription-cancel/task-states/T2.state.json\n");
    let (code, stderr) = check(&yaml);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn check_rejects_an_omission_fixture_without_a_kind_or_a_locus_or_with_an_unknown_kind() {
    let cases = [
        (format!("{HEAD}  locus:\n    - task: T2\n"), "must state the `kind`"),
        (format!("{HEAD}  kind: task-state-missing\n"), "must state the `locus`"),
        (
            format!("{HEAD}  kind: task-forgotten\n  locus:\n    - task: T2\n"),
            "unknown variant `task-forgotten`",
        ),
        (
            format!("{HEAD}  kind: task-state-missing\n  locus:\n    - task: T2\n      requirement: REQ-001\n"),
            "exactly one of path, requirement, obligation or task",
        ),
        (
            format!("{HEAD}  kind: task-state-missing\n  locus:\n    - path: src/subscription/store.py\n      lines: [1, 9999]\n"),
            "past its",
        ),
        (
            format!("{HEAD}  kind: task-state-missing\n  locus:\n    - path: src/nowhere.py\n"),
            "is in no layer",
        ),
    ];
    for (yaml, message) in cases {
        let (code, stderr) = check(&yaml);
        assert_eq!(code, 1, "{message}: {stderr}");
        assert!(
            stderr.contains(message),
            "expected `{message}` in: {stderr}"
        );
        assert!(
            stderr.contains("fixture.yaml:"),
            "no file position: {stderr}"
        );
    }
}

#[test]
fn the_taxonomy_page_lists_every_bundled_omission_fixture_under_its_kind() {
    let page = std::fs::read_to_string(common::root().join("docs/TAXONOMY.md")).unwrap();
    let corpus = gatebench::corpus::load(&common::root().join("fixtures")).unwrap();
    let mut listed = 0;
    for fixture in corpus.fixtures.iter().filter(|f| !f.is_golden()) {
        let kind = fixture.expect.kind.expect("an omission fixture has a kind");
        let row = page
            .lines()
            .find(|l| l.starts_with(&format!("| `{}` |", kind.as_str())))
            .unwrap_or_else(|| panic!("no row for kind {}", kind.as_str()));
        assert!(
            row.contains(&format!("`{}`", fixture.id)),
            "docs/TAXONOMY.md does not list {} under {}",
            fixture.id,
            kind.as_str()
        );
        listed += 1;
    }
    assert!(listed >= 100, "{listed} omission fixtures");
}
