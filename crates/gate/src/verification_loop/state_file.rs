//! The verification loop's machine state file, `docs/delivery/.state/<requirement-id>-verification.json`,
//! in the exact JSON shape of docs/CONCEPTS.md#loop-state-file (source of
//! `schemas/verification-state.schema.json`), read strictly and written atomically after every
//! dimension and every round.

use std::path::Path;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::check::rules::*;
use crate::finding::GateFinding;
use gatebench_gittree::LOOP_STATE_DIR;

/// The loop as a whole: still iterating, or concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LoopStatus {
    /// Iterating: a round is under way, or the next round waits for a fix.
    Running,
    /// Every dimension passed or warned and the delivery documents are complete.
    Pass,
    /// A dimension still failed at the iteration limit (or a V2 test point escalated there).
    Fail,
    /// Something could not be judged, or a V2 test point escalated before the limit.
    Blocked,
}

/// One dimension's state: "pending", then pass / warn / fail (docs/CONCEPTS.md#loop-state-file), or
/// blocked when its command could not be judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DimensionStatus {
    /// To be verified (again) in the current round.
    Pending,
    Pass,
    Warn,
    Fail,
    Blocked,
}

impl DimensionStatus {
    /// Pass or warn: the dimension is not re-run.
    pub fn is_passed(self) -> bool {
        matches!(self, DimensionStatus::Pass | DimensionStatus::Warn)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DimensionStatus::Pending => "pending",
            DimensionStatus::Pass => "pass",
            DimensionStatus::Warn => "warn",
            DimensionStatus::Fail => "fail",
            DimensionStatus::Blocked => "blocked",
        }
    }
}

/// A step of the loop, as `rerunPlan` names it: the five dimensions in their order, then the
/// delivery-documents gate.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub enum Step {
    #[serde(rename = "V1_BUILD")]
    Build,
    #[serde(rename = "V2_TEST")]
    Test,
    #[serde(rename = "V3_PERFORMANCE")]
    Performance,
    #[serde(rename = "V4_ALIGNMENT")]
    Alignment,
    #[serde(rename = "V5_STANDARD")]
    Standard,
    #[serde(rename = "DELIVERY_DOCUMENTS")]
    Delivery,
}

impl Step {
    /// The five dimensions, in the order every round runs them.
    pub const DIMENSIONS: [Step; 5] = [
        Step::Build,
        Step::Test,
        Step::Performance,
        Step::Alignment,
        Step::Standard,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Step::Build => "V1_BUILD",
            Step::Test => "V2_TEST",
            Step::Performance => "V3_PERFORMANCE",
            Step::Alignment => "V4_ALIGNMENT",
            Step::Standard => "V5_STANDARD",
            Step::Delivery => "DELIVERY_DOCUMENTS",
        }
    }
}

/// `V1_BUILD` (docs/CONCEPTS.md#loop-state-file: it has no item lists).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BuildDimension {
    pub status: DimensionStatus,
    /// RFC 3339 (UTC) of the last run, `null` before the first.
    #[serde(rename = "lastRunAt")]
    pub last_run_at: Option<String>,
    /// The round in which the dimension passed (or warned), `null` while it has not.
    #[serde(rename = "passedIteration")]
    pub passed_iteration: Option<u32>,
    pub summary: String,
    #[serde(rename = "logRef")]
    pub log_ref: String,
}

/// `V2_TEST`: its failed test points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestDimension {
    pub status: DimensionStatus,
    #[serde(rename = "lastRunAt")]
    pub last_run_at: Option<String>,
    #[serde(rename = "passedIteration")]
    pub passed_iteration: Option<u32>,
    pub summary: String,
    /// The test points that failed in the dimension's last run (compared across rounds for the
    /// escalation of the verification loop (docs/CONCEPTS.md#loop-escalation)).
    #[serde(rename = "failedItems")]
    pub failed_items: Vec<String>,
    #[serde(rename = "logRef")]
    pub log_ref: String,
}

/// `V3_PERFORMANCE`, `V4_ALIGNMENT`, `V5_STANDARD`: critical and warning items.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ItemsDimension {
    pub status: DimensionStatus,
    #[serde(rename = "lastRunAt")]
    pub last_run_at: Option<String>,
    #[serde(rename = "passedIteration")]
    pub passed_iteration: Option<u32>,
    pub summary: String,
    #[serde(rename = "criticalItems")]
    pub critical_items: Vec<String>,
    #[serde(rename = "warningItems")]
    pub warning_items: Vec<String>,
    #[serde(rename = "logRef")]
    pub log_ref: String,
}

/// The five dimensions, keyed as the verification loop (docs/CONCEPTS.md#loop-state-file) keys them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dimensions {
    #[serde(rename = "V1_BUILD")]
    pub build: BuildDimension,
    #[serde(rename = "V2_TEST")]
    pub test: TestDimension,
    #[serde(rename = "V3_PERFORMANCE")]
    pub performance: ItemsDimension,
    #[serde(rename = "V4_ALIGNMENT")]
    pub alignment: ItemsDimension,
    #[serde(rename = "V5_STANDARD")]
    pub standard: ItemsDimension,
}

/// One entry of `fixHistory`: the commit a round verified, and what changed since the round
/// before (the fix, as the gate observes it; the gate never makes one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FixEntry {
    pub iteration: u32,
    #[serde(rename = "headSha")]
    pub head_sha: String,
    pub summary: String,
}

/// The machine state file of the verification loop (docs/CONCEPTS.md#loop-state-file), key for key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "verification-loop state")]
pub struct VerificationState {
    #[serde(rename = "requirementId")]
    pub requirement_id: String,
    /// `docs/design/<requirement-id>-tech-design.md`.
    #[serde(rename = "techDesign")]
    pub tech_design: String,
    pub branch: String,
    #[serde(rename = "baseBranch")]
    pub base_branch: String,
    pub status: LoopStatus,
    /// 1-based.
    #[serde(rename = "currentIteration")]
    pub current_iteration: u32,
    #[serde(rename = "maxIterations")]
    pub max_iterations: u32,
    pub dimensions: Dimensions,
    /// What the next gate run executes, in order: the dimensions still pending in an interrupted
    /// round, or after a round the failed (and blocked) dimensions; `DELIVERY_DOCUMENTS` when
    /// only the delivery documents are left. Empty when the loop has concluded.
    #[serde(rename = "rerunPlan")]
    pub rerun_plan: Vec<Step>,
    #[serde(rename = "fixHistory")]
    pub fix_history: Vec<FixEntry>,
    /// `docs/delivery/<requirement-id>-review-report.md`.
    #[serde(rename = "finalSummaryWrittenTo")]
    pub final_summary_written_to: String,
}

/// One dimension's state, whatever its shape in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DimensionRecord {
    pub status: DimensionStatus,
    pub last_run_at: Option<String>,
    pub passed_iteration: Option<u32>,
    pub summary: String,
    pub failed_items: Vec<String>,
    pub critical_items: Vec<String>,
    pub warning_items: Vec<String>,
    pub log_ref: String,
}

impl DimensionRecord {
    /// A dimension never run.
    pub fn pending() -> DimensionRecord {
        DimensionRecord {
            status: DimensionStatus::Pending,
            last_run_at: None,
            passed_iteration: None,
            summary: String::new(),
            failed_items: Vec::new(),
            critical_items: Vec::new(),
            warning_items: Vec::new(),
            log_ref: String::new(),
        }
    }
}

fn items_of(d: &ItemsDimension) -> DimensionRecord {
    DimensionRecord {
        status: d.status,
        last_run_at: d.last_run_at.clone(),
        passed_iteration: d.passed_iteration,
        summary: d.summary.clone(),
        failed_items: Vec::new(),
        critical_items: d.critical_items.clone(),
        warning_items: d.warning_items.clone(),
        log_ref: d.log_ref.clone(),
    }
}

fn items_from(r: DimensionRecord) -> ItemsDimension {
    ItemsDimension {
        status: r.status,
        last_run_at: r.last_run_at,
        passed_iteration: r.passed_iteration,
        summary: r.summary,
        critical_items: r.critical_items,
        warning_items: r.warning_items,
        log_ref: r.log_ref,
    }
}

impl Dimensions {
    pub fn new() -> Dimensions {
        let pending = DimensionRecord::pending;
        let mut dimensions = Dimensions {
            build: BuildDimension {
                status: DimensionStatus::Pending,
                last_run_at: None,
                passed_iteration: None,
                summary: String::new(),
                log_ref: String::new(),
            },
            test: TestDimension {
                status: DimensionStatus::Pending,
                last_run_at: None,
                passed_iteration: None,
                summary: String::new(),
                failed_items: Vec::new(),
                log_ref: String::new(),
            },
            performance: items_from(pending()),
            alignment: items_from(pending()),
            standard: items_from(pending()),
        };
        for step in Step::DIMENSIONS {
            dimensions.put(step, pending());
        }
        dimensions
    }

    /// The state of one dimension. `Step::Delivery` is not a dimension: it reads as pending.
    pub fn get(&self, step: Step) -> DimensionRecord {
        match step {
            Step::Build => DimensionRecord {
                status: self.build.status,
                last_run_at: self.build.last_run_at.clone(),
                passed_iteration: self.build.passed_iteration,
                summary: self.build.summary.clone(),
                failed_items: Vec::new(),
                critical_items: Vec::new(),
                warning_items: Vec::new(),
                log_ref: self.build.log_ref.clone(),
            },
            Step::Test => DimensionRecord {
                status: self.test.status,
                last_run_at: self.test.last_run_at.clone(),
                passed_iteration: self.test.passed_iteration,
                summary: self.test.summary.clone(),
                failed_items: self.test.failed_items.clone(),
                critical_items: Vec::new(),
                warning_items: Vec::new(),
                log_ref: self.test.log_ref.clone(),
            },
            Step::Performance => items_of(&self.performance),
            Step::Alignment => items_of(&self.alignment),
            Step::Standard => items_of(&self.standard),
            Step::Delivery => DimensionRecord::pending(),
        }
    }

    /// Stores one dimension's state; the lists its shape has no key for are dropped
    /// (docs/CONCEPTS.md#loop-state-file: V1 has no item list and V2 only `failedItems`).
    pub fn put(&mut self, step: Step, record: DimensionRecord) {
        match step {
            Step::Build => {
                self.build = BuildDimension {
                    status: record.status,
                    last_run_at: record.last_run_at,
                    passed_iteration: record.passed_iteration,
                    summary: record.summary,
                    log_ref: record.log_ref,
                }
            }
            Step::Test => {
                self.test = TestDimension {
                    status: record.status,
                    last_run_at: record.last_run_at,
                    passed_iteration: record.passed_iteration,
                    summary: record.summary,
                    failed_items: record.failed_items,
                    log_ref: record.log_ref,
                }
            }
            Step::Performance => self.performance = items_from(record),
            Step::Alignment => self.alignment = items_from(record),
            Step::Standard => self.standard = items_from(record),
            Step::Delivery => {}
        }
    }
}

impl Default for Dimensions {
    fn default() -> Self {
        Dimensions::new()
    }
}

/// The shape of the verification loop (docs/CONCEPTS.md#loop-state-file) has every key present
/// (`null` where nothing is known yet), so the published schema requires every property of every
/// object, `Option` ones included.
pub fn require_every_key(schema: &mut serde_json::Value) {
    match schema {
        serde_json::Value::Object(map) => {
            if let Some(serde_json::Value::Object(properties)) = map.get("properties") {
                let keys: Vec<serde_json::Value> = properties
                    .keys()
                    .map(|k| serde_json::Value::String(k.clone()))
                    .collect();
                map.insert("required".into(), serde_json::Value::Array(keys));
            }
            for value in map.values_mut() {
                require_every_key(value);
            }
        }
        serde_json::Value::Array(values) => values.iter_mut().for_each(require_every_key),
        _ => {}
    }
}

/// The repository path of a requirement's state file.
pub fn path_for(requirement_id: &str) -> String {
    format!("{LOOP_STATE_DIR}/{requirement_id}-verification.json")
}

/// What was found at the state file's path.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadState {
    Absent,
    Found(Box<VerificationState>),
    /// The file exists but cannot be used; the finding says why and where.
    Invalid(Box<GateFinding>),
}

/// The state file's JSON Schema (`schemas/verification-state.schema.json`): the exact
/// shape, every key required.
pub fn verification_state_schema() -> serde_json::Value {
    let mut schema = gatebench_report::schema::generate::<VerificationState>(
        &gatebench_report::schema::schema_id("verification-state.schema.json"),
    );
    require_every_key(&mut schema);
    schema
}

fn schema_validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        jsonschema::validator_for(&verification_state_schema())
            .expect("the generated state schema is a valid JSON Schema")
    })
}

/// Reads the state file of `requirement_id` in the work tree `repo_dir`: strictly (the verification
/// loop's shape, no key missing or extra), and consistent with the requirement it is named after.
///
/// Reached without following a link (the file, or a folder on its way, planted as a link by a
/// command the loop ran is not read through) and without blocking on a FIFO.
pub fn read(repo_dir: &Path, requirement_id: &str) -> ReadState {
    use gatebench_gittree::nofollow::{self, Found};
    let path = path_for(requirement_id);
    let bytes = match nofollow::read(repo_dir, Path::new(&path), MAX_STATE_BYTES) {
        Ok(Found::File(bytes)) if bytes.len() as u64 > MAX_STATE_BYTES => {
            return invalid(
                &path,
                None,
                format!("it is larger than {MAX_STATE_BYTES} bytes"),
            )
        }
        Ok(Found::File(bytes)) => bytes,
        Ok(Found::Absent) => return ReadState::Absent,
        Ok(Found::Other(what)) => {
            return invalid(&path, None, format!("it cannot be read: {what}"))
        }
        Err(e) => {
            // A failure the machine causes (out of descriptors or memory) is noted as such.
            crate::fault::note_io(&format!("read {path}"), &e);
            return invalid(&path, None, format!("it cannot be read: {e}"));
        }
    };
    let value: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(value) => value,
        Err(e) => {
            return invalid(
                &path,
                Some(e.line() as u64),
                format!(
                    "it is not JSON (line {}, column {}): {e}",
                    e.line(),
                    e.column()
                ),
            )
        }
    };
    // A key given twice would be read as its last value: the file says two things at once.
    if let Some((key, line)) = crate::load::duplicate_keys(&String::from_utf8_lossy(&bytes))
        .into_iter()
        .next()
    {
        return invalid(
            &path,
            Some(line),
            format!("it gives the key `{key}` twice (line {line})"),
        );
    }
    let problems: Vec<String> = schema_validator()
        .iter_errors(&value)
        .take(3)
        .map(|e| format!("{} at `{}`", e, e.instance_path()))
        .collect();
    if !problems.is_empty() {
        return invalid(
            &path,
            None,
            format!(
                "it does not have the shape of the verification loop: {}",
                problems.join("; ")
            ),
        );
    }
    let state: VerificationState = match serde_json::from_value(value) {
        Ok(state) => state,
        Err(e) => {
            return invalid(
                &path,
                None,
                format!("it does not have the verification loop's shape: {e}"),
            )
        }
    };
    if state.requirement_id != requirement_id {
        return invalid(
            &path,
            None,
            format!(
                "it is the state of `{}`, not of `{requirement_id}`",
                state.requirement_id
            ),
        );
    }
    if state.current_iteration == 0 || state.max_iterations == 0 {
        return invalid(
            &path,
            None,
            "currentIteration and maxIterations start at 1".into(),
        );
    }
    ReadState::Found(Box::new(state))
}

fn invalid(path: &str, line: Option<u64>, why: String) -> ReadState {
    ReadState::Invalid(Box::new(
        GateFinding::new(
            loop_state::UNRESUMABLE,
            "the verification state file cannot be resumed from",
            format!(
                "{path}: {why}. The gate does not guess where the interrupted loop stood; \
                     delete the file to verify from the first round."
            ),
        )
        .at(path, line),
    ))
}

/// Writes the state file atomically (a new file in the same folder, then a rename), an ordinary
/// file of the repository (0644). Every folder on the way is opened without following a link and
/// made where missing: a state folder a command the loop ran replaced by a link (to anywhere
/// outside the repository) is an error, never written through; a link at the file's own name is
/// replaced, its target untouched.
pub fn write(repo_dir: &Path, state: &VerificationState) -> Result<(), String> {
    let path = path_for(&state.requirement_id);
    let mut text = serde_json::to_string_pretty(state).map_err(|e| e.to_string())?;
    text.push('\n');
    gatebench_gittree::nofollow::write_atomic(
        repo_dir,
        Path::new(&path),
        text.as_bytes(),
        0o644,
        true,
    )
    .map_err(|e| {
        // A failure the machine causes (a full disk, a file size limit) is noted as such: the
        // state not written is then no fact about the repository (`fault`).
        let what = format!("write {path}");
        crate::fault::note_io(&what, &e);
        format!("{what}: {e}")
    })
}

/// The largest state file read (the state of a long loop is a few KiB:
/// docs/CONCEPTS.md#loop-state-file).
const MAX_STATE_BYTES: u64 = 1024 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> VerificationState {
        VerificationState {
            requirement_id: "SV-1".into(),
            tech_design: "docs/design/SV-1-tech-design.md".into(),
            branch: "feature/SV-1-x".into(),
            base_branch: "main".into(),
            status: LoopStatus::Running,
            current_iteration: 1,
            max_iterations: 3,
            dimensions: Dimensions::new(),
            rerun_plan: vec![Step::Build],
            fix_history: Vec::new(),
            final_summary_written_to: "docs/delivery/SV-1-review-report.md".into(),
        }
    }

    /// The verification loop's example, verbatim but for the requirement id and a filled plan.
    const SEED_EXAMPLE: &str = r#"{
  "requirementId": "SV-1",
  "techDesign": "docs/design/SV-1-tech-design.md",
  "branch": "feature/SV-1-xxx",
  "baseBranch": "main",
  "status": "running",
  "currentIteration": 1,
  "maxIterations": 3,
  "dimensions": {
    "V1_BUILD": {"status": "pending", "lastRunAt": null, "passedIteration": null, "summary": "", "logRef": ""},
    "V2_TEST": {"status": "pending", "lastRunAt": null, "passedIteration": null, "summary": "", "failedItems": [], "logRef": ""},
    "V3_PERFORMANCE": {"status": "pending", "lastRunAt": null, "passedIteration": null, "summary": "", "criticalItems": [], "warningItems": [], "logRef": ""},
    "V4_ALIGNMENT": {"status": "pending", "lastRunAt": null, "passedIteration": null, "summary": "", "criticalItems": [], "warningItems": [], "logRef": ""},
    "V5_STANDARD": {"status": "pending", "lastRunAt": null, "passedIteration": null, "summary": "", "criticalItems": [], "warningItems": [], "logRef": ""}
  },
  "rerunPlan": [],
  "fixHistory": [],
  "finalSummaryWrittenTo": "docs/delivery/SV-1-review-report.md"
}"#;

    #[test]
    fn the_seeds_example_reads_and_writes_back_with_the_same_keys_in_the_same_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(path_for("SV-1"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, SEED_EXAMPLE).unwrap();
        let ReadState::Found(found) = read(dir.path(), "SV-1") else {
            panic!("{:?}", read(dir.path(), "SV-1"))
        };
        write(dir.path(), &found).unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        let keys = |text: &str| -> Vec<String> {
            let re = regex::Regex::new(r#""([A-Za-z0-9_]+)":"#).unwrap();
            re.captures_iter(text).map(|c| c[1].to_owned()).collect()
        };
        assert_eq!(keys(&written), keys(SEED_EXAMPLE));
    }

    #[test]
    fn a_state_with_a_key_missing_or_added_is_refused_with_a_finding() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(path_for("SV-1"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        for text in [
            SEED_EXAMPLE.replace("\"lastRunAt\": null, ", ""),
            SEED_EXAMPLE.replace("\"rerunPlan\": [],", "\"rerunPlan\": [], \"extra\": 1,"),
            SEED_EXAMPLE.replace("\"running\"", "\"paused\""),
            SEED_EXAMPLE.replace("\"requirementId\": \"SV-1\"", "\"requirementId\": \"SV-2\""),
            "{ not json".to_owned(),
        ] {
            std::fs::write(&path, &text).unwrap();
            match read(dir.path(), "SV-1") {
                ReadState::Invalid(item) => {
                    assert_eq!(item.validator, "loop-state");
                    assert_eq!(item.path.as_deref(), Some(path_for("SV-1").as_str()));
                }
                other => panic!("{text}\n{other:?}"),
            }
        }
    }

    #[test]
    fn a_written_state_validates_against_the_schema_and_reads_back_equal() {
        let dir = tempfile::tempdir().unwrap();
        let mut state = state();
        let mut record = DimensionRecord::pending();
        record.status = DimensionStatus::Fail;
        record.failed_items = vec!["test_a".into()];
        record.critical_items = vec!["dropped: V2 has no criticalItems".into()];
        state.dimensions.put(Step::Test, record);
        write(dir.path(), &state).unwrap();
        let text = std::fs::read_to_string(dir.path().join(path_for("SV-1"))).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(schema_validator().is_valid(&value));
        assert!(!text.contains("dropped"));
        assert_eq!(read(dir.path(), "SV-1"), ReadState::Found(Box::new(state)));
    }
}
