//! The `Pipeline` trait: what the runner calls once per round of a system under test, and what it
//! gets back (a checked report v1 or the reason there is no usable answer). It knows none of its
//! implementations; `select` builds the one a scenario names.

use std::path::Path;

use crate::corpus::scenario::KindRule;
use gatebench_process::ProcessRecord;
use gatebench_report::{Cost, Report};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How an external pipeline's processes were isolated in a run (recorded in `results.json` and
/// shown in the summary).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct IsolationInfo {
    /// `on` (Landlock enforced, with private mounts and `/proc`), `partial` (Landlock enforced,
    /// but this machine could not give a command mounts of its own: it could change file
    /// metadata outside its folders and see other processes in `/proc`), `none` (the scenario
    /// turned it off) or `unavailable` (the kernel has no Landlock: nothing kept the pipeline from
    /// reading the answers).
    pub sandbox: String,
    /// `pid-namespace` (every process a round starts dies with it) or `process-group` (a child
    /// that called `setsid` may outlive its round).
    pub containment: String,
    /// `host` or `none` (an empty network namespace).
    pub network: String,
}

impl IsolationInfo {
    /// The lines the summary shows when the isolation is weaker than the default.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        match self.sandbox.as_str() {
            "none" => out.push(
                "SANDBOX OFF: the scenario says `sandbox: none`; the pipeline could read the \
                 fixtures (the answers)"
                    .to_owned(),
            ),
            "partial" => out.push(
                "SANDBOX PARTIAL: this machine gives commands no mounts of their own; the \
                 pipeline could see other processes in /proc and change file metadata outside \
                 its folders"
                    .to_owned(),
            ),
            "unavailable" => out.push(
                "SANDBOX UNAVAILABLE: this kernel has no Landlock; the pipeline could read the \
                 fixtures (the answers)"
                    .to_owned(),
            ),
            _ => {}
        }
        if self.containment != "pid-namespace" {
            out.push(
                "NO PID NAMESPACE: processes a verifier moved out of its process group may have \
                 outlived their round"
                    .to_owned(),
            );
        }
        out
    }
}

/// What a pipeline is told about the round it runs.
#[derive(Debug, Clone)]
pub struct RoundInput<'a> {
    /// The repository's work tree; the pipeline runs here.
    pub work_dir: &'a Path,
    /// The main repository (equal to `work_dir` unless the fixture uses a linked worktree).
    pub repo_dir: &'a Path,
    /// The trial's opaque case id (`repo::workdir::case_id`): what an external pipeline is told
    /// instead of the fixture id, which would name the answer.
    pub case_id: &'a str,
    /// 1-based.
    pub round: u32,
    /// 0-based.
    pub trial: u32,
    pub base_ref: &'a str,
    /// A folder outside the repository, private to this trial, where a pipeline may write (an
    /// external command's report goes under it).
    pub scratch_dir: &'a Path,
    /// The repository as gatebench materialized it (git dir, configuration): an in-process gate
    /// opens it through this, never as its `.git` says (`gatebench_gittree::pinned`).
    pub pinned: &'a gatebench_gittree::pinned::Pinned,
}

/// What a fixer is told: the round it follows and the report that round wrote.
#[derive(Debug, Clone)]
pub struct FixInput<'a> {
    pub round: RoundInput<'a>,
    /// The report of the round just verified.
    pub last_report: &'a Path,
}

/// One round's answer, and the process behind it when the pipeline is external.
#[derive(Debug, Clone)]
pub struct RoundRun {
    pub output: RoundOutput,
    pub process: Option<ProcessRecord>,
    /// Where the report was read from, when it was a file (a fixer is given this path).
    pub report_file: Option<std::path::PathBuf>,
}

/// What a fixer did. `error` is set when it failed (it did not exit 0, timed out, or wrote an
/// unreadable cost file); the loop then stops.
#[derive(Debug, Clone)]
pub struct FixRun {
    pub process: ProcessRecord,
    pub cost: Option<Cost>,
    pub error: Option<String>,
}

/// What came back from one round.
#[derive(Debug, Clone)]
pub enum RoundOutput {
    /// A report that passed the schema and consistency checks, and its JSON as read.
    Report(Box<Report>, serde_json::Value),
    /// No usable answer: the reason.
    Error(String),
    /// The pipeline did not answer in time.
    Timeout(String),
}

pub trait Pipeline: Send + Sync {
    /// The name shown in results (`builtin`, `legacy`, ...).
    fn name(&self) -> &str;
    fn run_round(&self, input: &RoundInput<'_>) -> RoundRun;
    /// How the pipeline's findings map onto the omission taxonomy (empty: nothing is typed).
    fn kind_rules(&self) -> Vec<KindRule> {
        Vec::new()
    }
    /// Whether the pipeline brings its own fixer, which then replaces the scripted fixes.
    fn has_fixer(&self) -> bool {
        false
    }
    /// Runs the fixer after a round that did not pass. Only called when `has_fixer`.
    fn run_fixer(&self, _input: &FixInput<'_>) -> Option<FixRun> {
        None
    }
    /// A hash of everything about the pipeline that can change its answers, for the result
    /// cache; `None` means its results are never cached (the in-process gates are part of
    /// gatebench itself, and fast).
    fn fingerprint(&self) -> Option<&str> {
        None
    }
    /// How the pipeline's processes are isolated; `None` for in-process pipelines.
    fn isolation(&self) -> Option<IsolationInfo> {
        None
    }
}
