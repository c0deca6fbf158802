//! The verification loop end to end: loop fixtures round by round through the runner (which
//! dimensions each round ran, the iteration limit, escalation, warnings), the state file of a real
//! run against the committed schema, and a real interruption of `gatebench gate` (killed in the
//! middle of a round) resumed without re-running what had passed.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use gatebench::corpus::scenario::PipelineSpec;
use gatebench::corpus::{self, Corpus};
use gatebench::repo::workdir::WorkRoot;
use gatebench::run::runner::{run_trial, RunConfig};
use gatebench::score::record::TrialRecord;
use gatebench_report::Verdict;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| match corpus::load(&root().join("fixtures")) {
        Ok(corpus) => corpus,
        Err(errors) => panic!("the corpus does not load: {errors:?}"),
    })
}

/// One trial of a bundled fixture with the built-in gate and the default three rounds.
fn trial(id: &str) -> TrialRecord {
    let fixture = corpus()
        .get(id)
        .unwrap_or_else(|| panic!("no fixture {id}"));
    let work = WorkRoot::create(None, false).expect("work root");
    let gate = gatebench::pipeline::select::from_spec(&PipelineSpec::builtin(), root());
    let scoring = gatebench::pipeline::select::scoring(gate.as_ref());
    let cfg = RunConfig {
        jobs: 1,
        trials: 1,
        max_rounds: 3,
        base_ref: "main".into(),
        work_root: &work,
        cache: None,
        scoring: &scoring,
        scenario: "t".into(),
        on_modified: Default::default(),
        retries: 0,
        objects: None,
        on_fixture: None,
    };
    run_trial(fixture, 0, gate.as_ref(), &cfg)
}

fn dimensions_run(record: &TrialRecord) -> Vec<Vec<&str>> {
    record
        .rounds
        .iter()
        .map(|r| r.dimensions_run.iter().map(String::as_str).collect())
        .collect()
}

fn verdicts(record: &TrialRecord) -> Vec<Option<Verdict>> {
    record.rounds.iter().map(|r| r.verdict).collect()
}

fn validators_of_round(record: &TrialRecord, round: usize) -> Vec<String> {
    record.rounds[round - 1]
        .report
        .as_ref()
        .and_then(|r| r["findings"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|f| f["validator"].as_str().map(str::to_owned))
        .collect()
}

const ALL: [&str; 5] = [
    "V1_BUILD",
    "V2_TEST",
    "V3_PERFORMANCE",
    "V4_ALIGNMENT",
    "V5_STANDARD",
];

#[test]
fn a_round_after_a_fix_runs_only_the_dimension_that_failed() {
    let record = trial("loop-wordcount-reruns-only-failed");
    assert_eq!(
        verdicts(&record),
        [Some(Verdict::Fail), Some(Verdict::Pass)]
    );
    assert_eq!(
        dimensions_run(&record),
        [ALL.to_vec(), vec!["V2_TEST", "DELIVERY_DOCUMENTS"]]
    );
}

#[test]
fn a_resumed_round_runs_only_what_the_interrupted_round_left_pending() {
    let record = trial("loop-wordcount-resume-interrupted");
    assert_eq!(
        dimensions_run(&record),
        [
            vec!["V5_STANDARD"],
            vec!["V5_STANDARD", "DELIVERY_DOCUMENTS"]
        ]
    );
    let report = record.rounds[0].report.as_ref().expect("report");
    assert_eq!(report["verificationLoop"]["start"], "resumed");
}

#[test]
fn the_loop_stops_at_its_limit_and_a_later_round_runs_nothing() {
    let record = trial("loop-wordcount-lint-fails-at-limit");
    assert_eq!(
        verdicts(&record),
        [
            Some(Verdict::Fail),
            Some(Verdict::Fail),
            Some(Verdict::Fail)
        ]
    );
    assert_eq!(
        dimensions_run(&record),
        [ALL.to_vec(), vec!["V5_STANDARD"], vec![]]
    );
    assert!(validators_of_round(&record, 2).contains(&"loop-limit".to_owned()));
    assert!(validators_of_round(&record, 3).contains(&"loop-limit".to_owned()));
}

#[test]
fn a_test_point_failing_twice_is_escalated_and_not_tried_again() {
    let record = trial("loop-wordcount-same-test-fails-twice");
    assert_eq!(
        verdicts(&record),
        [
            Some(Verdict::Fail),
            Some(Verdict::Blocked),
            Some(Verdict::Blocked)
        ]
    );
    assert_eq!(
        dimensions_run(&record),
        [ALL.to_vec(), vec!["V2_TEST"], vec![]]
    );
    assert!(validators_of_round(&record, 2).contains(&"loop-escalation".to_owned()));
}

#[test]
fn a_warning_only_round_passes_with_its_warnings_in_the_report() {
    let record = trial("loop-wordcount-lint-warnings-only");
    assert_eq!(
        verdicts(&record),
        [Some(Verdict::Fail), Some(Verdict::Pass)]
    );
    let report = record.rounds[1].report.as_ref().expect("report");
    assert_eq!(report["findings"].as_array().map(Vec::len), Some(0));
    let warnings = report["verificationLoop"]["warnings"]
        .as_array()
        .expect("warnings");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0]["dimension"], "V5_STANDARD");
    assert!(warnings[0]["item"]
        .as_str()
        .is_some_and(|w| w.starts_with("wordcount/top.py:10: warning:")));
    let v5 = report["skillResults"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["skill"] == "V5_STANDARD"))
        .expect("V5 skill");
    assert_eq!(v5["status"], "PASSED");
    assert!(v5["notes"].as_str().is_some_and(|n| n.contains("warn")));
}

/// The fixture materialized into a temporary directory.
fn materialized(id: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let fixture = corpus().get(id).expect("fixture");
    let m = gatebench::repo::materialize::materialize(fixture, &dir.path().join("repo"))
        .expect("materialize");
    let work = m.work_dir.clone();
    (dir, work)
}

#[test]
fn the_state_file_of_a_real_run_validates_against_the_committed_schema() {
    let (_dir, work) = materialized("loop-wordcount-test-point-fails");
    let report = gatebench_gate::run_gate(&work, &gatebench_gate::GateOptions::default());
    assert_eq!(report.verdict(), Some(Verdict::Fail));
    let state: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(work.join("docs/delivery/.state/SV-10001-verification.json"))
            .expect("state file"),
    )
    .expect("json");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/verification-state.schema.json"))
            .expect("schema"),
    )
    .expect("json");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&state)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(state["dimensions"]["V2_TEST"]["status"], "fail");
    assert_eq!(
        state["dimensions"]["V2_TEST"]["failedItems"][0],
        "top 0 lists no words"
    );
    assert_eq!(state["rerunPlan"], serde_json::json!(["V2_TEST"]));
}

#[test]
fn an_interrupted_gate_run_resumes_without_re_running_what_had_passed() {
    let (dir, work) = materialized("loop-wordcount");
    // Every dimension command is `sh scripts/...`: a `sh` first on PATH counts each run by
    // dimension and, the first time V3 starts, kills the gate that started it.
    let counters = dir.path().join("counters");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&counters).expect("counters");
    std::fs::create_dir_all(&bin).expect("bin");
    let wrapper = bin.join("sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho run >> '{c}'/\"$GATEBENCH_LOOP_DIMENSION\"\nif [ \"$GATEBENCH_LOOP_DIMENSION\" = V3_PERFORMANCE ] && [ ! -e '{c}/killed' ]; then\n  : > '{c}/killed'\n  kill -KILL \"$PPID\"\n  exit 1\nfi\nexec /bin/sh \"$@\"\n",
            c = counters.display()
        ),
    )
    .expect("wrapper");
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let gate = || {
        Command::new(env!("CARGO_BIN_EXE_gatebench"))
            .arg("gate")
            .arg(&work)
            .args(["--format", "json"])
            .env("PATH", &path)
            .output()
            .expect("run gatebench gate")
    };
    let runs = |dimension: &str| {
        std::fs::read_to_string(counters.join(dimension))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };

    let killed = gate();
    assert_eq!(killed.status.signal(), Some(9), "{killed:?}");
    let state: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(work.join("docs/delivery/.state/SV-10001-verification.json"))
            .expect("the state written before the kill"),
    )
    .expect("json");
    assert_eq!(state["status"], "running");
    assert_eq!(state["dimensions"]["V1_BUILD"]["status"], "pass");
    assert_eq!(state["dimensions"]["V2_TEST"]["status"], "pass");
    assert_eq!(state["dimensions"]["V3_PERFORMANCE"]["status"], "pending");
    assert_eq!(
        state["rerunPlan"],
        serde_json::json!(["V3_PERFORMANCE", "V4_ALIGNMENT", "V5_STANDARD"])
    );

    let resumed = gate();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stdout)
    );
    let report: serde_json::Value = serde_json::from_slice(&resumed.stdout).expect("report json");
    let statuses: Vec<(&str, &str)> = report["skillResults"]
        .as_array()
        .expect("skills")
        .iter()
        .map(|s| {
            (
                s["skill"].as_str().unwrap_or(""),
                s["status"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            ("V1_BUILD", "SKIPPED"),
            ("V2_TEST", "SKIPPED"),
            ("V3_PERFORMANCE", "PASSED"),
            ("V4_ALIGNMENT", "PASSED"),
            ("V5_STANDARD", "PASSED"),
            ("DELIVERY_DOCUMENTS", "PASSED")
        ]
    );
    // V1 and V2 passed before the kill and did not run again; V3 was cut off and ran again.
    assert_eq!(
        (
            runs("V1_BUILD"),
            runs("V2_TEST"),
            runs("V3_PERFORMANCE"),
            runs("V5_STANDARD")
        ),
        (1, 1, 2, 1)
    );
}
