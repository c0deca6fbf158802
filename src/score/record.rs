//! The record of one trial: its outcome, its rounds, what each round's pipeline said and cost.
//! Everything scored and reported is computed from these records; `results.json` holds them.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::corpus::taxonomy::{Kind, Signal, Tier};
use crate::corpus::Fixture;
use crate::score::cost::CostTotal;
use crate::score::locus::GroundTruthScore;
use crate::score::outcome::{Convergence, MatcherResult, Outcome};
use gatebench_process::ProcessRecord;
use gatebench_report::{Cost, Verdict};

/// One trial of one fixture.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TrialRecord {
    pub fixture: String,
    pub category: String,
    pub golden: bool,
    /// Omission fixtures: the taxonomy kind planted (docs/TAXONOMY.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Kind>,
    /// The fixture's tier (`ledger` for goldens, and in results written before tiers).
    #[serde(default)]
    pub tier: Tier,
    /// With `tier: semantic`: whether the golden's own test suite fails on the fixture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<Signal>,
    /// 0-based.
    pub trial: u32,
    pub outcome: Outcome,
    /// Why the outcome is what it is, in one line.
    pub reason: String,
    /// Each expected finding and the finding of round 1 that met it.
    pub matchers: Vec<MatcherResult>,
    /// Omission trials with a usable round-1 report: what it said about the ground truth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground_truth: Option<GroundTruthScore>,
    /// Every trial with a usable round-1 report: its FAIL-level findings (severity >= 7); on a
    /// golden, that is noise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_findings: Option<u32>,
    pub rounds: Vec<RoundRecord>,
    pub convergence: Option<Convergence>,
    /// Commit ids by layer (`base`, `head`, `fix1`, ...): identical on every run.
    pub commits: BTreeMap<String, String>,
    pub materialize_ms: u64,
    pub duration_ms: u64,
    /// Where the pipeline ran.
    pub work_dir: String,
    /// Set when the repository was kept (`--keep`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_at: Option<String>,
    /// A failure of the harness, not of the pipeline (the fixture could not be materialized, a
    /// scripted fix could not be applied): the trial is an `error` whatever its rounds say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness_error: Option<String>,
    /// The pipeline changed the repository it was asked to verify (see `modified_paths`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub modified_repo: bool,
    /// What it changed, over all rounds: `HEAD`, `refs/...`, `index:<path>` or a work-tree path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modified_paths: Vec<String>,
    /// The cost of every round and fixer run, summed.
    #[serde(default)]
    pub cost: CostTotal,
    /// Taken from the result cache: the pipeline did not run in this run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// With `retries` set: every attempt at this trial, first to last (the record is the last
    /// one's). Only an `error` or `timeout` is retried.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<Attempt>,
    /// The trial needed a retry: an earlier attempt ended in `error` or `timeout`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retried: bool,
}

/// One attempt at a trial (`retries`): how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Attempt {
    pub outcome: Outcome,
    pub reason: String,
    pub duration_ms: u64,
}

impl Attempt {
    pub fn of(record: &TrialRecord) -> Self {
        Attempt {
            outcome: record.outcome,
            reason: record.reason.clone(),
            duration_ms: record.duration_ms,
        }
    }
}

impl TrialRecord {
    /// Trial `trial` of `fixture`, not run yet: an `error` until the runner records what happened.
    pub fn new(fixture: &Fixture, trial: u32) -> Self {
        let mut record = Self::named(&fixture.id, &fixture.category, fixture.is_golden(), trial);
        record.kind = fixture.expect.kind;
        record.tier = fixture.tier;
        record.signal = fixture.signal;
        record
    }

    /// Trial `trial` of the fixture `id`, not run yet, for when no loaded fixture is at hand.
    pub fn named(id: &str, category: &str, golden: bool, trial: u32) -> Self {
        TrialRecord {
            fixture: id.to_owned(),
            category: category.to_owned(),
            golden,
            kind: None,
            tier: Tier::Ledger,
            signal: None,
            trial,
            outcome: Outcome::Error,
            reason: "the trial did not run".into(),
            matchers: Vec::new(),
            ground_truth: None,
            fail_findings: None,
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
            attempts: Vec::new(),
            retried: false,
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub timed_out: bool,
    pub duration_ms: u64,
    pub findings: usize,
    /// The commit of the scripted fix applied after this round, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix_commit: Option<String>,
    /// What the pipeline reported, when known; absent means unknown, not zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// The report v1 the pipeline wrote, as read. In `results.json` it is in the run's object
    /// store (`report_ref`); reading the results restores it here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<serde_json::Value>,
    /// The sha256 of `report` in the run's object store (`objects/<sha256>.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_ref: Option<String>,
    /// The verifier's process (external pipelines): exit status and its output, bounded. Stored
    /// like `report` (`process_ref`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<ProcessRecord>,
    /// The sha256 of `process` in the run's object store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_ref: Option<String>,
    /// What the pipeline changed in the repository during this round (read-only check).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modified_paths: Vec<String>,
    /// The external fixer run after this round, if any. Stored like `report` (`fixer_ref`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixer: Option<ProcessRecord>,
    /// The sha256 of `fixer` in the run's object store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixer_ref: Option<String>,
    /// What the external fixer changed: the unified diff of the tree it left against the tree
    /// before it (`fix_commit`'s change). Stored like `report` (`fix_diff_ref`). Scripted fixes
    /// have none here: their diff is the fixture's own (`explain`, the trial logs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix_diff: Option<String>,
    /// The sha256 of `fix_diff` in the run's object store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix_diff_ref: Option<String>,
    /// What the fixer reported it cost (`$GATEBENCH_FIX_COST`); absent means unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix_cost: Option<Cost>,
    /// Why the fixer failed, when it did; the loop stopped there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix_error: Option<String>,
    /// The skills of the report that ran in this round (for the verification loop its dimensions
    /// `V1_BUILD`..`V5_STANDARD` and `DELIVERY_DOCUMENTS`): `skillResults` entries COMPLETED,
    /// PASSED, FAILED or BLOCKED (attempted); SKIPPED and NOT_RUN ones did not run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dimensions_run: Vec<String>,
}

/// The skills a report says ran: every `skillResults` entry whose status is COMPLETED, PASSED,
/// FAILED or BLOCKED, in report order.
pub fn dimensions_run(report: &gatebench_report::Report) -> Vec<String> {
    use gatebench_report::SkillStatus;
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
            report_ref: None,
            process: None,
            process_ref: None,
            modified_paths: Vec::new(),
            fixer: None,
            fixer_ref: None,
            fix_diff: None,
            fix_diff_ref: None,
            fix_cost: None,
            fix_error: None,
            dimensions_run: Vec::new(),
        }
    }
}
