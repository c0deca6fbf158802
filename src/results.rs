//! `results.json`: the record of a run, versioned and written atomically. It is the source of
//! truth every other output (terminal, summary.md) is rendered from.

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::corpus::Fixture;
use crate::error::{Error, Result};
use crate::fixture::{ExpectedRounds, FindingMatcher};
use crate::metrics::{MetricsReport, ThresholdResult};
use crate::outcome::{Convergence, MatcherResult, Outcome};
use crate::report::{Cost, Verdict};

/// Bumped when a consumer of `results.json` would misread the new shape.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunResults {
    pub schema_version: u32,
    pub gatebench_version: String,
    pub run_id: String,
    pub scenario: ScenarioInfo,
    pub pipeline: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub duration_ms: u64,
    pub jobs: usize,
    pub trial_count: u32,
    pub max_rounds: u32,
    pub fixtures: Vec<FixtureInfo>,
    pub trials: Vec<TrialRecord>,
    pub metrics: MetricsReport,
    pub thresholds: Vec<ThresholdResult>,
    pub exit_code: i32,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ScenarioInfo {
    pub name: String,
    pub file: String,
}

/// What a fixture expects, recorded beside the outcomes so a results file can be read alone.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FixtureInfo {
    pub id: String,
    pub category: String,
    pub description: String,
    /// The golden an omission fixture is planted in; `None` for a golden.
    pub golden: Option<String>,
    pub expected_verdict: Verdict,
    pub expected_findings: Vec<FindingMatcher>,
    pub expected_rounds: Option<ExpectedRounds>,
    pub content_hash: String,
}

impl FixtureInfo {
    pub fn of(fixture: &Fixture) -> Self {
        FixtureInfo {
            id: fixture.id.clone(),
            category: fixture.category.clone(),
            description: fixture.description.clone(),
            golden: fixture.golden.clone(),
            expected_verdict: fixture.expect.verdict,
            expected_findings: fixture
                .expect
                .findings
                .iter()
                .map(|m| m.spec.clone())
                .collect(),
            expected_rounds: fixture.expect.rounds,
            content_hash: fixture.content_hash.clone(),
        }
    }
}

/// One trial of one fixture.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TrialRecord {
    pub fixture: String,
    pub category: String,
    pub golden: bool,
    /// 0-based.
    pub trial: u32,
    pub outcome: Outcome,
    /// Why the outcome is what it is, in one line.
    pub reason: String,
    /// Each expected finding and the finding of round 1 that met it.
    pub matchers: Vec<MatcherResult>,
    pub rounds: Vec<RoundRecord>,
    pub convergence: Option<Convergence>,
    /// Commit ids by layer (`base`, `head`, `fix1`, ...): identical on every run.
    pub commits: BTreeMap<String, String>,
    pub materialize_ms: u64,
    pub duration_ms: u64,
    /// Where the pipeline ran.
    pub work_dir: String,
    /// Set when the repository was kept (`--keep`).
    pub kept_at: Option<String>,
}

impl TrialRecord {
    pub fn new(fixture: &Fixture, trial: u32) -> Self {
        TrialRecord {
            fixture: fixture.id.clone(),
            category: fixture.category.clone(),
            golden: fixture.is_golden(),
            trial,
            outcome: Outcome::Error,
            reason: "the trial did not run".into(),
            matchers: Vec::new(),
            rounds: Vec::new(),
            convergence: None,
            commits: BTreeMap::new(),
            materialize_ms: 0,
            duration_ms: 0,
            work_dir: String::new(),
            kept_at: None,
        }
    }
}

/// One round: one run of the pipeline.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RoundRecord {
    /// 1-based.
    pub round: u32,
    /// `None` when the round gave no usable answer (see `error`).
    pub verdict: Option<Verdict>,
    pub error: Option<String>,
    pub timed_out: bool,
    pub duration_ms: u64,
    pub findings: usize,
    /// The commit of the scripted fix applied after this round, if any.
    pub fix_commit: Option<String>,
    /// What the pipeline reported, when known; absent means unknown, not zero.
    pub cost: Option<Cost>,
    /// The report v1 the pipeline wrote, as read.
    pub report: Option<serde_json::Value>,
}

impl RoundRecord {
    pub fn new(round: u32, duration_ms: u64) -> Self {
        RoundRecord {
            round,
            verdict: None,
            error: None,
            timed_out: false,
            duration_ms,
            findings: 0,
            fix_commit: None,
            cost: None,
            report: None,
        }
    }
}

/// Writes `value` as pretty JSON to `path` atomically: a temporary file in the same folder, then a
/// rename, so that a reader never sees half a file.
pub fn write_json_atomic<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::Internal(format!("serializing {}: {e}", path.display())))?;
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| Error::io("create a temporary file in", dir, e))?;
    std::io::Write::write_all(&mut tmp, bytes)
        .map_err(|e| Error::io("write", tmp.path().to_path_buf(), e))?;
    tmp.persist(path)
        .map_err(|e| Error::io("rename into", path, e.error))?;
    Ok(())
}

/// Reads a results file.
pub fn read(path: &Path) -> Result<RunResults> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
    let results: RunResults = serde_json::from_str(&text).map_err(|e| {
        Error::invalid_at(
            path,
            Some(crate::error::Position {
                line: e.line(),
                column: e.column(),
            }),
            format!("not a gatebench results file: {e}"),
        )
    })?;
    if results.schema_version != SCHEMA_VERSION {
        return Err(Error::invalid(
            path,
            format!(
                "results schema_version {} is not {SCHEMA_VERSION}",
                results.schema_version
            ),
        ));
    }
    Ok(results)
}
