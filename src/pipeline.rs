//! Pipelines: the systems under test. The runner calls a pipeline once per round and gets back
//! either a checked report v1 or the reason there is no usable answer.

use std::path::Path;

use crate::gate::GateOptions;
use crate::report::Report;
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
    fn run_round(&self, input: &RoundInput<'_>) -> RoundOutput;
}

/// Builds the pipeline a scenario names.
pub fn from_spec(spec: &PipelineSpec) -> Box<dyn Pipeline> {
    match spec {
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

    fn run_round(&self, input: &RoundInput<'_>) -> RoundOutput {
        let options = GateOptions {
            base_ref: input.base_ref.to_owned(),
        };
        let report = (self.gate)(input.work_dir, &options);
        match serde_json::to_value(&report) {
            Ok(value) => match report_check::check_value(value) {
                Ok((report, value)) => RoundOutput::Report(Box::new(report), value),
                Err(reason) => RoundOutput::Error(reason),
            },
            Err(e) => RoundOutput::Error(format!("the report could not be serialized: {e}")),
        }
    }
}
