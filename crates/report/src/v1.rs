//! The verify JSON report v1 (docs/CONCEPTS.md#verify-report-v1): the wire format every pipeline
//! writes and the harness reads.
//!
//! Field names follow the report v1 of the verify pipeline (docs/CONCEPTS.md#verify-report-v1)
//! exactly (camelCase). The report allows unknown keys, so the types here keep what the harness
//! scores on and carry the rest through `extra`, untouched. Each finding may carry `validator`,
//! `requirementId`, `obligationId` and `class`, so that it can be matched against what a fixture
//! planted.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The top-level `status` of a report: did verification itself work?
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Blocked,
    Error,
}

/// `overall.result`: the verdict. Its only values, per the verify pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OverallResult {
    Pass,
    IssuesFound,
    Blocked,
    Error,
}

/// The verdict a gate gave, as the harness scores it.
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
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail,
    Blocked,
}

impl Verdict {
    /// The name serde writes (both derived from one `rename_all`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A location as `findings[].location` carries it: a path and one line, never `endLine`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FindingLocation {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
}

/// A location as `issues[].location` carries it: path, line and optional `endLine`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct IssueLocation {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    #[serde(rename = "endLine", default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Finding {
    pub title: String,
    /// 1-10; 9-10 critical, 7-8 high, 5-6 moderate, 3-4 low, 1-2 trivial.
    pub severity: u8,
    pub description: String,
    #[serde(default)]
    pub sources: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<FindingLocation>,
    /// gatebench extension: the validator (check) id that raised the finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validator: Option<String>,
    /// gatebench extension: the rule of the check that raised the finding,
    /// `<validator>/<rule>` (e.g. `task-handoffs-pass/review-failed`); a verifier's mapping onto
    /// the omission taxonomy can match it exactly instead of matching titles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// gatebench extension: the requirement the finding is about.
    #[serde(
        rename = "requirementId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub requirement_id: Option<String>,
    /// gatebench extension: the behaviour obligation the finding is about.
    #[serde(
        rename = "obligationId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub obligation_id: Option<String>,
    /// One of the verify pipeline's classes: correctness, security, coverage, comment, ux, visual,
    /// test-failure, environment, style, plan-completeness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Issue {
    pub id: String,
    pub severity: u8,
    pub title: String,
    #[serde(default)]
    pub sources: Vec<String>,
    pub location: Option<IssueLocation>,
    pub description: String,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Overall {
    pub result: OverallResult,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReportError {
    pub code: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ScopeFile {
    pub path: String,
    pub status: String,
    #[serde(default)]
    pub lines: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ExcludedFile {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Scope {
    pub depth: String,
    pub mode: String,
    #[serde(rename = "baseRef")]
    pub base_ref: Option<String>,
    #[serde(rename = "mergeBase")]
    pub merge_base: Option<String>,
    #[serde(rename = "headSha")]
    pub head_sha: Option<String>,
    #[serde(rename = "includedFiles")]
    pub included_files: Vec<ScopeFile>,
    #[serde(rename = "excludedFiles")]
    pub excluded_files: Vec<ExcludedFile>,
    /// Legacy alias of `includedFiles`, same ordered records.
    pub files: Vec<ScopeFile>,
    /// Legacy alias of `excludedFiles`, same ordered records.
    pub excluded: Vec<ExcludedFile>,
    #[serde(rename = "deltaBaseSha", default)]
    pub delta_base_sha: Option<String>,
    #[serde(rename = "deltaFiles", default)]
    pub delta_files: Vec<serde_json::Value>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkillReason {
    pub skill: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Triage {
    #[serde(rename = "skillsRun")]
    pub skills_run: Vec<SkillReason>,
    #[serde(rename = "skillsSkipped")]
    pub skills_skipped: Vec<SkillReason>,
    /// Name-only alias of `skillsRun`.
    #[serde(rename = "skills_run")]
    pub skills_run_names: Vec<String>,
    /// Name-only alias of `skillsSkipped`.
    #[serde(rename = "skills_skipped")]
    pub skills_skipped_names: Vec<String>,
}

impl Triage {
    /// A triage whose name-only aliases (`skills_run`, `skills_skipped`) are derived from the
    /// records, so the two can never disagree.
    pub fn new(run: Vec<SkillReason>, skipped: Vec<SkillReason>) -> Triage {
        Triage {
            skills_run_names: run.iter().map(|s| s.skill.clone()).collect(),
            skills_skipped_names: skipped.iter().map(|s| s.skill.clone()).collect(),
            skills_run: run,
            skills_skipped: skipped,
        }
    }
}

/// The normalized skill statuses of the verify pipeline (docs/CONCEPTS.md#verify-skill-statuses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SkillStatus {
    Completed,
    Passed,
    Failed,
    Blocked,
    Skipped,
    NotRun,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillResult {
    pub skill: String,
    pub status: SkillStatus,
    pub notes: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CustomGate {
    pub rule: String,
    pub status: String,
    pub evidence: String,
    pub checker: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct CustomGates {
    pub exerciser: Vec<CustomGate>,
    pub review: Vec<CustomGate>,
}

/// What a run of the pipeline cost, when the pipeline reports it (a gatebench extension key,
/// `cost`). Absent means unknown, never zero.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Cost {
    #[serde(rename = "tokensIn", default, skip_serializing_if = "Option::is_none")]
    pub tokens_in: Option<u64>,
    #[serde(rename = "tokensOut", default, skip_serializing_if = "Option::is_none")]
    pub tokens_out: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// A verify JSON report v1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    #[serde(rename = "schemaVersion")]
    pub schema_version: u32,
    pub status: Status,
    pub error: Option<ReportError>,
    pub findings: Vec<Finding>,
    pub overall: Overall,
    pub scope: Scope,
    #[serde(rename = "knownFindings")]
    pub known_findings: Option<serde_json::Value>,
    #[serde(rename = "deferredToEpic")]
    pub deferred_to_epic: Vec<serde_json::Value>,
    pub triage: Triage,
    #[serde(rename = "skillResults")]
    pub skill_results: Vec<SkillResult>,
    pub issues: Vec<Issue>,
    #[serde(rename = "exerciserVerification")]
    pub exerciser_verification: Vec<serde_json::Value>,
    #[serde(rename = "customGates")]
    pub custom_gates: CustomGates,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl Report {
    /// The verdict this report gives, or `None` when the report says verification itself failed
    /// (`status: error`), which is never scored as a verdict.
    pub fn verdict(&self) -> Option<Verdict> {
        match self.overall.result {
            OverallResult::Pass => Some(Verdict::Pass),
            OverallResult::IssuesFound => Some(Verdict::Fail),
            OverallResult::Blocked => Some(Verdict::Blocked),
            OverallResult::Error => None,
        }
    }
}
