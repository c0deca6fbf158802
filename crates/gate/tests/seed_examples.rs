//! Conformance: every JSON example of the Loom plan (docs/CONCEPTS.md#the-loom-plan), copied
//! verbatim into `tests/data/seed004/`, goes through the gate's JSON loader into the ledger type it
//! illustrates, with no finding above a warning and no unknown key; the state file example of the
//! verification loop (docs/CONCEPTS.md#loop-state-file) (`tests/data/seed000/`) is read as a loop
//! state.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Deserialize;

use gatebench_gate::finding::WARNING_MAX;
use gatebench_gate::ledger::{
    ApprovalReceipt, ImplementedObligation, LedgerFinding, Obligation, ReceiptFinding,
    Requirements, TestPlan, TestReceipt,
};
use gatebench_gate::load::{duplicate_key_findings, parse_fragment, TextFile};

/// 6.4 wraps a test plan with the obligation it belongs to (inside requirements.json it is the
/// obligation's `test_plan`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct PlanOfObligation {
    obligation_id: String,
    test_plan: TestPlan,
}

/// 7.5 shows the `obligations` of an implementation receipt.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ReceiptObligations {
    obligations: Vec<ImplementedObligation>,
}

fn example(name: &str) -> TextFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/seed004")
        .join(name);
    TextFile {
        path: format!("tests/data/seed004/{name}"),
        text: std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    }
}

/// Loads one example as `T` the way the gate loads a ledger file; panics on any finding above a
/// warning, and on any warning (the Loom plan's own keys must all be known).
fn loads_as<T: DeserializeOwned>(name: &str) -> T {
    let file = example(name);
    let mut findings = duplicate_key_findings(&file);
    let (parsed, warnings) = parse_fragment::<T>(&file);
    findings.extend(warnings);
    let blocking: Vec<String> = findings
        .iter()
        .filter(|finding| finding.severity > WARNING_MAX)
        .map(|finding| finding.description.clone())
        .collect();
    assert!(blocking.is_empty(), "{name}: {blocking:?}");
    let unknown: Vec<&str> = findings.iter().map(|f| f.title.as_str()).collect();
    assert!(unknown.is_empty(), "{name}: {unknown:?}");
    parsed.unwrap_or_else(|finding| panic!("{name}: {}", finding.description))
}

#[test]
fn every_seed_004_example_that_shows_a_ledger_record_loads_without_finding() {
    let requirements: Requirements = loads_as("6.2-requirements.json");
    assert_eq!(requirements.requirements[0].obligations.len(), 3);
    let plan: PlanOfObligation = loads_as("6.4-test-plan.json");
    assert_eq!(plan.test_plan.forbidden.len(), 2);
    let receipt: ReceiptObligations = loads_as("7.5-implementation-receipt-obligations.json");
    assert_eq!(receipt.obligations[0].preserved_invariants.len(), 1);
    let finding: LedgerFinding = loads_as("7.6-finding.json");
    assert_eq!(
        finding.suggested_action.as_deref(),
        Some("创建新的修复任务")
    );
    let obligation: Obligation = loads_as("7.9-obligation.json");
    assert_eq!(obligation.introduced_by.as_deref(), Some("FINDING-017"));
    assert_eq!(obligation.source.as_deref(), Some("convergence-finding"));
    let test_receipt: TestReceipt = loads_as("10.1-test-receipt.json");
    assert_eq!(test_receipt.diff_sha256.as_deref(), Some("sha256:..."));
    let approval: ApprovalReceipt = loads_as("10.2-approval-receipt.json");
    assert!(approval.artifacts.contains_key("artifact-analysis.json"));
    let evaluator: ReceiptFinding = loads_as("11-evaluator-finding.json");
    assert_eq!(evaluator.obligation_id.as_deref(), Some("REQ-004-B02"));
}

/// 7.3 (the implementation packet an executor is given) and 9.3 (what the engine prints for a
/// failed validator) are not files the gate reads; they must still be one JSON value with no key
/// given twice.
#[test]
fn the_seed_004_examples_the_gate_does_not_read_are_single_json_values_without_repeated_keys() {
    for name in [
        "7.3-implementation-packet.json",
        "9.3-validator-result.json",
    ] {
        let file = example(name);
        assert!(duplicate_key_findings(&file).is_empty(), "{name}");
        let value: serde_json::Value =
            serde_json::from_str(&file.text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(value.is_object(), "{name}");
    }
}

#[test]
fn every_file_of_the_seed_data_folder_is_covered_by_a_test() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/seed004");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("seed data folder")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    assert_eq!(names.len(), 10, "the plan has 10 JSON examples: {names:?}");
}

/// The state file example of the verification loop (docs/CONCEPTS.md#loop-state-file), verbatim, at
/// its path in a repository.
fn state_repository(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir
        .path()
        .join(gatebench_gate::verification_loop::state_file::path_for(
            "SV-xxxxx",
        ));
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
    std::fs::write(path, text).expect("write");
    dir
}

fn seed_000_state() -> String {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/seed000/SV-xxxxx-verification.json");
    std::fs::read_to_string(path).expect("the verification loop state example")
}

#[test]
fn the_seed_000_state_file_example_is_read_as_a_state() {
    use gatebench_gate::verification_loop::state_file::{read, ReadState};
    let dir = state_repository(&seed_000_state());
    match read(dir.path(), "SV-xxxxx") {
        ReadState::Found(state) => {
            assert_eq!(state.max_iterations, 3);
            assert_eq!(state.base_branch, "main");
        }
        ReadState::Absent => panic!("not found"),
        ReadState::Invalid(item) => panic!("invalid: {}", item.description),
    }
}

#[test]
fn a_state_file_that_gives_a_key_twice_is_invalid_at_that_line() {
    use gatebench_gate::verification_loop::state_file::{read, ReadState};
    let text = seed_000_state().replacen(
        "\"maxIterations\": 3,",
        "\"maxIterations\": 3,\n  \"maxIterations\": 9,",
        1,
    );
    let line = text
        .lines()
        .position(|line| line.contains("\"maxIterations\": 9"))
        .expect("the repeated key")
        + 1;
    let dir = state_repository(&text);
    match read(dir.path(), "SV-xxxxx") {
        ReadState::Invalid(item) => {
            assert_eq!(item.line, Some(line as u64));
            assert!(
                item.description.contains("maxIterations"),
                "{}",
                item.description
            );
        }
        _ => panic!("a repeated key must make the state file invalid"),
    }
}
