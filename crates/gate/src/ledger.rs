//! The ledger files the reference gate reads (`docs/LEDGER.md`), as serde types. JSON ledger
//! files accept keys they do not know (the loader reports them as warnings); task front matter and
//! the workflow stay strict.
//!
//! Every type here is the contract of one file of the layout. Closed records deny unknown fields so
//! that a misspelt key is a `ledger-schema` finding with a line and column, not a silently ignored
//! value. Lists that a validator must judge (`task_ids`, `code_refs`, `test_plan`...) default to
//! empty or absent, so that leaving one out is reported by the validator that owns it, with an
//! actionable message, rather than as a parse error.
//!
//! `schemas()` gives the JSON Schema of every file, generated from these types.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The only `schema_version` this gate reads.
pub const SCHEMA_VERSION: u32 = 1;

/// A ledger file that carries a `schema_version`.
pub trait Versioned {
    fn schema_version(&self) -> u32;
}

macro_rules! versioned {
    ($($ty:ty),* $(,)?) => {
        $(impl Versioned for $ty {
            fn schema_version(&self) -> u32 {
                self.schema_version
            }
        })*
    };
}

versioned!(
    Requirements,
    Traceability,
    TaskState,
    ImplementationReceipt,
    ReviewReceipt,
    TestReceipt,
    EvaluationReceipt,
    ApprovalReceipt,
    LedgerFinding,
    ConvergenceReport,
    PipelineState,
);

/// The 15 detail categories every requirement concludes (docs/CONCEPTS.md#loom-detail-categories).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum DetailCategory {
    HappyPath,
    Boundary,
    InvalidInput,
    Authorization,
    StateTransition,
    Idempotency,
    Concurrency,
    Atomicity,
    ExternalFailure,
    Compatibility,
    Security,
    Performance,
    Observability,
    Recovery,
    ForbiddenBehavior,
}

impl DetailCategory {
    /// Every category, in the order of the Loom plan (docs/CONCEPTS.md#loom-detail-categories).
    pub const ALL: [DetailCategory; 15] = [
        DetailCategory::HappyPath,
        DetailCategory::Boundary,
        DetailCategory::InvalidInput,
        DetailCategory::Authorization,
        DetailCategory::StateTransition,
        DetailCategory::Idempotency,
        DetailCategory::Concurrency,
        DetailCategory::Atomicity,
        DetailCategory::ExternalFailure,
        DetailCategory::Compatibility,
        DetailCategory::Security,
        DetailCategory::Performance,
        DetailCategory::Observability,
        DetailCategory::Recovery,
        DetailCategory::ForbiddenBehavior,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DetailCategory::HappyPath => "happy-path",
            DetailCategory::Boundary => "boundary",
            DetailCategory::InvalidInput => "invalid-input",
            DetailCategory::Authorization => "authorization",
            DetailCategory::StateTransition => "state-transition",
            DetailCategory::Idempotency => "idempotency",
            DetailCategory::Concurrency => "concurrency",
            DetailCategory::Atomicity => "atomicity",
            DetailCategory::ExternalFailure => "external-failure",
            DetailCategory::Compatibility => "compatibility",
            DetailCategory::Security => "security",
            DetailCategory::Performance => "performance",
            DetailCategory::Observability => "observability",
            DetailCategory::Recovery => "recovery",
            DetailCategory::ForbiddenBehavior => "forbidden-behavior",
        }
    }
}

/// The conclusion a requirement reaches for one detail category.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Conclusion {
    Applicable,
    NotApplicable,
    RequiresClarification,
}

impl Conclusion {
    /// The name serde writes (both derived from one `rename_all`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The status of a behaviour obligation (and of a requirement)
/// (docs/CONCEPTS.md#loom-obligations-and-statuses).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ObligationStatus {
    Failing,
    InProgress,
    CandidateImplemented,
    Passing,
    Blocked,
    Superseded,
}

impl ObligationStatus {
    /// The name serde writes (both derived from one `rename_all`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// `requirements.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Requirements {
    pub schema_version: u32,
    /// `sha256:<hex>` of `spec.md`.
    pub spec_sha256: String,
    pub requirements: Vec<Requirement>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Requirement {
    pub id: String,
    pub title: String,
    /// Free text, e.g. `functional`, `non-functional`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Free text, e.g. `must`, `should`.
    pub priority: String,
    pub status: ObligationStatus,
    /// A conclusion for every detail category; a missing category is a `detail-expansion` finding.
    #[serde(default)]
    pub details: BTreeMap<DetailCategory, DetailConclusion>,
    #[serde(default)]
    pub obligations: Vec<Obligation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DetailConclusion {
    pub conclusion: Conclusion,
    /// Required (non-empty) when the conclusion is `not_applicable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A behaviour obligation: one independently verifiable behaviour of a requirement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Obligation {
    pub id: String,
    /// Absent for an obligation that flowed back from convergence (docs/CONCEPTS.md#loom-flow-back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<DetailCategory>,
    pub description: String,
    pub status: ObligationStatus,
    #[serde(default)]
    pub task_ids: Vec<String>,
    /// `path`, `path:LINE`, `path:START-END` or `path::SYMBOL`, relative to the repository root.
    #[serde(default)]
    pub code_refs: Vec<String>,
    /// `path::TEST_ID`, `path:LINE` or `path:START-END`, relative to the repository root.
    #[serde(default)]
    pub test_refs: Vec<String>,
    /// Test receipts, relative to the feature folder.
    #[serde(default)]
    pub evidence_receipts: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_plan: Option<TestPlan>,
    /// For a `superseded` obligation: the obligation that replaces it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// For a `superseded` obligation: why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a `superseded` obligation: the approval receipt (relative to the feature folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<String>,
    /// Where the obligation came from, e.g. `convergence-finding` (docs/CONCEPTS.md#loom-flow-back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The finding that introduced it (docs/CONCEPTS.md#loom-flow-back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub introduced_by: Option<String>,
}

impl Obligation {
    /// Whether the obligation is still owed (not replaced by another one).
    pub fn is_live(&self) -> bool {
        self.status != ObligationStatus::Superseded
    }
}

/// How an obligation will be verified (docs/CONCEPTS.md#loom-test-plan).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TestPlan {
    /// Free text: `unit`, `integration`, `contract`, `property`, `manual`...
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub setup: String,
    #[serde(default)]
    pub action: String,
    #[serde(default)]
    pub expected: Vec<String>,
    #[serde(default)]
    pub forbidden: Vec<String>,
}

/// `traceability.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Traceability {
    pub schema_version: u32,
    pub rows: Vec<TraceRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceRow {
    pub requirement_id: String,
    pub obligation_id: String,
    pub task_id: String,
    #[serde(default)]
    pub code_refs: Vec<String>,
    #[serde(default)]
    pub test_refs: Vec<String>,
    #[serde(default)]
    pub evidence_receipts: Vec<String>,
    pub verdict: ObligationStatus,
}

/// The YAML front matter of `tasks/<T>.md`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskFrontMatter {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub obligations: Vec<String>,
    /// Globs over repository paths: the files this task may change.
    #[serde(default)]
    pub owns: Vec<String>,
    #[serde(default)]
    pub depends_on: Vec<String>,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum TaskStatus {
    Pending,
    Executing,
    Reviewing,
    Blocked,
    Failed,
    Done,
}

impl TaskStatus {
    /// The name serde writes (both derived from one `rename_all`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// `task-states/<T>.state.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskState {
    pub schema_version: u32,
    pub task_id: String,
    pub status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
}

/// The verdict of a review or an evaluation.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ReviewVerdict {
    Pass,
    Fail,
}

impl ReviewVerdict {
    /// The name serde writes (both derived from one `rename_all`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// `receipts/implementations/<T>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ImplementationReceipt {
    pub schema_version: u32,
    pub task_id: String,
    /// The source tree the receipt was taken on; with `diff_sha256`, one of the two bindings
    /// (docs/CONCEPTS.md#loom-evidence-binding: evidence binds the current git tree or diff hash).
    /// Every binding given must be current, and at least one must be given.
    #[serde(default)]
    pub git_tree: Option<String>,
    /// `sha256:<hex>` of the change the receipt was taken on (`gittree::diff_sha256`).
    #[serde(default)]
    pub diff_sha256: Option<String>,
    #[serde(default)]
    pub obligations: Vec<ImplementedObligation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ImplementedObligation {
    pub id: String,
    #[serde(default)]
    pub implementation_refs: Vec<String>,
    #[serde(default)]
    pub test_refs: Vec<String>,
    /// Behaviour the change kept as it was (docs/CONCEPTS.md#loom-candidate-mapping).
    #[serde(default)]
    pub preserved_invariants: Vec<String>,
    pub candidate_status: ObligationStatus,
}

/// A finding as reviewers and evaluators record it inside their receipts
/// (docs/CONCEPTS.md#loom-findings). Open: evaluators may add their own keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReceiptFinding {
    pub severity: Severity,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<FindingStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requirement_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obligation_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// `receipts/reviews/<T>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewReceipt {
    pub schema_version: u32,
    pub task_id: String,
    pub reviewer: String,
    pub verdict: ReviewVerdict,
    /// The source tree the receipt was taken on; with `diff_sha256`, one of the two bindings
    /// (docs/CONCEPTS.md#loom-evidence-binding: evidence binds the current git tree or diff hash).
    /// Every binding given must be current, and at least one must be given.
    #[serde(default)]
    pub git_tree: Option<String>,
    /// `sha256:<hex>` of the change the receipt was taken on (`gittree::diff_sha256`).
    #[serde(default)]
    pub diff_sha256: Option<String>,
    #[serde(default)]
    pub findings: Vec<ReceiptFinding>,
}

/// `receipts/tests/<name>.json` (docs/CONCEPTS.md#loom-test-receipts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TestReceipt {
    pub schema_version: u32,
    /// The source tree the receipt was taken on; with `diff_sha256`, one of the two bindings
    /// (docs/CONCEPTS.md#loom-evidence-binding: evidence binds the current git tree or diff hash).
    /// Every binding given must be current, and at least one must be given.
    #[serde(default)]
    pub git_tree: Option<String>,
    /// `sha256:<hex>` of the change the receipt was taken on (`gittree::diff_sha256`).
    #[serde(default)]
    pub diff_sha256: Option<String>,
    pub command: String,
    pub exit_code: i64,
    /// Relative to the feature folder.
    pub log_file: String,
    /// `sha256:<hex>` of the log file.
    pub log_sha256: String,
    #[serde(default)]
    pub obligations: Vec<TestedObligation>,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum TestResult {
    Pass,
    Fail,
    Skip,
}

impl TestResult {
    /// The name serde writes (both derived from one `rename_all`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TestedObligation {
    pub id: String,
    #[serde(default)]
    pub test_ids: Vec<String>,
    pub result: TestResult,
}

/// `receipts/evaluations/<name>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EvaluationReceipt {
    pub schema_version: u32,
    pub evaluator: String,
    pub verdict: ReviewVerdict,
    /// The source tree the receipt was taken on; with `diff_sha256`, one of the two bindings
    /// (docs/CONCEPTS.md#loom-evidence-binding: evidence binds the current git tree or diff hash).
    /// Every binding given must be current, and at least one must be given.
    #[serde(default)]
    pub git_tree: Option<String>,
    /// `sha256:<hex>` of the change the receipt was taken on (`gittree::diff_sha256`).
    #[serde(default)]
    pub diff_sha256: Option<String>,
    #[serde(default)]
    pub findings: Vec<ReceiptFinding>,
}

/// `receipts/approvals/<stage>.json` (docs/CONCEPTS.md#loom-approval-receipts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ApprovalReceipt {
    pub schema_version: u32,
    pub stage: String,
    /// Artifact path (relative to the feature folder) -> `sha256:<hex>`.
    pub artifacts: BTreeMap<String, String>,
    pub approved_at: String,
    pub approved_by: String,
    /// Repository paths (or globs) a task may change outside its `owns`.
    #[serde(default)]
    pub scope_changes: Vec<String>,
}

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "UPPERCASE")]
#[strum(serialize_all = "UPPERCASE")]
pub enum Severity {
    Blocker,
    High,
    Medium,
    Low,
}

impl Severity {
    /// The name serde writes (both derived from one `rename_all`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether a finding of this severity blocks the gate until closed.
    pub fn is_blocking(self) -> bool {
        matches!(self, Severity::Blocker | Severity::High)
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FindingStatus {
    #[default]
    Open,
    Closed,
}

fn schema_version_one() -> u32 {
    1
}

/// `findings/<id>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LedgerFinding {
    /// The omission hunter's finding (docs/CONCEPTS.md#loom-findings) carries none; 1 when absent.
    #[serde(default = "schema_version_one")]
    pub schema_version: u32,
    pub id: String,
    pub severity: Severity,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requirement_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obligation_id: Option<String>,
    /// Open unless it says otherwise (the omission hunter's finding in
    /// docs/CONCEPTS.md#loom-findings has no status).
    #[serde(default)]
    pub status: FindingStatus,
    #[serde(default)]
    pub evidence: String,
    /// What the finding's author suggests doing (docs/CONCEPTS.md#loom-findings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_action: Option<String>,
    /// A receipt (relative to the feature folder) that closes the finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_by: Option<String>,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Classification {
    Implemented,
    Partial,
    Missing,
    Contradicts,
    Unrequested,
    Unverifiable,
}

impl Classification {
    /// The name serde writes (both derived from one `rename_all`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// `convergence-report.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConvergenceReport {
    pub schema_version: u32,
    pub git_tree: String,
    pub obligations: Vec<ConvergedObligation>,
    #[serde(default)]
    pub unrequested: Vec<Unrequested>,
    #[serde(default)]
    pub blocking_findings: Vec<serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConvergedObligation {
    pub id: String,
    pub classification: Classification,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Unrequested {
    pub path: String,
    #[serde(default)]
    pub description: String,
    pub approved: bool,
}

/// `pipeline.state.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PipelineState {
    pub schema_version: u32,
    pub pipeline_schema_version: u32,
    pub current_step: String,
    pub worktree: WorktreeClaim,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WorktreeClaim {
    pub linked: bool,
}

/// `templates/workflow.yaml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Workflow {
    pub steps: Vec<WorkflowStep>,
    /// The reviewers whose evaluation receipts are required (may be empty, never implied).
    pub reviewers: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowStep {
    pub id: String,
    /// Validator ids; names the gate does not know are `workflow-drift` findings, not parse errors.
    #[serde(default)]
    pub validators: Vec<String>,
    /// Output files the step writes (informational).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<String>,
}

impl Workflow {
    /// The workflow that applies when `templates/workflow.yaml` is absent (`docs/LEDGER.md`).
    pub fn builtin_default() -> Workflow {
        fn step(id: &str, validators: &[&str]) -> WorkflowStep {
            WorkflowStep {
                id: id.to_owned(),
                validators: validators.iter().map(|v| (*v).to_owned()).collect(),
                outputs: Vec::new(),
            }
        }
        Workflow {
            steps: vec![
                step(
                    "executing",
                    &[
                        "task-set-complete",
                        "all-task-states-done",
                        "task-handoffs-pass",
                        "requirement-task-closure",
                        "obligation-task-closure",
                        "review-receipts-pass",
                        "diff-within-ownership",
                    ],
                ),
                step(
                    "verification",
                    &[
                        "requirement-code-closure",
                        "obligation-test-closure",
                        "obligation-evidence-closure",
                        "evidence-bound-to-current-tree",
                        "approval-current",
                        "convergence-pass",
                        "no-blocking-findings",
                    ],
                ),
            ],
            reviewers: vec!["omission-hunter".to_owned()],
        }
    }
}

/// The JSON Schema of every ledger file, by its file name in `schemas/ledger/`, generated the way
/// every other gatebench schema is generated (`gatebench_report::schema::generate`).
pub fn schemas() -> Vec<(&'static str, serde_json::Value)> {
    fn schema<T: JsonSchema>(name: &str) -> serde_json::Value {
        let id = gatebench_report::schema::schema_id(&format!("ledger/{name}"));
        gatebench_report::schema::generate::<T>(&id)
    }
    macro_rules! entry {
        ($name:literal, $ty:ty) => {
            ($name, schema::<$ty>($name))
        };
    }
    vec![
        entry!("requirements.schema.json", Requirements),
        entry!("traceability.schema.json", Traceability),
        entry!("task-front-matter.schema.json", TaskFrontMatter),
        entry!("task-state.schema.json", TaskState),
        entry!("implementation-receipt.schema.json", ImplementationReceipt),
        entry!("review-receipt.schema.json", ReviewReceipt),
        entry!("test-receipt.schema.json", TestReceipt),
        entry!("evaluation-receipt.schema.json", EvaluationReceipt),
        entry!("approval-receipt.schema.json", ApprovalReceipt),
        entry!("finding.schema.json", LedgerFinding),
        entry!("convergence-report.schema.json", ConvergenceReport),
        entry!("pipeline-state.schema.json", PipelineState),
        entry!("workflow.schema.json", Workflow),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ledger_example_requirements_parse() {
        let text = r#"{"schema_version": 1, "spec_sha256": "sha256:00",
          "requirements": [{"id": "REQ-001", "title": "t", "type": "functional", "priority": "must",
            "status": "passing",
            "details": {"happy-path": {"conclusion": "applicable"},
                        "boundary": {"conclusion": "not_applicable", "reason": "none"}},
            "obligations": [{"id": "REQ-001-B01", "category": "happy-path", "description": "d",
              "status": "passing", "task_ids": ["T1"], "code_refs": ["a.py:1-2"],
              "test_refs": ["t.py::test_a"], "evidence_receipts": ["receipts/tests/unit.json"],
              "test_plan": {"type": "unit", "setup": "s", "action": "a", "expected": ["e"],
                            "forbidden": []}}]}]}"#;
        let parsed: Requirements = serde_json::from_str(text).unwrap();
        assert_eq!(
            parsed.requirements[0].obligations[0].category,
            Some(DetailCategory::HappyPath)
        );
        assert_eq!(parsed.requirements[0].details.len(), 2);
    }

    #[test]
    fn a_misspelt_detail_category_is_a_parse_error() {
        let text = r#"{"happy_path": {"conclusion": "applicable"}}"#;
        let parsed: Result<BTreeMap<DetailCategory, DetailConclusion>, _> =
            serde_json::from_str(text);
        assert!(parsed.is_err());
    }

    #[test]
    fn every_category_names_itself_as_serde_does() {
        for category in DetailCategory::ALL {
            let json = serde_json::to_string(&category).unwrap();
            assert_eq!(json, format!("\"{}\"", category.as_str()));
        }
    }

    #[test]
    fn every_ledger_file_has_a_schema() {
        let schemas = schemas();
        assert_eq!(schemas.len(), 13);
        for (name, schema) in schemas {
            assert!(name.ends_with(".schema.json"));
            assert!(schema.get("$schema").is_some(), "{name}");
            assert!(schema.get("$id").is_some(), "{name}");
        }
    }
}
