//! The in-process pipelines: the reference gate (`builtin`) and the legacy document-style checker
//! (`legacy`), both from the `gatebench-gate` crate.

use std::path::Path;

use gatebench_gate::GateOptions;
use gatebench_report::Report;

use crate::pipeline::round::{Pipeline, RoundInput, RoundOutput, RoundRun};

/// A gate that runs inside this process. Its report goes through the same checks as any
/// external pipeline's: gatebench does not trust its own gate more than anyone else's.
pub struct InProcess {
    pub name: &'static str,
    pub gate: fn(&Path, &GateOptions) -> Report,
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
            Ok(value) => match gatebench_report::check::check_value(value) {
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
