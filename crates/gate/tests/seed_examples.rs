//! Seed conformance: every JSON example of seed 004 (copied verbatim into `tests/data/seed004/`,
//! since a fresh clone has no seeds folder) goes through the gate's JSON loader into the ledger
//! type it illustrates, with no finding above a warning and no unknown key.

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
/// warning, and on any warning (the seed's own keys must all be known).
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
    assert_eq!(names.len(), 10, "seed 004 has 10 JSON examples: {names:?}");
}
