//! `results.json`: the record of a run, versioned and written atomically. It is the source of
//! truth every other output (terminal, summary.md) is rendered from.

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::corpus::Fixture;
use crate::cost::CostTotal;
use crate::error::{Error, Result};
use crate::fixture::{ExpectedRounds, FindingMatcher};
use crate::metrics::{MetricsReport, ThresholdResult};
use crate::outcome::{Convergence, MatcherResult, Outcome};
use crate::process::ProcessRecord;
use crate::report::{Cost, Verdict};
use crate::trials::FixtureTrials;

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
    /// sha256 of the scenario's pipeline spec: shards of different pipelines are not merged.
    #[serde(default)]
    pub pipeline_fingerprint: String,
    /// Set when this run is one shard of a sharded run (`--shard i/n`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::shard::ShardInfo>,
    /// For a merged run: the run ids of its shards, in shard order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
    /// The ratchet, when the scenario names a baseline: the fixtures that regressed against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratchet: Option<crate::ratchet::RatchetResult>,
    /// Per fixture, across its trials: how many were good, whether they agreed, cost and time.
    #[serde(default)]
    pub fixture_trials: Vec<FixtureTrials>,
    /// What the result cache did in this run (external pipelines only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheStats>,
    /// Set when this run re-scored a recorded one (`gatebench replay`): the recorded run's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_of: Option<String>,
}

/// Trials taken from the result cache and trials run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    /// `--no-cache`: nothing was read (finished trials were still written).
    pub disabled: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ScenarioInfo {
    pub name: String,
    pub file: String,
    /// The bars the run was judged by, as the scenario states them (so `merge` can judge again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thresholds: Option<crate::scenario::Thresholds>,
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
    /// A hash of what is materialized (layers, fixes, worktree) without the expectation: replay
    /// re-scores a recorded trial only when this is unchanged.
    #[serde(default)]
    pub repo_hash: String,
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
            repo_hash: crate::cache::repo_hash(fixture),
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
    /// A failure of the harness, not of the pipeline (the fixture could not be materialized, a
    /// scripted fix could not be applied): the trial is an `error` whatever its rounds say.
    #[serde(default)]
    pub harness_error: Option<String>,
    /// The pipeline changed the repository it was asked to verify (see `modified_paths`).
    #[serde(default)]
    pub modified_repo: bool,
    /// What it changed, over all rounds: `HEAD`, `refs/...`, `index:<path>` or a work-tree path.
    #[serde(default)]
    pub modified_paths: Vec<String>,
    /// The cost of every round and fixer run, summed.
    #[serde(default)]
    pub cost: CostTotal,
    /// Taken from the result cache: the pipeline did not run in this run.
    #[serde(default)]
    pub cached: bool,
}

impl TrialRecord {
    /// Trial `trial` of `fixture`, not run yet: an `error` until the runner records what happened.
    pub fn new(fixture: &Fixture, trial: u32) -> Self {
        Self::named(&fixture.id, &fixture.category, fixture.is_golden(), trial)
    }

    /// Trial `trial` of the fixture `id`, not run yet, for when no loaded fixture is at hand.
    pub fn named(id: &str, category: &str, golden: bool, trial: u32) -> Self {
        TrialRecord {
            fixture: id.to_owned(),
            category: category.to_owned(),
            golden,
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
            harness_error: None,
            modified_repo: false,
            modified_paths: Vec::new(),
            cost: CostTotal::default(),
            cached: false,
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
    /// The verifier's process (external pipelines): exit status and its output, bounded.
    #[serde(default)]
    pub process: Option<ProcessRecord>,
    /// What the pipeline changed in the repository during this round (read-only check).
    #[serde(default)]
    pub modified_paths: Vec<String>,
    /// The external fixer run after this round, if any.
    #[serde(default)]
    pub fixer: Option<ProcessRecord>,
    /// What the fixer reported it cost (`$GATEBENCH_FIX_COST`); absent means unknown.
    #[serde(default)]
    pub fix_cost: Option<Cost>,
    /// Why the fixer failed, when it did; the loop stopped there.
    #[serde(default)]
    pub fix_error: Option<String>,
    /// The skills of the report that ran in this round (for the verification loop its dimensions
    /// `V1_BUILD`..`V5_STANDARD` and `DELIVERY_DOCUMENTS`): `skillResults` entries COMPLETED,
    /// PASSED, FAILED or BLOCKED (attempted); SKIPPED and NOT_RUN ones did not run.
    #[serde(default)]
    pub dimensions_run: Vec<String>,
}

/// The skills a report says ran: every `skillResults` entry whose status is COMPLETED, PASSED,
/// FAILED or BLOCKED, in report order.
pub fn dimensions_run(report: &crate::report::Report) -> Vec<String> {
    use crate::report::SkillStatus;
    report
        .skill_results
        .iter()
        .filter(|s| {
            matches!(
                s.status,
                SkillStatus::Completed
                    | SkillStatus::Passed
                    | SkillStatus::Failed
                    | SkillStatus::Blocked
            )
        })
        .map(|s| s.skill.clone())
        .collect()
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
            process: None,
            modified_paths: Vec::new(),
            fixer: None,
            fix_cost: None,
            fix_error: None,
            dimensions_run: Vec::new(),
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
    // Temporary files are created 0600; reports are artifacts others read (CI uploads, reviewers).
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))
            .map_err(|e| Error::io("set permissions of", tmp.path().to_path_buf(), e))?;
    }
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
