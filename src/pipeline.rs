//! Pipelines: the systems under test. The runner calls a pipeline once per round and gets back
//! either a checked report v1 or the reason there is no usable answer.

use std::path::Path;

use crate::gate::GateOptions;
use crate::process::ProcessRecord;
use crate::report::{Cost, Report};
use crate::report_check;
use crate::scenario::PipelineSpec;

/// What a pipeline is told about the round it runs.
#[derive(Debug, Clone)]
pub struct RoundInput<'a> {
    /// The repository's work tree; the pipeline runs here.
    pub work_dir: &'a Path,
    pub fixture_id: &'a str,
    /// 1-based.
    pub round: u32,
    /// 0-based.
    pub trial: u32,
    pub base_ref: &'a str,
    /// A folder outside the repository, private to this trial, where a pipeline may write (an
    /// external command's report goes under it).
    pub scratch_dir: &'a Path,
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
}

/// Builds the pipeline a scenario names. Relative paths in a command are resolved against
/// `scenario_dir`.
pub fn from_spec(spec: &PipelineSpec, scenario_dir: &Path) -> Box<dyn Pipeline> {
    match spec {
        PipelineSpec::Command(command) => {
            Box::new(crate::command::CommandPipeline::new(command, scenario_dir))
        }
        PipelineSpec::Builtin => Box::new(InProcess {
            name: "builtin",
            gate: crate::gate::run_gate,
        }),
        PipelineSpec::Legacy => Box::new(InProcess {
            name: "legacy",
            gate: crate::legacy::run_legacy,
        }),
    }
}

/// A gate that runs inside this process. Its report goes through the same checks as any
/// external pipeline's: gatebench does not trust its own gate more than anyone else's.
struct InProcess {
    name: &'static str,
    gate: fn(&Path, &GateOptions) -> Report,
}

impl Pipeline for InProcess {
    fn name(&self) -> &str {
        self.name
    }

    fn run_round(&self, input: &RoundInput<'_>) -> RoundRun {
        let options = GateOptions {
            base_ref: input.base_ref.to_owned(),
        };
        let report = (self.gate)(input.work_dir, &options);
        let output = match serde_json::to_value(&report) {
            Ok(value) => match report_check::check_value(value) {
                Ok((report, value)) => RoundOutput::Report(Box::new(report), value),
                Err(reason) => RoundOutput::Error(reason),
            },
            Err(e) => RoundOutput::Error(format!("the report could not be serialized: {e}")),
        };
        RoundRun {
            output,
            process: None,
            report_file: None,
        }
    }
}
