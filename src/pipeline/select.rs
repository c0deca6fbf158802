//! Building the pipeline a scenario names: the one place that knows every implementation.

use std::path::Path;

use crate::corpus::scenario::PipelineSpec;
use crate::pipeline::builtin::InProcess;
use crate::pipeline::command::CommandPipeline;
use crate::pipeline::round::Pipeline;

/// Builds the pipeline a scenario names. Relative paths in a command are resolved against
/// `scenario_dir`.
pub fn from_spec(spec: &PipelineSpec, scenario_dir: &Path) -> Box<dyn Pipeline> {
    match spec {
        PipelineSpec::Command(command) => Box::new(CommandPipeline::new(command, scenario_dir)),
        PipelineSpec::Builtin => Box::new(InProcess {
            name: "builtin",
            gate: gatebench_gate::run_gate,
        }),
        PipelineSpec::Legacy => Box::new(InProcess {
            name: "legacy",
            gate: gatebench_gate::legacy::run_legacy,
        }),
    }
}
